package dev.ringfuse.session;

import dev.ringfuse.kernel.Fuse;
import dev.ringfuse.kernel.Off;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.Notifier;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

import static dev.ringfuse.protocol.Wire.i32;
import static dev.ringfuse.protocol.Wire.u16;

/**
 * One INIT exchange: what the kernel offered, what the filesystem chose, and the init_out it becomes.
 * Flags that ringfuse itself needs (INIT_EXT, MAX_PAGES, BIG_WRITES) are always asked for when offered;
 * everything else comes from {@link #wanted()}.
 */
final class Negotiation implements InitContext {
    /** Asked for unless the filesystem removes them in init(). */
    static final Set<Capability> DEFAULTS = EnumSet.of(Capability.ASYNC_READ, Capability.ASYNC_DIO,
            Capability.AUTO_INVAL_DATA, Capability.PARALLEL_DIROPS);

    private final int kernelMinor;
    private final long offeredFlags;
    private final Set<Capability> offered = EnumSet.noneOf(Capability.class);
    private final Set<Capability> wanted = EnumSet.noneOf(Capability.class);
    private final Notifier notifier;
    private int maxWrite;
    private int timeGran = 1;
    private int maxBackground = 64;
    private int maxStackDepth = 1;
    private boolean defaultPermissions = true;

    Negotiation(int kernelMinor, long offeredFlags, int maxWrite, Notifier notifier) {
        this.kernelMinor = kernelMinor;
        this.offeredFlags = offeredFlags;
        this.maxWrite = maxWrite;
        this.notifier = notifier;
        for (Capability c : Capability.values()) {
            if ((offeredFlags & c.mask()) != 0) offered.add(c);
        }
        for (Capability c : DEFAULTS) want(c);
    }

    @Override public int kernelMinor() { return kernelMinor; }
    @Override public Set<Capability> offered() { return java.util.Collections.unmodifiableSet(offered); }
    @Override public Set<Capability> wanted() { return wanted; }
    @Override public int maxWrite() { return maxWrite; }
    @Override public Notifier notifier() { return notifier; }
    @Override public boolean defaultPermissions() { return defaultPermissions; }

    Negotiation defaultPermissions(boolean on) {
        defaultPermissions = on;
        return this;
    }

    @Override
    public void maxWrite(int bytes) {
        if (bytes < 4096 || bytes > (1 << 20)) throw new IllegalArgumentException("maxWrite must be 4 KiB..1 MiB");
        maxWrite = bytes;
    }

    @Override
    public void timeGranularity(int nanos) {
        if (nanos < 1 || nanos > 1_000_000_000) throw new IllegalArgumentException("time granularity " + nanos);
        timeGran = nanos;
    }

    @Override
    public void maxBackground(int requests) {
        maxBackground = Math.clamp(requests, 1, 65535);
    }

    @Override
    public void maxStackDepth(int depth) {
        if (depth < 1 || depth > 2) throw new IllegalArgumentException("passthrough stack depth must be 1 or 2");
        maxStackDepth = depth;
    }

    int maxBackground() { return maxBackground; }

    /** Whether {@code c} ends up negotiated. */
    boolean granted(Capability c) {
        return wanted.contains(c) && offered.contains(c);
    }

    /** The 64-bit flags word of the reply. */
    long replyFlags() {
        long f = 0;
        for (Capability c : wanted) {
            if (offered.contains(c)) f |= c.mask();
        }
        f |= offeredFlags & (Fuse.INIT_EXT | Fuse.MAX_PAGES | Fuse.BIG_WRITES);
        if ((f & Capability.PASSTHROUGH.mask()) != 0 && (f & Capability.WRITEBACK_CACHE.mask()) != 0) {
            // the kernel silently turns passthrough off with writeback cache; say it instead
            f &= ~Capability.PASSTHROUGH.mask();
        }
        return f;
    }

    /** Writes init_out into {@code b}; returns its size. */
    int encode(MemorySegment b, int maxReadahead) {
        b.asSlice(0, Off.SIZEOF_INIT_OUT).fill((byte) 0);
        long f = replyFlags();
        i32(b, Off.INIT_OUT_MAJOR, Fuse.KERNEL_VERSION);
        i32(b, Off.INIT_OUT_MINOR, Fuse.KERNEL_MINOR_VERSION);
        i32(b, Off.INIT_OUT_MAX_READAHEAD, maxReadahead);
        i32(b, Off.INIT_OUT_FLAGS, (int) f);
        u16(b, Off.INIT_OUT_MAX_BACKGROUND, maxBackground);
        u16(b, Off.INIT_OUT_CONGESTION_THRESHOLD, Math.max(1, maxBackground * 3 / 4));
        i32(b, Off.INIT_OUT_MAX_WRITE, maxWrite);
        i32(b, Off.INIT_OUT_TIME_GRAN, timeGran);
        u16(b, Off.INIT_OUT_MAX_PAGES, Math.max(1, maxWrite / 4096));
        i32(b, Off.INIT_OUT_FLAGS2, (int) (f >>> 32));
        i32(b, Off.INIT_OUT_MAX_STACK_DEPTH, (f & Fuse.PASSTHROUGH) != 0 ? maxStackDepth : 0);
        // a kernel older than 7.23 reads only the first 24 bytes; we never meet one (MIN_MINOR)
        return Off.SIZEOF_INIT_OUT;
    }
}
