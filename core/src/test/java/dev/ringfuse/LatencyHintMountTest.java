package dev.ringfuse;

import dev.ringfuse.stats.StatsSocket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The CPU latency request of a /dev/fuse mount (transport.LatencyHint), seen from outside: the kernel's
 * aggregate CPU latency target, which /dev/cpu_dma_latency returns when read, is 0 µs while a hot stream is
 * being served and back to what it was soon after the stream stops; {@code spin=0} never asks.
 */
@Timeout(120)
class LatencyHintMountTest {
    private static final Path DEVICE = Path.of("/dev/cpu_dma_latency");

    @TempDir
    Path dir;

    @Test
    void heldWhileAStreamIsHotAndDroppedAfter() throws Exception {
        assumeTrue(Files.isReadable(DEVICE), "no " + DEVICE + " here");
        int before = target();
        assumeTrue(before > 0, "something else holds a 0 µs request already: nothing to see");
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        try (Mount m = Fuse.mount(mnt, new HelloFs(), MountOptions.defaults().withTransport(TransportKind.DEV))) {
            Path socket = StatsSocket.locate(mnt);
            String first = StatsSocket.read(socket);
            assumeTrue(first.contains("latencyhint "), "not used on this machine (more than 4 CPUs, or one): " + first);
            assertFalse(first.contains("refused"), first);

            AtomicBoolean stop = new AtomicBoolean();
            Thread stream = Thread.ofPlatform().start(() -> {
                while (!stop.get()) assertFalse(Files.exists(mnt.resolve("missing")));
            });
            int seen = Integer.MAX_VALUE;
            String during = "";
            try {
                long deadline = System.nanoTime() + 3_000_000_000L;
                while (seen != 0 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                    seen = target();
                    during = StatsSocket.read(socket);
                }
            } finally {
                stop.set(true);
                stream.join(10_000);
            }
            long holds = field(during, "holds");
            // hot means two requests less than 50 µs apart: a machine too loaded for that says nothing here
            assumeTrue(holds > 0 || seen == 0, "the lookups never came 50 µs apart: " + during);
            assertEquals(0, seen, "the kernel's CPU latency target while the stream ran; stats: " + during);
            assertEquals(1, field(during, "held"), during);

            // stopped: the request goes within 10–20 ms (10 ms of quiet, checked every 10 ms)
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (target() == 0 && System.nanoTime() < deadline) Thread.sleep(2);
            assertEquals(before, target(), "the target once the stream stopped");
            assertEquals(0, field(StatsSocket.read(socket), "held"));
            Thread.sleep(300);
            assertEquals(before, target(), "nothing asks while the mount rests");
        }
        assertEquals(before, target(), "after the unmount");
    }

    @Test
    void noPollingNoRequest() throws Exception {
        assumeTrue(Files.isReadable(DEVICE), "no " + DEVICE + " here");
        int before = target();
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        MountOptions o = MountOptions.defaults().withTransport(TransportKind.DEV).withSpinMicros(0);
        try (Mount m = Fuse.mount(mnt, new HelloFs(), o)) {
            int lowest = Integer.MAX_VALUE;
            for (int round = 0; round < 50; round++) {
                for (int i = 0; i < 200; i++) assertFalse(Files.exists(mnt.resolve("missing")));
                lowest = Math.min(lowest, target());
            }
            assertEquals(before, lowest, "spin=0: the target never moved");
            assertFalse(StatsSocket.read(StatsSocket.locate(mnt)).contains("latencyhint"));
        }
    }

    /** The kernel's current CPU latency target in µs (what reading the device returns). */
    private static int target() throws Exception {
        try (FileChannel c = FileChannel.open(DEVICE, StandardOpenOption.READ)) {
            ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.nativeOrder());
            while (b.hasRemaining() && c.read(b) > 0) { /* a 4-byte value */ }
            return b.getInt(0);
        }
    }

    /** The number after {@code name} on the statistics' {@code latencyhint} line. */
    private static long field(String snapshot, String name) {
        for (String l : snapshot.split("\n")) {
            String[] f = l.split(" ");
            if (!f[0].equals("latencyhint")) continue;
            for (int i = 1; i + 1 < f.length; i++) if (f[i].equals(name)) return Long.parseLong(f[i + 1]);
        }
        return fail("no latencyhint " + name + ": " + snapshot);
    }
}
