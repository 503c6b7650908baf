/**
 * Administration behind the zpool/zfs-style commands: the registry of imported pools
 * ({@link dev.ringfuse.pool.admin.PoolRegistry}) and the operations themselves
 * ({@link dev.ringfuse.pool.admin.PoolAdmin}), kept free of any command-line library.
 */
package dev.ringfuse.pool.admin;
