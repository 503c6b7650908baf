/**
 * Administration behind the zpool/zfs-style commands: the registry of imported pools
 * ({@link dev.ringfuse.pool.admin.PoolRegistry}) and the operations themselves
 * ({@link dev.ringfuse.pool.admin.PoolAdmin}; snapshots in {@link dev.ringfuse.pool.admin.SnapshotAdmin}, dataset
 * properties and space figures in {@link dev.ringfuse.pool.admin.SpaceAdmin}), kept free of any command-line
 * library; a pool mounted by another process is reached through its {@link dev.ringfuse.pool.admin.PoolControl}.
 */
package dev.ringfuse.pool.admin;
