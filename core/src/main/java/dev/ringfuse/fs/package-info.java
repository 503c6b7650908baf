/**
 * The path API: a filesystem that names files by path ({@link dev.ringfuse.fs.PathFileSystem}, in the
 * spirit of libfuse's {@code fuse_operations} and jnr-fuse's {@code FuseStubFS}), served through
 * {@link dev.ringfuse.fs.PathFileSystemAdapter}, an implementation of the low-level API that keeps node
 * ids, lookup counts, generations and open handles. Mount the adapter like any low-level filesystem:
 *
 * <pre>{@code
 * try (Mount m = Fuse.mount(mountpoint, new PathFileSystemAdapter(new MyFs()), MountOptions.defaults())) { ... }
 * }</pre>
 *
 * Migrating from jnr-fuse: {@code docs/migrating-from-jnr-fuse.md}.
 */
package dev.ringfuse.fs;
