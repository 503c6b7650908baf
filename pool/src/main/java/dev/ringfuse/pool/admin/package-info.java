/**
 * Administration behind the zpool/zfs-style commands: the registry of imported pools
 * ({@link dev.ringfuse.pool.admin.PoolRegistry}), the operations themselves
 * ({@link dev.ringfuse.pool.admin.PoolAdmin}; status, scrub and replace in {@code HealthAdmin}, snapshots in
 * {@link dev.ringfuse.pool.admin.SnapshotAdmin}, send and receive, dataset properties and space figures in
 * {@link dev.ringfuse.pool.admin.SpaceAdmin}) and the control socket through which they reach a pool that
 * another process has mounted ({@link dev.ringfuse.pool.admin.PoolControl}), kept free of any command-line
 * library.
 */
package dev.ringfuse.pool.admin;
