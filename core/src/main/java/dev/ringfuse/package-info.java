/**
 * ringfuse's entry points: {@link dev.ringfuse.Fuse#mount} serves a
 * {@link dev.ringfuse.lowlevel.LowLevelFileSystem} at a mount point and returns a {@link dev.ringfuse.Mount}
 * once the kernel's INIT has completed; {@link dev.ringfuse.MountOptions} chooses the transport, mount
 * method and limits; {@link dev.ringfuse.Errno} and {@link dev.ringfuse.FuseException} carry errors.
 */
package dev.ringfuse;
