package dev.ringfuse.cli;

import dev.ringfuse.fs.passthrough.PassthroughFs;
import dev.ringfuse.lowlevel.LowLevelFileSystem;

/** The filesystems the command can mount. */
final class Filesystems {
    private Filesystems() {}

    /** The passthrough filesystem of {@code source} with kernel passthrough auto, on or off. */
    static LowLevelFileSystem passthrough(String source, String kernel) {
        if (source == null) throw new IllegalArgumentException("passthrough takes <source> <mountpoint>");
        PassthroughFs.KernelMode mode = PassthroughFs.KernelMode.valueOf(kernel.toUpperCase(java.util.Locale.ROOT));
        return new PassthroughFs(PassthroughFs.Options.of(java.nio.file.Path.of(source)).withKernel(mode));
    }

    /** What /proc/mounts shows for a sql source: no password, no query string, no commas (they split -o). */
    static String sqlName(String source) {
        return source.replaceFirst("\\?.*", "").replace(',', '_');
    }

    /**
     * Opens the registered pool of {@code POOL/NAME} and serves the dataset; the filesystem owns the pool. With
     * {@code writeback} it asks for the kernel's writeback cache; the kernel keeps names and attributes for
     * {@code timeouts}.
     */
    static LowLevelFileSystem poolDataset(String source, boolean writeback, dev.ringfuse.pool.fs.CacheTimeouts timeouts) {
        if (source == null || !source.contains("/")) throw new IllegalArgumentException("pool takes POOL/NAME <mountpoint>");
        try {
            var admin = PoolCommand.admin();
            dev.ringfuse.pool.txg.Pool p = admin.open(source.substring(0, source.indexOf('/')));
            try {
                var live = new dev.ringfuse.pool.fs.PoolFs(p.dataset(source), true, 5, writeback, timeouts);
                // snapshot, rollback and clone of a mounted pool are done by this process (it holds the devices)
                return new dev.ringfuse.pool.fs.SnapshotDirFs(live, admin.control(p));
            } catch (java.io.IOException | RuntimeException e) {
                p.close();
                throw e;
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e.getMessage(), e);
        }
    }

    enum Kind {
        memfs,
        /** One file, {@code volume}, backed by an image: built by {@link VolumeCliOptions} (it has options). */
        volume,
        passthrough,
        /** Files in a SQL database: an SQLite file (created on first use) or a jdbc:postgresql: URL. */
        sql,
        /** A dataset of a pool: {@code mount pool POOL/NAME MNT}; the pool commits and closes at unmount. */
        pool;

        String subtype() {
            return name();
        }
    }
}
