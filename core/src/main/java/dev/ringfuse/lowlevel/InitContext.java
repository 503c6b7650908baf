package dev.ringfuse.lowlevel;

import java.util.Set;

/**
 * What the kernel offered in INIT, and what the filesystem chooses. Handed to
 * {@link LowLevelFileSystem#init}; changes made after init returns have no effect.
 */
public interface InitContext {
    /** The kernel's protocol minor version (45 on Linux 6.18). */
    int kernelMinor();

    /** The capabilities the kernel offered. */
    Set<Capability> offered();

    /** The capabilities that will be asked for (a mutable view; only offered ones are sent). */
    Set<Capability> wanted();

    /** Asks for {@code c} if the kernel offers it; returns whether it does. */
    default boolean want(Capability c) {
        if (!offered().contains(c)) return false;
        wanted().add(c);
        return true;
    }

    /**
     * Whether the mount has {@code default_permissions}: the kernel checks mode bits and ownership before a
     * request reaches the filesystem. When false, a filesystem that {@linkplain
     * LowLevelFileSystem#checksPermissions() checks permissions} must do so for every request.
     */
    default boolean defaultPermissions() { return true; }

    /** The largest write the kernel may send, in bytes (default 1 MiB). */
    int maxWrite();

    /** Sets the largest write the kernel may send, 4 KiB to 1 MiB (IllegalArgumentException otherwise). */
    void maxWrite(int bytes);

    /** Timestamp granularity in nanoseconds, a power of ten (default 1). */
    void timeGranularity(int nanos);

    /** Background request limit (default 64). */
    void maxBackground(int requests);

    /** Passthrough stacking depth (1 or 2) used if {@link Capability#PASSTHROUGH} is chosen. */
    void maxStackDepth(int depth);

    /** The notifier of this connection, valid until the filesystem is destroyed. */
    Notifier notifier();
}
