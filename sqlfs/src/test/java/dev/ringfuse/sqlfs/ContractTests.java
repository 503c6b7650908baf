package dev.ringfuse.sqlfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The schema contract (docs/sql-schema.md) while the filesystem is mounted: an application's SQL (the
 * recipes in {@link ContractSql}, through JDBC) and the mount see the same files, both ways. The mount under
 * test caches names and attributes for a minute, so what SQL changes can only reach a process through the
 * filesystem's change feed and the Notifier, not through an expiring cache.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
abstract class ContractTests {
    /** The mount point. */
    abstract Path root();

    /** A new JDBC connection to the mounted database, auto-commit off. */
    abstract Connection connect() throws Exception;

    private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private Path fresh(String name) throws IOException {
        Path d = root().resolve(name + "-" + System.nanoTime());
        Files.createDirectory(d);
        return d;
    }

    @Test
    void aFileAddedWithTheDocumentedSqlAppearsInTheMount() throws Exception {
        Path dir = fresh("add");
        Path f = dir.resolve("report.txt");
        assertFalse(Files.exists(f)); // the kernel now caches "no such name" for the entry timeout (60 s)
        byte[] content = new byte[300_000];
        new Random(1).nextBytes(content);
        long start;
        try (Connection c = connect()) {
            long d = ContractSql.resolve(c, root().relativize(dir).toString());
            ContractSql.add(c, d, "report.txt", content, 0640, 1000, 1000);
            c.commit();
            start = System.nanoTime();
        }
        while (!Files.exists(f) && System.nanoTime() - start < DEADLINE_NANOS) Thread.sleep(10);
        assertTrue(Files.exists(f), "the file added by SQL is not visible within one second");
        assertArrayEquals(content, Files.readAllBytes(f));
        assertEquals("rw-r-----", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(1000, Files.getAttribute(f, "unix:uid"));
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of("report.txt"), s.map(p -> p.getFileName().toString()).toList());
        }
    }

    @Test
    void contentsReplacedWithSqlReachAProcessThatHadThemCached() throws Exception {
        Path f = fresh("replace").resolve("data");
        Files.writeString(f, "old contents");
        assertEquals("old contents", Files.readString(f));
        assertEquals(12, Files.size(f));
        assertEquals("old contents", Files.readString(f)); // bytes and attributes are now in the kernel's caches
        byte[] updated = "NEW CONTENTS".getBytes(StandardCharsets.UTF_8); // same size: only the bytes differ
        long start;
        try (Connection c = connect()) {
            ContractSql.replace(c, ContractSql.resolve(c, root().relativize(f).toString()), updated);
            c.commit();
            start = System.nanoTime();
        }
        String seen = Files.readString(f);
        while (!seen.equals(new String(updated, StandardCharsets.UTF_8)) && System.nanoTime() - start < DEADLINE_NANOS) {
            Thread.sleep(10);
            seen = Files.readString(f);
        }
        assertEquals(new String(updated, StandardCharsets.UTF_8), seen);
        assertEquals(updated.length, Files.size(f));
    }

    @Test
    void aFileWrittenThroughTheMountIsReadBackWithTheDocumentedSql() throws Exception {
        Path f = fresh("write").resolve("sparse.bin");
        byte[] head = new byte[333_333];
        byte[] tail = new byte[4_321];
        Random r = new Random(2);
        r.nextBytes(head);
        r.nextBytes(tail);
        long tailAt = 3L << 20 | 77; // a hole of several chunks between the two
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(head), 0);
            ch.write(ByteBuffer.wrap(tail), tailAt);
        }
        byte[] expected = new byte[(int) tailAt + tail.length];
        System.arraycopy(head, 0, expected, 0, head.length);
        System.arraycopy(tail, 0, expected, (int) tailAt, tail.length);
        try (Connection c = connect()) {
            long ino = ContractSql.resolve(c, root().relativize(f).toString());
            assertArrayEquals(expected, ContractSql.read(c, ino));
            assertEquals(Files.getAttribute(f, "unix:ino"), ino);
        }
        // truncating through the mount: SQL sees the shorter file, and no chunk past it
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.truncate(100_000);
        }
        try (Connection c = connect()) {
            byte[] now = ContractSql.read(c, ContractSql.resolve(c, root().relativize(f).toString()));
            assertArrayEquals(java.util.Arrays.copyOf(head, 100_000), now);
        }
    }

    @Test
    void punchedAndZeroedRangesReadAsZerosThroughTheMountAndSql() throws Exception {
        Path f = fresh("punch").resolve("f");
        byte[] data = new byte[1_000_000];
        new Random(6).nextBytes(data);
        Files.write(f, data);
        // util-linux fallocate: punch across a chunk boundary and over a whole chunk, zero a small range
        for (String[] cmd : new String[][] {{"-p", "-o", "100000", "-l", "400000"}, {"-z", "-o", "900000", "-l", "50"},
                {"-l", "1200000"}}) {
            java.util.List<String> argv = new java.util.ArrayList<>(List.of("fallocate"));
            argv.addAll(List.of(cmd));
            argv.add(f.toString());
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), new String(p.getInputStream().readAllBytes()));
        }
        byte[] expected = java.util.Arrays.copyOf(data, 1_200_000); // mode 0 grew the file with zeros
        java.util.Arrays.fill(expected, 100_000, 500_000, (byte) 0);
        java.util.Arrays.fill(expected, 900_000, 900_050, (byte) 0);
        assertArrayEquals(expected, Files.readAllBytes(f));
        try (Connection c = connect()) {
            assertArrayEquals(expected, ContractSql.read(c, ContractSql.resolve(c, root().relativize(f).toString())));
        }
    }

    /** Where a process through the mount sees data (SEEK_DATA/SEEK_HOLE) and the file's st_blocks, by python3. */
    private static String seen(Path f) throws Exception {
        Process p = new ProcessBuilder("python3", "-c", """
                import errno, os, sys
                fd = os.open(sys.argv[1], os.O_RDONLY)
                out, off = [], 0
                while True:
                    try:
                        d = os.lseek(fd, off, os.SEEK_DATA)
                    except OSError as e:
                        if e.errno != errno.ENXIO: raise
                        break
                    off = os.lseek(fd, d, os.SEEK_HOLE)
                    out.append("%d-%d" % (d, off))
                print(" ".join(out), "blocks", os.fstat(fd).st_blocks)
                """, f.toString()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static void run(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), new String(p.getInputStream().readAllBytes()));
    }

    /**
     * Holes are missing chunks, both ways: what a process writes, extends and preallocates through the mount is,
     * for the documented SQL, the chunks it stored (and only those), and the mount's SEEK_DATA/SEEK_HOLE and
     * st_blocks follow the chunks an application deletes.
     */
    @Test
    void holesAreMissingChunksForTheDocumentedSql() throws Exception {
        Path f = fresh("holes").resolve("f");
        int chunk;
        try (Connection c = connect()) {
            chunk = ContractSql.chunkSize(c);
        }
        byte[] head = new byte[chunk + 4464];
        new Random(7).nextBytes(head);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(head), 0);
            ch.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}), 5L * chunk + 100);
        }
        long size = 8L * chunk;
        run("truncate", "-s", String.valueOf(size), f.toString()); // a hole to the end
        run("fallocate", "-n", "-o", String.valueOf(size), "-l", String.valueOf(chunk), f.toString()); // zeros past it
        long stored = chunk + 4464 + 110 + chunk; // chunks 0, 1, 5 (its 100 zeros before the bytes too), 8
        long ino;
        try (Connection c = connect()) {
            ino = ContractSql.resolve(c, root().relativize(f).toString());
            assertEquals("0:" + chunk + " 1:4464 5:110 8:" + chunk + " = " + stored, ContractSql.extents(c, ino));
            byte[] expected = new byte[(int) size];
            System.arraycopy(head, 0, expected, 0, head.length);
            for (int i = 0; i < 10; i++) expected[5 * chunk + 100 + i] = (byte) (i + 1);
            assertArrayEquals(expected, ContractSql.read(c, ino));
        }
        String blocks = " blocks " + (stored + 511) / 512;
        assertEquals("0-" + head.length + " " + 5L * chunk + "-" + (5L * chunk + 110) + blocks, seen(f));

        try (Connection c = connect()) { // an application punches chunks 0 and 5
            ContractSql.punch(c, ino, 0, 0);
            ContractSql.punch(c, ino, 5, 5);
            c.commit();
        }
        String want = chunk + "-" + head.length + " blocks " + (stored - chunk - 110 + 511) / 512;
        long start = System.nanoTime();
        String now = seen(f);
        while (!now.equals(want) && System.nanoTime() - start < DEADLINE_NANOS) {
            Thread.sleep(20);
            now = seen(f);
        }
        assertEquals(want, now);
    }

    @Test
    void theDocumentedListingMatchesTheMount() throws Exception {
        Path dir = fresh("list");
        for (String n : new String[] {"b", "a", "ü-umlaut", "sub"}) {
            if (n.equals("sub")) Files.createDirectory(dir.resolve(n));
            else Files.writeString(dir.resolve(n), n);
        }
        Files.move(dir.resolve("b"), dir.resolve("c"));
        try (Connection c = connect()) {
            List<ContractSql.Listed> l = ContractSql.list(c, ContractSql.resolve(c, root().relativize(dir).toString()));
            List<String> names = l.stream().map(ContractSql.Listed::name).sorted().toList();
            try (Stream<Path> s = Files.list(dir)) {
                assertEquals(s.map(p -> p.getFileName().toString()).sorted().toList(), names);
            }
            for (ContractSql.Listed e : l) {
                Path p = dir.resolve(e.name());
                assertEquals(Files.getAttribute(p, "unix:ino"), e.ino());
                assertEquals(Files.isDirectory(p) ? "dir" : "file", e.type());
                if (!Files.isDirectory(p)) assertEquals(Files.size(p), e.size());
            }
        }
    }
}
