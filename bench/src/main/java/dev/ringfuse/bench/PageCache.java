package dev.ringfuse.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Puts a file into the page cache in a defined state: every page cached, in 4 KiB folios, whatever happened to it
 * before. The state matters on ext4 with large folios (6.18): a 4 KiB buffered write into a 2 MiB folio walks
 * all 512 buffer heads of the folio twice ({@code ext4_block_write_begin}, {@code block_commit_write}: 90 % of the
 * CPU in a profile), 12–17 µs per write instead of 1.9 µs into a 4 KiB folio, for every engine alike. A file
 * read or written sequentially (the data file is created in 1 MiB writes; a sequential warm-up read runs
 * readahead) gets large folios; random 4 KiB I/O on a cold file gets small ones. Which one a fork found
 * depended on what ran before it, which made page-cache writes swing between rounds.
 *
 * <p>So: write back dirty pages, drop the file's pages ({@code POSIX_FADV_DONTNEED}), turn readahead off for the
 * descriptor ({@code POSIX_FADV_RANDOM}, whose reads then allocate single pages) and read the file through in
 * 1 MiB calls. libc through the FFM API; the benchmark JVMs run with native access.
 */
final class PageCache {
    private static final int O_RDONLY = 0, POSIX_FADV_RANDOM = 1, POSIX_FADV_DONTNEED = 4;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle OPEN = handle("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
            Linker.Option.firstVariadicArg(2));
    private static final MethodHandle FDATASYNC = handle("fdatasync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FADVISE = handle("posix_fadvise",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT));
    private static final MethodHandle PREAD = handle("pread",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private PageCache() {}

    private static MethodHandle handle(String name, FunctionDescriptor fd, Linker.Option... options) {
        return LINKER.downcallHandle(LINKER.defaultLookup().find(name).orElseThrow(), fd, options);
    }

    /** Caches all {@code size} bytes of {@code file} in 4 KiB folios (see the class comment). */
    static void cacheInSmallFolios(Path file, long size) {
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) OPEN.invokeExact(arena.allocateFrom(file.toString()), O_RDONLY, 0);
            if (fd < 0) throw new IllegalStateException("open " + file + " failed");
            try {
                if ((int) FDATASYNC.invokeExact(fd) != 0) throw new IllegalStateException("fdatasync " + file + " failed");
                int r = (int) FADVISE.invokeExact(fd, 0L, 0L, POSIX_FADV_DONTNEED);
                if (r == 0) r = (int) FADVISE.invokeExact(fd, 0L, 0L, POSIX_FADV_RANDOM);
                if (r != 0) throw new IllegalStateException("posix_fadvise " + file + ": error " + r);
                MemorySegment chunk = arena.allocate(1 << 20, 4096);
                for (long off = 0; off < size; ) {
                    long n = (long) PREAD.invokeExact(fd, chunk, chunk.byteSize(), off);
                    if (n <= 0) throw new IllegalStateException("pread " + file + " at " + off + ": " + n);
                    off += n;
                }
            } finally {
                int ignored = (int) CLOSE.invokeExact(fd);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
