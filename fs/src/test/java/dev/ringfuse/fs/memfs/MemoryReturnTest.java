package dev.ringfuse.fs.memfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.TransportKind;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * issue 13.6 and 17.2: the server's resident memory (VmRSS of a memfs server in its own JVM, started without
 * -Xmx) follows the data held. Writing 1 GiB raises it by about that much; deleting the files brings it back,
 * within a few seconds, to within 10% (+16 MiB of slack for the JVM's own growth) of where it was; punching a
 * hole gives the punched pages back. A deleted file's pages (up to 128 MiB) stay warm for
 * {@link ChunkMemory#WARM_NANOS} first: the baseline holds none, so a trimmer that never gave them back fails.
 */
class MemoryReturnTest {
    private static final long MIB = 1 << 20;
    private static final long WARM_MS = TimeUnit.NANOSECONDS.toMillis(ChunkMemory.WARM_NANOS);

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void residentMemoryReturnsAfterDeleteAndPunch(TransportKind transport) throws Exception {
        Probes.assumeTransport(transport);
        Path mnt = Files.createDirectory(tmp.resolve("mnt"));
        Process server = startServer(mnt, transport);
        try {
            long pid = server.pid();
            // warm up with the same calls at a smaller scale: classes, JIT-compiled code (the compiler's malloc'd
            // arenas stay with glibc after use) and the first slab exist before the baseline is taken. The
            // second round's writes take every slot the first round's deletes left warm, and it punches its
            // files whole before deleting them, which gives their memory back at once: the baseline holds no
            // warm slot even if the trimmer never gave one back, so the check after the last delete sees that
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 4; i++) writeFile(mnt.resolve("w" + i), 64 * MIB);
                if (round == 0) punch(mnt.resolve("w0"), 32 * MIB);
                else for (int i = 0; i < 4; i++) punch(mnt.resolve("w" + i), 64 * MIB);
                for (int i = 0; i < 4; i++) Files.delete(mnt.resolve("w" + i));
            }
            long before = settledRss(pid);
            String baseline = bigMappings(pid);

            for (int i = 0; i < 4; i++) writeFile(mnt.resolve("f" + i), 256 * MIB);
            long full = rss(pid);
            assertTrue(full > before + 900 * MIB, "1 GiB written: RSS " + full / MIB + " MiB, before " + before / MIB);

            // punch 128 MiB out of one file: those pages go back now, the file keeps its size
            punch(mnt.resolve("f0"), 128 * MIB);
            long punched = rss(pid);
            assertTrue(punched < full - 100 * MIB, "after punching 128 MiB: " + punched / MIB + " MiB, full " + full / MIB);
            assertEquals(256 * MIB, Files.size(mnt.resolve("f0")));

            for (int i = 0; i < 4; i++) Files.delete(mnt.resolve("f" + i));
            // the memory goes when the kernel forgets the inodes, shortly after unlink returns, the warm part
            // WARM_NANOS later
            long limit = before + before / 10 + 16 * MIB;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WARM_MS + 4000);
            long after = rss(pid);
            while (after > limit && System.nanoTime() < deadline) {
                Thread.sleep(100);
                after = rss(pid);
            }
            System.out.printf("memfs server RSS over %s: before %d MiB, 1 GiB written %d MiB, 128 MiB punched %d MiB, deleted %d MiB%n",
                    transport, before / MIB, full / MIB, punched / MIB, after / MIB);
            assertTrue(after <= limit, "after delete: RSS " + after / MIB + " MiB, before " + before / MIB + " MiB; before: "
                    + baseline + "\nnow: " + bigMappings(pid));
        } finally {
            stopServer(server, mnt);
        }
    }

    /** File data is not on the Java heap: a server limited to a 64 MiB heap holds 768 MiB of files. */
    @org.junit.jupiter.api.Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void filesLargerThanTheHeap() throws Exception {
        Probes.assumeTransport(TransportKind.DEV);
        Path mnt = Files.createDirectory(tmp.resolve("mnt"));
        Process server = startServer(mnt, TransportKind.DEV, "-Xmx64m");
        try {
            for (int i = 0; i < 3; i++) writeFile(mnt.resolve("f" + i), 256 * MIB);
            ByteBuffer buf = ByteBuffer.allocateDirect((int) MIB);
            try (FileChannel ch = FileChannel.open(mnt.resolve("f2"), StandardOpenOption.READ)) {
                for (long off = 0; off < 256 * MIB; off += 64 * MIB) {
                    buf.clear();
                    while (buf.hasRemaining() && ch.read(buf, off + buf.position()) > 0) { }
                    for (int i = 0; i < MIB; i += 4093) assertEquals((byte) (i * 31 + 7), buf.get(i), "byte " + (off + i));
                }
            }
            assertTrue(server.isAlive());
        } finally {
            stopServer(server, mnt);
        }
    }

    private Process startServer(Path mnt, TransportKind transport, String... jvmArgs) throws Exception {
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        File out = tmp.resolve("server.out").toFile(), err = tmp.resolve("server.err").toFile();
        List<String> cmd = new ArrayList<>(List.of(javaBin, "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(List.of(jvmArgs));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), MemFsServerMain.class.getName(),
                mnt.toString(), transport.name()));
        Process server = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err).start();
        try {
            awaitReady(server, out.toPath(), err.toPath());
        } catch (Throwable t) {
            stopServer(server, mnt);
            throw t;
        }
        return server;
    }

    private static void stopServer(Process server, Path mnt) throws Exception {
        new ProcessBuilder("umount", mnt.toString()).start().waitFor(30, TimeUnit.SECONDS);
        if (!server.waitFor(30, TimeUnit.SECONDS)) {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            new ProcessBuilder("umount", "-l", mnt.toString()).start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static void punch(Path f, long len) throws Exception {
        Process p = new ProcessBuilder("fallocate", "--punch-hole", "--keep-size", "-o", "0", "-l", Long.toString(len),
                f.toString()).inheritIO().start();
        assertEquals(0, p.waitFor());
    }

    private static void writeFile(Path f, long bytes) throws IOException {
        ByteBuffer buf = ByteBuffer.allocateDirect((int) MIB);
        for (int i = 0; i < MIB; i++) buf.put(i, (byte) (i * 31 + 7));
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            for (long off = 0; off < bytes; off += MIB) ch.write(buf.clear(), off);
        }
    }

    /** The server's mappings with more than 4 MiB resident, for the failure message. */
    private static String bigMappings(long pid) throws IOException {
        StringBuilder b = new StringBuilder();
        String range = "";
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/smaps"))) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                range = line;
            } else if (line.startsWith("Rss:")) {
                long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                if (kb > 4096) b.append(kb / 1024).append(" MiB ").append(range).append('\n');
            }
        }
        return b.toString();
    }

    /** RSS once warm slots have had twice their time to go back and it has held still for a quarter second. */
    private static long settledRss(long pid) throws Exception {
        Thread.sleep(2 * WARM_MS);
        long last = rss(pid);
        for (int i = 0; i < 20; i++) {
            Thread.sleep(250);
            long now = rss(pid);
            if (Math.abs(now - last) < 2 * MIB) return now;
            last = now;
        }
        return last;
    }

    static long rss(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
        throw new IOException("no VmRSS for " + pid);
    }

    private static void awaitReady(Process p, Path out, Path err) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(out, StandardCharsets.UTF_8).contains("READY")) {
            if (!p.isAlive() || System.nanoTime() > end) {
                throw new AssertionError("server did not start: " + Files.readString(err, StandardCharsets.UTF_8));
            }
            Thread.sleep(20);
        }
    }
}
