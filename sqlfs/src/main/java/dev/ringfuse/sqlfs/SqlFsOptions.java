package dev.ringfuse.sqlfs;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How to open a database as a filesystem.
 *
 * @param url          a JDBC URL: {@code jdbc:sqlite:/path/file.db} or {@code jdbc:postgresql://host:port/db?user=...}
 * @param chunkSize    bytes per row of {@code chunks} for a database created now (an existing one keeps its own)
 * @param readers      connections for reads (SQLite: beside the one writer; PostgreSQL: the pool is this + 2)
 * @param entryTimeout how long the kernel may cache names
 * @param attrTimeout  how long the kernel may cache attributes
 */
public record SqlFsOptions(String url, int chunkSize, int readers, Duration entryTimeout, Duration attrTimeout) {
    /** The default chunk size (see sqlfs/DESIGN.md for the measurements behind it). */
    public static final int DEFAULT_CHUNK = 64 * 1024;
    /**
     * How long the kernel may cache names and attributes by default: long, because changes that do not go
     * through this kernel are announced and invalidated (SQLite: the change log, polled every 200 ms;
     * PostgreSQL: LISTEN/NOTIFY, and everything known is invalidated after a reconnect). The timeout only
     * bounds how long a missed announcement could show stale data (see sqlfs/DESIGN.md).
     */
    public static final Duration DEFAULT_CACHE = Duration.ofSeconds(30);

    public SqlFsOptions {
        if (chunkSize < 4096 || chunkSize > (16 << 20) || Integer.bitCount(chunkSize) != 1) {
            throw new IllegalArgumentException("chunk size must be a power of two from 4 KiB to 16 MiB");
        }
        if (readers < 1) throw new IllegalArgumentException("readers must be >= 1");
    }

    /**
     * Options for {@code source}: a JDBC URL as it is, or a path, which names an SQLite file (created on
     * first use). The chunk size of a new database may be set with the system property
     * {@code ringfuse.sqlfs.chunkSize} (e.g. {@code RINGFUSE_JAVA_OPTS=-Dringfuse.sqlfs.chunkSize=65536}).
     */
    public static SqlFsOptions of(String source) {
        String url = source.startsWith("jdbc:") ? source : "jdbc:sqlite:" + Path.of(source).toAbsolutePath();
        return new SqlFsOptions(url, Integer.getInteger("ringfuse.sqlfs.chunkSize", DEFAULT_CHUNK), 4,
                DEFAULT_CACHE, DEFAULT_CACHE);
    }

    public SqlFsOptions withChunkSize(int v) { return new SqlFsOptions(url, v, readers, entryTimeout, attrTimeout); }
    public SqlFsOptions withReaders(int v) { return new SqlFsOptions(url, chunkSize, v, entryTimeout, attrTimeout); }
    public SqlFsOptions withEntryTimeout(Duration v) { return new SqlFsOptions(url, chunkSize, readers, v, attrTimeout); }
    public SqlFsOptions withAttrTimeout(Duration v) { return new SqlFsOptions(url, chunkSize, readers, entryTimeout, v); }
}
