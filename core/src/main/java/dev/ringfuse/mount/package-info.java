/**
 * Making and removing mounts without libfuse: mount(2) directly when privileged, else the fusermount3
 * handshake (a socketpair, fusermount3 spawned through posix_spawnp with the socket as fd 3, the /dev/fuse
 * descriptor received with SCM_RIGHTS); checks of the mount point with errors that say what to do; and
 * the connection's control files for abort. Internal.
 */
package dev.ringfuse.mount;
