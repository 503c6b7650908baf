/**
 * The filesystem on a dataset ({@link dev.ringfuse.pool.fs.PoolFs}, a LowLevelFileSystem): inodes, hashed
 * directory buckets with stable readdir cookies, xattrs, symlinks, and file data in blocks of the dataset's
 * recordsize, compressed and checksummed per block when a txg commits.
 */
package dev.ringfuse.pool.fs;
