/**
 * Pools and transaction groups: import (labels, newest valid uberblock, space log replay), the dataset
 * directory and dataset properties, the commit sequence (data, trees, directory, space log, MOS, flush,
 * uberblock, flush) and whole-pool verification.
 */
package dev.ringfuse.pool.txg;
