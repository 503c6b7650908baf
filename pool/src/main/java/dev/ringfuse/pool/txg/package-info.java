/**
 * Pools and transaction groups: import ({@link dev.ringfuse.pool.txg.PoolImport}: labels, the newest config,
 * degraded mirrors, newest valid uberblock, space log replay), the devices as vdevs
 * ({@link dev.ringfuse.pool.txg.Vdevs}), the dataset directory and dataset properties, the commit sequence
 * (data, trees, directory, space log, MOS, flush, uberblock, flush), whole-pool verification, scrub and the
 * resilver of a replaced mirror side ({@link dev.ringfuse.pool.txg.Scrub}, {@link dev.ringfuse.pool.txg.Replace}).
 */
package dev.ringfuse.pool.txg;
