/**
 * Free-space management: per-device free extents in memory ({@link dev.ringfuse.pool.space.SpaceMap}),
 * pool-wide allocation with ditto placement, a reserve and deferred frees
 * ({@link dev.ringfuse.pool.space.Allocator}), and the append-only space log that persists them
 * ({@link dev.ringfuse.pool.space.SpaceLog}).
 */
package dev.ringfuse.pool.space;
