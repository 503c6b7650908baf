package dev.ringfuse.pool.io;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * A top-level vdev of several sides holding the same bytes at the same offsets (DESIGN.md, "Mirrors"). Every
 * write goes to each working side; a write succeeds when at least one readable side took it (a failing side
 * is FAULTED for the rest of the import). Reads that know the block's checksum ({@link #readVerified}) try the
 * sides in turn, starting at a side chosen by the offset (so every side serves reads), and rewrite each side
 * whose copy failed its checksum or its read with the good bytes: the block's place is allocated and live, so
 * writing the same bytes there again is a repair, never an overwrite of live data with other data.
 *
 * <p>A side being resilvered ({@link #attachTarget}) receives every write but serves no read until
 * {@link #promoteTarget} makes it a full side. So does a side that came back after missing transaction groups
 * ({@link #rejoin}, state RESILVERING): it holds every block born before {@link #missingFrom} and takes every
 * write, but serves reads only once the blocks it missed are copied onto it ({@link #copyTo}, {@link #rejoined}).
 */
public final class MirrorDevice implements BlockDevice {
    /** A side's state, as `pool status` shows it. */
    public enum State { ONLINE, FAULTED, UNAVAIL, RESILVERING }

    private final BlockDevice[] sides;
    private final DeviceStats[] stats;
    private final State[] states;
    /** Per side in RESILVERING: the first txg whose blocks it may lack. */
    private final long[] missingFrom;
    private final long size;
    private volatile BlockDevice target;
    private volatile int targetSide = -1;
    private volatile DeviceStats targetStats;
    private volatile IOException targetFailure;

    /**
     * A mirror of {@code sides} (null for a side missing at import) whose allocatable area fits in
     * {@code size} bytes of each side.
     */
    public MirrorDevice(BlockDevice[] sides, long size) {
        this.sides = sides.clone();
        this.size = size;
        this.stats = new DeviceStats[sides.length];
        this.states = new State[sides.length];
        this.missingFrom = new long[sides.length];
        for (int i = 0; i < sides.length; i++) {
            stats[i] = new DeviceStats();
            states[i] = sides[i] == null ? State.UNAVAIL : State.ONLINE;
        }
    }

    public int sides() { return sides.length; }
    public BlockDevice side(int i) { return sides[i]; }
    public DeviceStats stats(int i) { return stats[i]; }
    public synchronized State state(int i) { return states[i]; }

    /** True when some side can serve reads. */
    public synchronized boolean readable() {
        for (State s : states) if (s == State.ONLINE) return true;
        return false;
    }

    /** True when every side is ONLINE. */
    public synchronized boolean healthy() {
        for (State s : states) if (s != State.ONLINE) return false;
        return true;
    }

    /** Takes side {@code i} out of service after an I/O failure (until the pool is imported again). */
    public synchronized void fault(int i) {
        if (states[i] == State.ONLINE || states[i] == State.RESILVERING) states[i] = State.FAULTED;
        stats[i].faulted = true;
    }

    /**
     * Side {@code i}, ONLINE, came back after missing the txgs from {@code fromTxg} on (import: its newest
     * uberblock is older than the pool's): it takes writes from now on but serves no read until caught up.
     */
    public synchronized void rejoin(int i, long fromTxg) {
        if (states[i] != State.ONLINE) throw new IllegalStateException("side " + i + " is " + states[i]);
        states[i] = State.RESILVERING;
        missingFrom[i] = fromTxg;
    }

    /** The first txg side {@code i} may lack blocks of (RESILVERING), or 0. */
    public synchronized long missingFrom(int i) {
        return states[i] == State.RESILVERING ? missingFrom[i] : 0;
    }

    /** RESILVERING sides that may lack a block born at {@code birth}. */
    public synchronized List<Integer> behind(long birth) {
        List<Integer> out = new ArrayList<>(1);
        for (int i = 0; i < sides.length; i++) if (states[i] == State.RESILVERING && missingFrom[i] <= birth) out.add(i);
        return out;
    }

    /** Side {@code i} holds every block it missed (and took every write since): it serves reads again. */
    public synchronized void rejoined(int i) {
        if (states[i] != State.RESILVERING) return; // faulted meanwhile
        states[i] = State.ONLINE;
        missingFrom[i] = 0;
    }

    private synchronized List<Integer> online() {
        List<Integer> out = new ArrayList<>(sides.length);
        for (int i = 0; i < sides.length; i++) if (states[i] == State.ONLINE) out.add(i);
        return out;
    }

    /** Sides that take writes: ONLINE ones first (a write succeeds only if one of them takes it), then RESILVERING. */
    private synchronized List<Integer> writers() {
        List<Integer> out = online();
        for (int i = 0; i < sides.length; i++) if (states[i] == State.RESILVERING) out.add(i);
        return out;
    }

    /** Online sides, starting at one chosen by {@code offset} so that reads spread over every side. */
    private List<Integer> readOrder(long offset) {
        List<Integer> on = online();
        if (on.size() < 2) return on;
        int start = Math.floorMod(Long.hashCode(offset * 0x9E3779B97F4A7C15L), on.size());
        List<Integer> out = new ArrayList<>(on.size());
        for (int k = 0; k < on.size(); k++) out.add(on.get((start + k) % on.size()));
        return out;
    }

    @Override public long size() { return size; }
    @Override public int alignment() { return 4096; }

    @Override
    public String name() {
        StringBuilder s = new StringBuilder("mirror(");
        for (int i = 0; i < sides.length; i++) s.append(i == 0 ? "" : ",").append(sides[i] == null ? "-" : sides[i].name());
        return s.append(')').toString();
    }

    /** Raw bytes from the first side that answers (no checksum known: read-ahead, labels). */
    @Override
    public void read(long offset, byte[] dst, int off, int len) throws IOException {
        IOException last = null;
        for (int i : readOrder(offset)) {
            try {
                sides[i].read(offset, dst, off, len);
                return;
            } catch (IOException e) {
                stats[i].readErrors.incrementAndGet();
                last = e;
            }
        }
        throw last != null ? last : new IOException(name() + ": no readable side");
    }

    @Override
    public CompletableFuture<byte[]> readAsync(long offset, int len) {
        List<Integer> order = readOrder(offset);
        if (order.isEmpty()) return CompletableFuture.failedFuture(new IOException(name() + ": no readable side"));
        return sides[order.getFirst()].readAsync(offset, len);
    }

    @Override
    public <T> CompletableFuture<T> readAsync(long offset, int len, java.util.concurrent.Executor ex,
                                              java.util.function.Function<java.lang.foreign.MemorySegment, T> use) {
        List<Integer> order = readOrder(offset);
        if (order.isEmpty()) return CompletableFuture.failedFuture(new IOException(name() + ": no readable side"));
        return sides[order.getFirst()].readAsync(offset, len, ex, use);
    }

    /**
     * Reads {@code len} bytes at {@code offset} from a side whose bytes {@code valid} accepts, repairing every
     * side tried before it if {@code mayRepair} says so then (the place is still allocated to the block); null
     * when no side holds a valid copy (each failure counted on its side). A first side that answers well costs
     * no more than its read: {@code mayRepair} is asked only when there is something to repair.
     */
    public byte[] readVerified(long offset, int len, Predicate<byte[]> valid, BooleanSupplier mayRepair) {
        return readVerified(offset, len, valid, mayRepair, false);
    }

    /**
     * As above; {@code suspect}: a read of this place already met a bad copy on a side this call cannot name (a
     * merged read starts on the side chosen for its first block, {@link #readOrder}, which need not be the side
     * chosen here), so every side is read, each bad one counted and repaired, not only those tried before a
     * good one.
     */
    public byte[] readVerified(long offset, int len, Predicate<byte[]> valid, BooleanSupplier mayRepair, boolean suspect) {
        List<Integer> bad = null;
        byte[] good = null;
        for (int i : readOrder(offset)) {
            byte[] raw = readSide(i, offset, len, valid);
            if (raw == null) {
                if (bad == null) bad = new ArrayList<>(2);
                bad.add(i);
                continue;
            }
            if (good == null) good = raw;
            if (!suspect) break;
        }
        if (good != null && bad != null && mayRepair.getAsBoolean()) for (int b : bad) repair(b, offset, good);
        return good;
    }

    /** The side a read at {@code offset} starts on, or -1 with no side online (for tests). */
    int firstSide(long offset) {
        List<Integer> order = readOrder(offset);
        return order.isEmpty() ? -1 : order.getFirst();
    }

    /** Side {@code i}'s copy if it reads and {@code valid} accepts it, else null (the failure counted on the side). */
    private byte[] readSide(int i, long offset, int len, Predicate<byte[]> valid) {
        byte[] raw = new byte[len];
        try {
            sides[i].read(offset, raw, 0, len);
        } catch (IOException e) {
            stats[i].readErrors.incrementAndGet();
            return null;
        }
        if (valid.test(raw)) return raw;
        stats[i].checksumErrors.incrementAndGet();
        return null;
    }

    /** What a scrub found at one place: bytes read, bytes rewritten, and a good copy (null: none). */
    public record Scrubbed(long scanned, long repaired, byte[] good) {}

    /** Reads every online side separately and rewrites the sides whose copy is bad from a good one. */
    public Scrubbed scrub(long offset, int len, Predicate<byte[]> valid) {
        List<Integer> bad = new ArrayList<>(2);
        byte[] good = null;
        long scanned = 0;
        for (int i : online()) {
            scanned += len;
            byte[] raw = readSide(i, offset, len, valid);
            if (raw == null) bad.add(i);
            else if (good == null) good = raw;
        }
        long repaired = 0;
        if (good != null) for (int b : bad) if (repair(b, offset, good)) repaired += len;
        return new Scrubbed(scanned, repaired, good);
    }

    /** Rewrites every online side's copy at {@code offset} with {@code good} (the copy was bad on all); returns bytes written. */
    public long rewrite(long offset, byte[] good) {
        long n = 0;
        for (int i : online()) if (repair(i, offset, good)) n += good.length;
        return n;
    }

    /**
     * Writes {@code good} (a verified copy) at {@code offset} on RESILVERING side {@code i} and reads it back;
     * returns the bytes copied, 0 when the side failed (it is faulted).
     */
    public long copyTo(int i, long offset, byte[] good, Predicate<byte[]> valid) {
        try {
            sides[i].write(offset, good, 0, good.length);
            byte[] back = new byte[good.length];
            sides[i].read(offset, back, 0, back.length);
            if (!valid.test(back)) {
                stats[i].checksumErrors.incrementAndGet();
                fault(i);
                return 0;
            }
            return good.length;
        } catch (IOException e) {
            stats[i].writeErrors.incrementAndGet();
            fault(i);
            return 0;
        }
    }

    /** Flushes RESILVERING side {@code i}; false (and the side faulted) if that fails. */
    public boolean flushSide(int i) {
        try {
            sides[i].flush();
            return true;
        } catch (IOException e) {
            stats[i].writeErrors.incrementAndGet();
            fault(i);
            return false;
        }
    }

    /** Rewrites side {@code i}'s copy at {@code offset} with {@code good}; false (and the side faulted) if that fails. */
    private boolean repair(int i, long offset, byte[] good) {
        try {
            sides[i].write(offset, good, 0, good.length);
            stats[i].repairedBytes.addAndGet(good.length);
            return true;
        } catch (IOException e) {
            stats[i].writeErrors.incrementAndGet();
            fault(i);
            return false;
        }
    }

    @Override
    public void write(long offset, byte[] src, int off, int len) throws IOException {
        byte[] copy = off == 0 && len == src.length ? src : java.util.Arrays.copyOfRange(src, off, off + len);
        writeAll(List.of(new Write(offset, copy)));
    }

    /** Writes the batch to every online side (and a resilver target) at once; fails only if no readable side took it. */
    @Override
    public void writeAll(List<Write> writes) throws IOException {
        eachSide(d -> d.writeAll(writes));
    }

    @Override
    public void flush() throws IOException {
        eachSide(BlockDevice::flush);
    }

    private interface SideOp {
        void run(BlockDevice d) throws IOException;
    }

    /**
     * Runs {@code op} on every side that takes writes and the target, concurrently; faults the sides that fail.
     * Fails only if no ONLINE side succeeded: a RESILVERING side alone does not hold the pool's blocks.
     */
    private void eachSide(SideOp op) throws IOException {
        List<Integer> on = writers();
        BlockDevice t = target;
        List<CompletableFuture<Void>> runs = new ArrayList<>(on.size() + 1);
        for (int k = 0; k < on.size(); k++) {
            BlockDevice d = sides[on.get(k)];
            runs.add(k == 0 && t == null ? CompletableFuture.completedFuture(null) : run(op, d));
        }
        CompletableFuture<Void> onTarget = t == null ? null : run(op, t);
        IOException first = null;
        int ok = 0;
        for (int k = 0; k < on.size(); k++) {
            int i = on.get(k);
            try {
                if (k == 0 && t == null) op.run(sides[i]); // the caller's thread does one side's work
                else join(runs.get(k));
                if (state(i) == State.ONLINE) ok++;
            } catch (IOException e) {
                stats[i].writeErrors.incrementAndGet();
                fault(i);
                if (first == null) first = e;
            }
        }
        if (onTarget != null) {
            try {
                join(onTarget);
            } catch (IOException e) {
                if (targetStats != null) targetStats.writeErrors.incrementAndGet();
                targetFailure = e;
            }
        }
        if (ok == 0) throw first != null ? first : new IOException(name() + ": no side to write to");
    }

    private static CompletableFuture<Void> run(SideOp op, BlockDevice d) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                op.run(d);
                f.complete(null);
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    private static void join(CompletableFuture<Void> f) throws IOException {
        try {
            f.join();
        } catch (java.util.concurrent.CompletionException e) {
            Throwable c = e.getCause();
            if (c instanceof IOException io) throw io;
            if (c instanceof RuntimeException r) throw r;
            throw new IOException(c);
        }
    }

    /**
     * Starts resilvering {@code device} into side {@code i}'s place: from now on it receives every write (so
     * blocks written during the resilver are on it) but serves no read.
     */
    public void attachTarget(int i, BlockDevice device) {
        targetStats = new DeviceStats();
        targetFailure = null;
        targetSide = i;
        target = device;
    }

    public BlockDevice target() { return target; }
    public int targetSide() { return targetSide; }
    public DeviceStats targetStats() { return targetStats; }

    /** The first write or flush failure of the target since it was attached, or null. */
    public IOException targetFailure() { return targetFailure; }

    /** Drops the resilver target (a failed or abandoned resilver); returns it for closing. */
    public BlockDevice detachTarget() {
        BlockDevice t = target;
        target = null;
        targetSide = -1;
        return t;
    }

    /** The resilvered target becomes side {@code targetSide()}; returns the side it replaced (null if missing). */
    public synchronized BlockDevice promoteTarget() {
        int i = targetSide;
        BlockDevice old = sides[i];
        sides[i] = target;
        stats[i] = targetStats;
        states[i] = State.ONLINE;
        missingFrom[i] = 0;
        target = null;
        targetSide = -1;
        return old;
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        List<BlockDevice> all = new ArrayList<>(java.util.Arrays.stream(sides).filter(java.util.Objects::nonNull).toList());
        if (target != null) all.add(target);
        for (BlockDevice d : all) {
            try {
                d.close();
            } catch (IOException e) {
                if (first == null) first = e;
            }
        }
        if (first != null) throw first;
    }
}
