/**
 * The filesystem on a dataset ({@link dev.ringfuse.pool.fs.PoolFs}, a LowLevelFileSystem): inodes, hashed
 * directory buckets with stable readdir cookies, xattrs, symlinks, and file data in blocks of the dataset's
 * recordsize, compressed and checksummed per block ahead of or at the txg's commit ({@code RecordPrep}). {@link dev.ringfuse.pool.fs.SnapshotDirFs}
 * adds the read-only {@code .snapshots/NAME/} views, which live while the kernel holds their nodes
 * ({@code SnapshotViews}).
 */
package dev.ringfuse.pool.fs;
