/**
 * Pools and transaction groups: import ({@link dev.ringfuse.pool.txg.PoolImport}: labels, the newest config,
 * degraded mirrors, newest valid uberblock, space log replay), the devices as vdevs
 * ({@link dev.ringfuse.pool.txg.Vdevs}), the dataset directory and dataset properties, snapshots and clones,
 * space per dataset (counters kept in the heads, quotas and reservations:
 * {@link dev.ringfuse.pool.txg.DatasetSpace}), the commit sequence (data, trees, directory, space log, MOS,
 * flush, uberblock, flush), whole-pool verification (space counters included), scrub and the resilver of a
 * replaced mirror side ({@link dev.ringfuse.pool.txg.Scrub}, {@link dev.ringfuse.pool.txg.Replace}).
 */
package dev.ringfuse.pool.txg;
