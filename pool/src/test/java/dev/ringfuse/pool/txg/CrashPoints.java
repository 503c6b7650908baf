package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.io.CrashDevice;
import java.util.Random;

/**
 * The loop every power-cut test runs: points seeded from one master seed ({@code -Dpool.crash.seed} replays a
 * run), PREFIX and SUBSET cuts in turn, and a failing point reported with the seeds that replay it.
 */
public final class CrashPoints {
    private CrashPoints() {}

    /** One crash point; returns what the test counts over all points (1 or 0 for a yes or no). */
    public interface Point {
        int run(long seed, CrashDevice.Mode mode) throws Exception;
    }

    /** The master seed of a run: {@code -Dpool.crash.seed}, else a fresh one. */
    public static long master() {
        return Long.getLong("pool.crash.seed", System.nanoTime());
    }

    /** Runs {@code points} crash points of the test named {@code what}; returns the sum of what they returned. */
    public static int run(String what, int points, long master, Point point) {
        Random seeds = new Random(master);
        int sum = 0;
        for (int i = 0; i < points; i++) {
            long seed = seeds.nextLong();
            try {
                sum += point.run(seed, i % 2 == 0 ? CrashDevice.Mode.PREFIX : CrashDevice.Mode.SUBSET);
            } catch (Throwable t) {
                throw new AssertionError(what + " crash point " + i + " (seed " + seed + "; master seed " + master + "): " + t, t);
            }
        }
        return sum;
    }
}
