/**
 * Pools and transaction groups: import (labels, newest valid uberblock, space log replay), the dataset
 * directory and dataset properties, snapshots and clones, space per dataset (counters kept in the heads,
 * quotas and reservations: {@link dev.ringfuse.pool.txg.DatasetSpace}), the commit sequence (data, trees,
 * directory, space log, MOS, flush, uberblock, flush) and whole-pool verification, space counters included.
 */
package dev.ringfuse.pool.txg;
