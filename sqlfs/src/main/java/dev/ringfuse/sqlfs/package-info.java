/**
 * sqlfs: a filesystem whose files live in a SQL database, SQLite embedded or PostgreSQL shared by several
 * mounts. Open one with {@link dev.ringfuse.sqlfs.SqlFs#open} and mount it like any
 * {@link dev.ringfuse.lowlevel.LowLevelFileSystem}.
 *
 * <p>Concepts: node ids are rows of {@code inodes}; names are rows of {@code dentries} (parent, exact name
 * bytes, child); a file's bytes are rows of {@code chunks} of a fixed size, a missing row being a hole;
 * every FUSE operation is one database transaction ({@code Database}); fsync makes every commit so far
 * durable; changes made by others reach the kernel's caches through a change feed (a trigger-fed table
 * on SQLite, LISTEN/NOTIFY on PostgreSQL); statements are prepared once per connection ({@code Sql}) and
 * counted, so that the statements each FUSE request costs are a tested budget. The schema is a contract
 * with applications, documented in
 * docs/sql-schema.md; the decisions are in sqlfs/DESIGN.md.
 */
package dev.ringfuse.sqlfs;
