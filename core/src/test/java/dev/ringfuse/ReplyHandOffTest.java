package dev.ringfuse;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Replies handed to another thread at the worst moment (core/DESIGN.md, "Exactly once"), under load from
 * several threads on both transports: READs of a file whose bytes are a function of their offset are answered
 * by another thread while the callback returns or throws, GETATTRs likewise, and WRITEs applied in the
 * callback run beside them. Every byte read, every byte written and read back, and every size is checked.
 * A request buffer given back to the transport while a reply is still written into it (or sent from it)
 * shows as wrong bytes, a failed request or a hang.
 */
@Timeout(300)
class ReplyHandOffTest {
    private static final long RUN_NANOS = TimeUnit.MILLISECONDS.toNanos(Long.getLong("handoff.millis", 3000));
    private static final int READ = 128 << 10, REGION = 512 << 10, WRITE = 64 << 10;

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (TransportKind t : List.of(TransportKind.DEV, TransportKind.URING)) {
            for (HandOffFs.Mode m : HandOffFs.Mode.values()) all.add(Arguments.of(t, m));
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void everyByteIsRightWhenRepliesComeFromAnotherThread(TransportKind transport, HandOffFs.Mode mode) throws Exception {
        if (transport == TransportKind.URING) Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
        HandOffFs fs = new HandOffFs(mode);
        AtomicReference<String> wrong = new AtomicReference<>();
        AtomicLong reads = new AtomicLong(), eio = new AtomicLong(), writes = new AtomicLong(), sizes = new AtomicLong();
        ExecutorService load = Executors.newFixedThreadPool(6);
        boolean hung = false;
        try (Mount m = Fuse.mount(dir, fs, MountOptions.defaults().withTransport(transport))) {
            Path pattern = dir.resolve("pattern"), scratch = dir.resolve("scratch");
            long end = System.nanoTime() + RUN_NANOS;
            List<Future<?>> workers = new ArrayList<>();
            for (int k = 0; k < 3; k++) {
                long seed = k;
                workers.add(load.submit(() -> readPattern(pattern, seed, end, mode, wrong, reads, eio)));
            }
            for (int k = 0; k < 2; k++) {
                int region = k;
                workers.add(load.submit(() -> writeAndReadBack(scratch, region, end, wrong, writes)));
            }
            workers.add(load.submit(() -> checkSizes(pattern, scratch, end, wrong, sizes)));
            for (Future<?> w : workers) {
                try {
                    w.get(RUN_NANOS / 1_000_000 + 60_000, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    hung = true;
                    wrong.compareAndSet(null, "a request got no reply within a minute (a reply lost or sent for another request)");
                    break;
                }
            }
        } finally {
            load.shutdownNow();
            fs.close();
        }
        String where = transport + " " + mode + ": " + reads + " reads (" + eio + " EIO), " + writes + " writes, "
                + sizes + " sizes, " + fs.refused + " replies refused";
        System.out.println(where);
        assertNull(wrong.get(), where);
        assertNull(fs.failure.get(), "the replying thread failed: " + where);
        assertFalse(hung, where);
        assertTrue(reads.get() > 20 && writes.get() > 20 && sizes.get() > 20, "too little load to tell: " + where);
        switch (mode) {
            case DATA_FROM_OTHER_THREAD, BUFFER_FROM_OTHER_THREAD, THROW_WHILE_OTHER_THREAD_FILLS -> {
                assertEquals(0, eio.get(), "the other thread's reply is the answer: " + where);
                assertEquals(0, fs.refused.get(), where);
            }
            case THROW_AFTER_DATA_HANDED_OVER ->
                    assertTrue(fs.refused.get() >= eio.get(), "each EIO answered for a throw refused the other thread's reply: " + where);
        }
    }

    private static void readPattern(Path p, long seed, long end, HandOffFs.Mode mode, AtomicReference<String> wrong,
                                    AtomicLong reads, AtomicLong eio) {
        SplittableRandom rnd = new SplittableRandom(seed);
        ByteBuffer buf = ByteBuffer.allocateDirect(READ);
        byte[] got = new byte[READ];
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            while (System.nanoTime() < end && wrong.get() == null) {
                long off = (long) rnd.nextInt((HandOffFs.PATTERN_SIZE - READ) / 512) * 512;
                buf.clear();
                try {
                    int n = ch.read(buf, off);
                    if (n != READ) throw new IOException("short read of " + n + " at " + off);
                } catch (IOException e) {
                    if (mode == HandOffFs.Mode.THROW_AFTER_DATA_HANDED_OVER && String.valueOf(e.getMessage()).contains("Input/output error")) {
                        eio.incrementAndGet();
                        continue;
                    }
                    throw e;
                }
                buf.flip().get(got);
                int at = Arrays.mismatch(got, 0, READ, HandOffFs.PATTERN_BYTES, (int) off, (int) off + READ);
                if (at >= 0) {
                    wrong.compareAndSet(null, "pattern read at " + off + " differs at byte " + at + ": " + got[at]
                            + " instead of " + HandOffFs.PATTERN_BYTES[(int) off + at]);
                }
                reads.incrementAndGet();
            }
        } catch (IOException | RuntimeException e) {
            wrong.compareAndSet(null, "pattern reader: " + e);
        }
    }

    private static void writeAndReadBack(Path p, int region, long end, AtomicReference<String> wrong, AtomicLong writes) {
        SplittableRandom rnd = new SplittableRandom(100 + region);
        byte[] want = new byte[REGION], got = new byte[REGION];
        long base = (long) region * REGION;
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            while (System.nanoTime() < end && wrong.get() == null) {
                rnd.nextBytes(want);
                for (int at = 0; at < REGION; at += WRITE) {
                    ByteBuffer b = ByteBuffer.wrap(want, at, WRITE);
                    while (b.hasRemaining()) ch.write(b, base + b.position());
                    writes.incrementAndGet();
                }
                ByteBuffer r = ByteBuffer.wrap(got);
                while (r.hasRemaining()) {
                    if (ch.read(r, base + r.position()) < 0) throw new IOException("end of file at " + r.position());
                }
                int at = Arrays.mismatch(want, got);
                if (at >= 0) wrong.compareAndSet(null, "scratch region " + region + " reads back wrong at byte " + at);
            }
        } catch (IOException | RuntimeException e) {
            wrong.compareAndSet(null, "scratch writer: " + e);
        }
    }

    private static void checkSizes(Path pattern, Path scratch, long end, AtomicReference<String> wrong, AtomicLong sizes) {
        try (FileChannel a = FileChannel.open(pattern); FileChannel b = FileChannel.open(scratch)) {
            while (System.nanoTime() < end && wrong.get() == null) {
                long sa = a.size(), sb = b.size(); // fstat: a GETATTR each, attributes never cached
                if (sa != HandOffFs.PATTERN_SIZE || sb != HandOffFs.SCRATCH_SIZE) {
                    wrong.compareAndSet(null, "sizes " + sa + " and " + sb);
                }
                sizes.incrementAndGet();
            }
        } catch (IOException | RuntimeException e) {
            wrong.compareAndSet(null, "size checker: " + e);
        }
    }
}
