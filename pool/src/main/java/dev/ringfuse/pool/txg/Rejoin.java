package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.io.BlockIo;
import dev.ringfuse.pool.io.Healing;
import dev.ringfuse.pool.io.MirrorDevice;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * Catching up mirror sides that came back after missing transaction groups (DESIGN.md, "A side that comes
 * back"): import marks a side whose newest uberblock is older than the pool's RESILVERING from the txg after
 * it; this copies onto it every live block born since — a walk of the newest txg that skips every subtree
 * born earlier, so the work is what changed while the side was away, not the pool's size — then makes it
 * ONLINE with a commit that writes its first new uberblock. A crash before that uberblock leaves the side
 * behind at the next import, and the catch-up runs again.
 */
public final class Rejoin {
    private Rejoin() {}

    /** True when some mirror side is RESILVERING. */
    public static boolean pending(Pool pool) {
        return from(pool) != Long.MAX_VALUE;
    }

    /** The oldest txg a RESILVERING side missed, or Long.MAX_VALUE. */
    private static long from(Pool pool) {
        long from = Long.MAX_VALUE;
        for (MirrorDevice m : mirrors(pool)) {
            for (int s = 0; s < m.sides(); s++) {
                long f = m.missingFrom(s);
                if (f > 0) from = Math.min(from, f);
            }
        }
        return from;
    }

    private static List<MirrorDevice> mirrors(Pool pool) {
        List<MirrorDevice> out = new ArrayList<>();
        for (int v = 0; v < pool.io().deviceCount(); v++) if (pool.io().device(v) instanceof MirrorDevice m) out.add(m);
        return out;
    }

    /**
     * Copies what the RESILVERING sides missed onto them; each that got all of it (and is not faulted) is
     * ONLINE when this returns. Null when no side was behind. A block no side holds a good copy of is counted
     * unrepairable, and the sides stay RESILVERING (they would lack it).
     */
    public static Scrub.Report resilver(Pool pool, LongConsumer progress) throws IOException {
        long from = from(pool);
        if (from == Long.MAX_VALUE) return null;
        BlockIo io = pool.io();
        // the sides behind take every write from their import on, so the walk of a txg after it covers the rest
        Scrub.Report r = Scrub.maintain(pool, "resilver", progress, () -> { }, (bp, c) -> Healing.catchUp(io, from, bp, c), done -> { });
        if (r.unrepairable() > 0) return r;
        pool.lock().lock();
        try {
            boolean any = false;
            for (MirrorDevice m : mirrors(pool)) {
                for (int s = 0; s < m.sides(); s++) {
                    if (m.missingFrom(s) == 0 || !m.flushSide(s)) continue; // not behind, or failed (faulted)
                    pool.commitLock().lock(); // no commit between its uberblock's writers and the state change
                    try {
                        m.rejoined(s);
                    } finally {
                        pool.commitLock().unlock();
                    }
                    any = true;
                }
            }
            if (any) {
                pool.dirty();
                pool.commit(); // the first uberblock on the caught-up sides: the next import takes them as current
            }
        } finally {
            pool.lock().unlock();
        }
        return r;
    }
}
