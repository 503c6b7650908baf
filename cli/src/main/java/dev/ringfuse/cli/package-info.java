/**
 * The {@code ringfuse} command: {@code mount <fs> <mountpoint>} serves a filesystem in the foreground,
 * {@code demo} shows memfs at work, {@code unmount} clears a mount, {@code mount-helper} is what mount(8)
 * runs for {@code -t fuse.ringfuse} (through {@code /sbin/mount.fuse.ringfuse}, written by
 * {@code install-helper}): it starts the same server detached and returns once the mount is live. Each
 * subcommand is one class; {@code MountSpec} turns a filesystem, its source and the -o options into the
 * filesystem and its {@code MountOptions} for both, so both take and refuse the same options.
 */
package dev.ringfuse.cli;
