package dev.ringfuse.pool.txg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.pool.format.Dva;
import dev.ringfuse.pool.format.Layout;
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.io.MirrorDevice;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Mirrors on memory devices: reads heal a damaged side, scrub repairs what reads did not meet and a second
 * scrub finds nothing, a missing side imports DEGRADED and keeps serving, replace resilvers a new device that
 * then holds everything on its own, a replaced device is no longer taken for a member, and a side that comes
 * back after missing txgs is caught up with only what it missed.
 */
@Timeout(180)
class MirrorTest {
    static final long SIZE = 96L << 20;

    /** Overwrites [from, to) of {@code d} with random bytes (what a failing disk or a stray dd does). */
    static void scribble(BlockDevice d, long from, long to, long seed) throws IOException {
        Random r = new Random(seed);
        byte[] junk = new byte[1 << 20];
        for (long at = from; at < to; at += junk.length) {
            r.nextBytes(junk);
            d.write(at, junk, 0, (int) Math.min(junk.length, to - at));
        }
    }

    /** Creates mirror pool "m" on {@code a} and {@code b}, commits {@code steps} of workload {@code seed} in m/d, closes it. */
    static KvWorkload filledMirror(BlockDevice a, BlockDevice b, long seed, int steps) throws IOException {
        KvWorkload w = new KvWorkload(seed);
        try (Pool pool = Pool.create("m", List.of(a, b), List.of(0, 0))) {
            assertTrue(pool.io().device(0) instanceof MirrorDevice);
            Dataset ds = pool.createDataset("m/d", Map.of());
            for (int i = 0; i < steps; i++) w.step(ds);
            w.commit(pool);
        }
        return w;
    }

    /** A device that fails writes once {@link #failing} is set and runs {@link #onFlush} before each flush. */
    static final class Hooked implements BlockDevice {
        interface Step {
            void run() throws IOException;
        }

        final BlockDevice inner;
        /** Set by the first read: a resilver reads back what it copied (the wipe before it only writes). */
        volatile boolean readBack;
        volatile boolean failing;
        volatile Step onFlush = () -> { };

        Hooked(BlockDevice inner) {
            this.inner = inner;
        }

        @Override public long size() { return inner.size(); }
        @Override public int alignment() { return inner.alignment(); }
        @Override public String name() { return "hooked-" + inner.name(); }
        @Override public void close() throws IOException { inner.close(); }

        @Override
        public void read(long offset, byte[] dst, int off, int len) throws IOException {
            readBack = true;
            inner.read(offset, dst, off, len);
        }

        @Override
        public void write(long offset, byte[] src, int off, int len) throws IOException {
            if (failing) throw new IOException(name() + ": EIO writing at " + offset);
            inner.write(offset, src, off, len);
        }

        @Override
        public void flush() throws IOException {
            onFlush.run();
            inner.flush();
        }
    }

    @Test
    void readsHealScrubRepairsAndASecondScrubFindsNothing() throws Exception {
        MemoryDevice a = new MemoryDevice("a", SIZE), b = new MemoryDevice("b", SIZE);
        KvWorkload w = filledMirror(a, b, 21, 800);
        // side b's whole data area (labels at [0, 512K) and the last 512 KiB stay): every block's copy on b is bad
        scribble(b, Layout.ALLOC_START, Layout.allocEnd(SIZE), 5);
        try (Pool pool = Pool.open(List.of(b, a))) {
            assertEquals("ONLINE", pool.vdevs().poolState());
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("m/d")));
            long cksum = pool.vdevs().stats(1).checksumErrors.get();
            long healed = pool.vdevs().stats(1).repairedBytes.get();
            assertTrue(cksum > 0 && healed > 0, "reads met side b's bad copies and rewrote them: " + pool.vdevs().stats(1));
            assertEquals(0, pool.vdevs().stats(0).checksumErrors.get());

            System.out.println("reads after damaging side b: " + pool.vdevs().stats(1));
            Scrub.Report first = Scrub.scrub(pool, null);
            System.out.println("first scrub: " + first);
            assertEquals(0, first.unrepairable(), first.errors().toString());
            assertTrue(first.repaired() > 0, "the scrub repaired what reads had not met: " + first);
            assertTrue(first.scanned() >= 2 * first.repaired(), "both sides read: " + first);
            Scrub.Report second = Scrub.scrub(pool, null);
            assertEquals(0, second.repaired(), second.toString());
            assertEquals(0, second.unrepairable());
            assertEquals(first.blocks(), second.blocks());
            assertTrue(PoolVerifier.verify(pool, null).clean());
        }
        // side b alone now holds everything
        try (Pool pool = Pool.open(List.of(b))) {
            assertEquals("DEGRADED", pool.vdevs().poolState());
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("m/d")));
            assertEquals(0, pool.vdevs().stats(1).checksumErrors.get());
        }
    }

    @Test
    void missingSideServesDegradedAndReplaceResilvers() throws Exception {
        MemoryDevice a = new MemoryDevice("a", SIZE), b = new MemoryDevice("b", SIZE), c = new MemoryDevice("c", SIZE + (8 << 20));
        KvWorkload w = new KvWorkload(22);
        try (Pool pool = Pool.create("m", List.of(a, b), List.of(0, 0))) {
            Dataset ds = pool.createDataset("m/d", Map.of());
            for (int i = 0; i < 400; i++) w.step(ds);
            w.commit(pool);
            Snapshots.create(pool, "m/d@one"); // snapshot blocks are resilvered too
        }
        try (Pool pool = Pool.open(List.of(a))) {
            assertEquals("DEGRADED", pool.vdevs().poolState());
            assertEquals("UNAVAIL", pool.vdevs().state(1));
            Dataset ds = pool.dataset("m/d");
            for (int i = 0; i < 400; i++) w.step(ds);
            w.commit(pool); // writes go on to the remaining side
            IOException small = assertThrows(IOException.class,
                    () -> Replace.replace(pool, 1, new MemoryDevice("tiny", 64L << 20), null));
            assertTrue(small.getMessage().contains("too small"), small.getMessage());
            Scrub.Report r = Replace.replace(pool, 1, c, null);
            System.out.println("replace: " + r);
            assertEquals(0, r.unrepairable(), r.errors().toString());
            assertTrue(r.copied() > 0);
            assertEquals("ONLINE", pool.vdevs().poolState());
            for (int i = 0; i < 100; i++) w.step(ds); // written to both sides after the switch
            w.commit(pool);
            assertTrue(PoolVerifier.verify(pool, null).clean());
        }
        // the new device alone holds every block (the surviving side is gone too)
        try (Pool pool = Pool.open(List.of(c))) {
            assertEquals("DEGRADED", pool.vdevs().poolState());
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("m/d")));
            assertTrue(PoolVerifier.verify(pool, null).clean());
            Scrub.Report r = Scrub.scrub(pool, null);
            assertEquals(0, r.unrepairable() + r.repaired(), r.toString());
        }
        // the replaced device b comes back: it is not a member any more and is ignored
        try (Pool pool = Pool.open(List.of(b, a, c))) {
            assertEquals("ONLINE", pool.vdevs().poolState());
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("m/d")));
        }
        // a stripe device has no other side: replace refuses
        try (Pool pool = Pool.create("s", List.of(new MemoryDevice("s", SIZE)))) {
            IOException e = assertThrows(IOException.class, () -> Replace.replace(pool, 0, new MemoryDevice("t", SIZE), null));
            assertTrue(e.getMessage().contains("only a side of a mirror"), e.getMessage());
        }
    }

    /**
     * A degraded mirror whose surviving side lost one copy of a metadata block (a bad sector under the MOS's
     * first copy): its ditto copy is good, so the resilver rewrites the bad one from it and the replace goes on.
     */
    @Test
    void replaceRewritesAMetadataCopyNoSideHoldsFromItsDitto() throws Exception {
        MemoryDevice a = new MemoryDevice("a", SIZE), b = new MemoryDevice("b", SIZE), c = new MemoryDevice("c", SIZE);
        KvWorkload w = filledMirror(a, b, 26, 200);
        try (Pool pool = Pool.open(List.of(a))) {
            Dva first = pool.mosPointer().dvas()[0];
            scribble(a, first.offset(), first.offset() + first.asize(), 7);
            Scrub.Report r = Replace.replace(pool, 1, c, null);
            System.out.println("replace over a lost MOS copy: " + r);
            assertEquals(0, r.unrepairable(), r.errors().toString());
            assertTrue(r.repaired() >= first.asize(), "the lost copy was rewritten from its ditto: " + r);
            assertEquals("ONLINE", pool.vdevs().poolState());
            assertTrue(PoolVerifier.verify(pool, null).clean());
        }
        try (Pool pool = Pool.open(List.of(c))) {
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("m/d")));
            assertTrue(PoolVerifier.verify(pool, null).clean());
        }
    }

    /**
     * A commit between the resilver's walk and the config switch writes to the new device, which fails it: the
     * device lacks that block, so the replace is abandoned and the pool keeps its old config.
     */
    @Test
    void aNewDeviceFailingAWriteAfterTheWalkIsNotPromoted() throws Exception {
        MemoryDevice a = new MemoryDevice("a", SIZE), b = new MemoryDevice("b", SIZE);
        KvWorkload w = filledMirror(a, b, 24, 200);
        try (Pool pool = Pool.open(List.of(a))) {
            Dataset ds = pool.dataset("m/d");
            Hooked target = new Hooked(new MemoryDevice("c", SIZE));
            target.onFlush = () -> {
                // the flush closing the walk: the device fails writes from now on, and a change waits for a commit
                if (target.readBack && !target.failing) {
                    target.failing = true;
                    w.step(ds);
                }
            };
            IOException e = assertThrows(IOException.class, () -> Replace.replace(pool, 1, target, null));
            assertTrue(e.getMessage().contains("failed during the resilver"), e.getMessage());
            assertTrue(target.failing, "the device failed after the walk");
            assertEquals("UNAVAIL", pool.vdevs().state(1));
            assertEquals(null, ((MirrorDevice) pool.io().device(0)).target(), "the failed device is detached");
            w.commit(pool);
            KvWorkload.assertSame(w.committed, KvWorkload.read(ds));
            assertTrue(PoolVerifier.verify(pool, null).clean());
            Scrub.Report r = Replace.replace(pool, 1, new MemoryDevice("d", SIZE), null);
            assertEquals(0, r.unrepairable(), r.errors().toString());
            assertEquals("ONLINE", pool.vdevs().poolState());
        }
    }

    /**
     * One scrub or resilver at a time holds through a replace's config switch: a scrub started while the new
     * device is promoted (and the old side closed) would read sides as they change under it.
     */
    @Test
    void noScrubStartsUntilTheReplaceHasSwitched() throws Exception {
        MemoryDevice a = new MemoryDevice("a", SIZE), b = new MemoryDevice("b", SIZE);
        KvWorkload w = new KvWorkload(25);
        try (Pool pool = Pool.create("m", List.of(a, b), List.of(0, 0))) {
            Dataset ds = pool.createDataset("m/d", Map.of());
            for (int i = 0; i < 200; i++) w.step(ds);
            w.commit(pool);
            Hooked target = new Hooked(new MemoryDevice("c", SIZE));
            List<String> started = new java.util.ArrayList<>();
            java.util.concurrent.atomic.AtomicBoolean replacing = new java.util.concurrent.atomic.AtomicBoolean(true);
            target.onFlush = () -> {
                // every flush of the new device from its first copy to the end of the replace, except those of a
                // commit holding the pool lock (a scrub would wait for it)
                if (!target.readBack || !replacing.get() || pool.lock().isLocked()) return;
                try {
                    started.add("a scrub ran during the replace: " + Scrub.scrub(pool, null));
                } catch (IOException e) {
                    if (!e.getMessage().contains("a resilver is running")) throw e;
                    started.add("refused");
                }
            };
            Replace.replace(pool, 1, target, null);
            replacing.set(false);
            assertTrue(started.contains("refused"), "a scrub was tried during the replace: " + started);
            assertEquals(List.of(), started.stream().filter(x -> !x.equals("refused")).toList());
            assertEquals("ONLINE", pool.vdevs().poolState());
            assertTrue(PoolVerifier.verify(pool, null).clean());
        }
    }

    /**
     * A side missing at one import comes back at the next RESILVERING: it takes writes but serves no read, and
     * the catch-up copies onto it only the blocks born while it was away (a small part of what a scrub reads),
     * after which it is ONLINE, a scrub finds nothing to repair on it, and it holds everything on its own.
     */
    @Test
    void aReturningSideIsResilveredOnlyForWhatItMissed() throws Exception {
        MemoryDevice a = new MemoryDevice("a", SIZE), b = new MemoryDevice("b", SIZE);
        KvWorkload w = new KvWorkload(24);
        try (Pool pool = Pool.create("m", List.of(a, b), List.of(0, 0))) {
            Dataset ds = pool.createDataset("m/d", Map.of());
            for (int i = 0; i < 800; i++) w.step(ds);
            w.commit(pool);
        }
        try (Pool pool = Pool.open(List.of(a))) { // b is away while a little changes
            Dataset ds = pool.dataset("m/d");
            for (int i = 0; i < 10; i++) w.step(ds);
            w.commit(pool);
        }
        try (Pool pool = Pool.open(List.of(b, a))) {
            assertEquals("RESILVERING", pool.vdevs().state(1));
            assertEquals("ONLINE", pool.vdevs().state(0));
            assertEquals("DEGRADED", pool.vdevs().poolState());
            assertTrue(Rejoin.pending(pool));
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("m/d")));
            assertEquals(0, pool.vdevs().stats(1).checksumErrors.get(), "no read went to the side that is behind");
            Dataset ds = pool.dataset("m/d");
            for (int i = 0; i < 10; i++) w.step(ds); // written to both sides before the catch-up
            w.commit(pool);
            Scrub.Report caught = Rejoin.resilver(pool, null);
            System.out.println("catch-up: " + caught);
            assertEquals(0, caught.unrepairable(), caught.errors().toString());
            assertTrue(caught.copied() > 0, caught.toString());
            assertEquals("ONLINE", pool.vdevs().poolState());
            assertTrue(!Rejoin.pending(pool) && Rejoin.resilver(pool, null) == null);
            Scrub.Report all = Scrub.scrub(pool, null);
            System.out.println("scrub after it: " + all);
            assertEquals(0, all.repaired() + all.unrepairable(), "side b holds every block: " + all);
            assertTrue(caught.blocks() * 4 < all.blocks(), "the catch-up visited " + caught.blocks() + " of " + all.blocks() + " blocks");
        }
        try (Pool pool = Pool.open(List.of(a, b))) {
            assertEquals("ONLINE", pool.vdevs().poolState(), "its first uberblock after the catch-up makes it current");
        }
        try (Pool pool = Pool.open(List.of(b))) {
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("m/d")));
            assertTrue(PoolVerifier.verify(pool, null).clean());
            assertEquals(0, pool.vdevs().stats(1).checksumErrors.get());
        }
    }

    /** A side whose reads fail with EIO in a range: served from the other side, counted, and written back. */
    @Test
    void readErrorsOnOneSideAreServedFromTheOther() throws Exception {
        MemoryDevice a = new MemoryDevice("a", SIZE), b = new MemoryDevice("b", SIZE);
        KvWorkload w = filledMirror(a, b, 23, 300);
        java.util.concurrent.atomic.AtomicBoolean failing = new java.util.concurrent.atomic.AtomicBoolean(true);
        BlockDevice flaky = new BlockDevice() {
            @Override public long size() { return b.size(); }
            @Override public int alignment() { return b.alignment(); }
            @Override public String name() { return "flaky"; }
            @Override public void flush() throws IOException { b.flush(); }
            @Override public void close() { }

            @Override
            public void read(long offset, byte[] dst, int off, int len) throws IOException {
                if (failing.get() && offset >= Layout.ALLOC_START && offset < Layout.ALLOC_START + (2 << 20)) {
                    throw new IOException("flaky: EIO at " + offset);
                }
                b.read(offset, dst, off, len);
            }

            @Override
            public void write(long offset, byte[] src, int off, int len) throws IOException {
                b.write(offset, src, off, len);
            }
        };
        try (Pool pool = Pool.open(List.of(a, flaky))) {
            KvWorkload.assertSame(w.committed, KvWorkload.read(pool.dataset("m/d")));
            var s = pool.vdevs().stats(1);
            assertTrue(s.readErrors.get() > 0 && s.repairedBytes.get() > 0, s.toString());
            assertEquals(0, s.checksumErrors.get());
            failing.set(false); // the sectors were remapped by the rewrite, as a disk does
            Scrub.Report r = Scrub.scrub(pool, null);
            assertEquals(0, r.unrepairable(), r.toString());
            assertTrue(PoolVerifier.verify(pool, null).clean());
        }
    }
}
