package dev.ringfuse;

/** How requests travel between the kernel and the server. */
public enum TransportKind {
    /** io_uring when the kernel offers it and {@code enable_uring} is on, else /dev/fuse. */
    AUTO,
    /** read(2)/write(2) on /dev/fuse with several cloned descriptors. */
    DEV,
    /** FUSE-over-io_uring (Linux 6.14+): one ring per possible CPU. */
    URING
}
