package dev.ringfuse;

/** How the mount is made. */
public enum MountMethod {
    /** mount(2) when privileged, else the fusermount3 handshake. */
    AUTO,
    /** mount(2) directly (needs CAP_SYS_ADMIN in the mount namespace's user namespace). */
    DIRECT,
    /** The setuid helper fusermount3, which passes the /dev/fuse descriptor back over a socket. */
    FUSERMOUNT
}
