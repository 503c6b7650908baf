package dev.ringfuse.fs.memfs;

import static dev.ringfuse.lowlevel.LowLevelFileSystem.ROOT_ID;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.Attr;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Threads rename directories across each other, create, remove, list and write at once. The lock order
 * must never deadlock (the timeout catches that) and link counts must add up afterwards.
 */
class ConcurrencyTest {
    private final MemFs fs = new MemFs();
    private final Rec.Ctx ctx = new Rec.Ctx(0, 0);
    private final long[] dirs = new long[6];

    private static void quietly(Consumer<Rec> op) {
        try {
            op.accept(new Rec());
        } catch (FuseException expected) {
            // ENOENT, EINVAL, ENOTEMPTY ... are the normal outcome of racing operations
        }
    }

    @Test
    @Timeout(60)
    void racingTreeOperationsKeepTheTreeConsistent() throws Exception {
        for (int i = 0; i < dirs.length; i++) {
            Rec r = new Rec();
            fs.mkdir(ctx, ROOT_ID, "d" + i, 0755, r);
            dirs[i] = r.entry.nodeid();
        }
        ExecutorService pool = Executors.newFixedThreadPool(6);
        List<Future<?>> jobs = new ArrayList<>();
        for (int t = 0; t < 6; t++) {
            long seed = t;
            jobs.add(pool.submit(() -> work(new Random(seed))));
        }
        for (Future<?> f : jobs) f.get(50, TimeUnit.SECONDS);
        pool.shutdown();
        checkLinks(ROOT_ID);
    }

    private void work(Random r) {
        for (int i = 0; i < 20_000; i++) {
            long a = dirs[r.nextInt(dirs.length)], b = dirs[r.nextInt(dirs.length)];
            String n = "n" + r.nextInt(8), m = "n" + r.nextInt(8);
            switch (r.nextInt(8)) {
                case 0 -> quietly(x -> fs.mkdir(ctx, a, n, 0755, x));
                case 1 -> quietly(x -> fs.create(ctx, a, n, 0644, 2, x));
                case 2 -> quietly(x -> fs.rmdir(ctx, a, n, x));
                case 3 -> quietly(x -> fs.unlink(ctx, a, n, x));
                case 4 -> quietly(x -> fs.rename(ctx, a, n, b, m, new int[] {0, 1, 2, 4, 5}[r.nextInt(5)], x));
                case 5 -> {
                    // move one of the top-level directories under another and back: cross-directory renames
                    int k = r.nextInt(dirs.length);
                    quietly(x -> fs.rename(ctx, ROOT_ID, "d" + k, a, "moved" + k, 0, x));
                    quietly(x -> fs.rename(ctx, a, "moved" + k, ROOT_ID, "d" + k, 0, x));
                }
                case 6 -> quietly(x -> fs.readdirplus(ctx, a, 0, 0, 4096, x));
                default -> quietly(x -> {
                    Rec l = new Rec();
                    fs.lookup(ctx, a, n, l);
                    if (l.entry != null && !l.entry.attr().isDirectory()) {
                        fs.write(ctx, l.entry.nodeid(), 0, r.nextInt(1 << 20), MemorySegment.ofArray(new byte[100]), 0, x);
                    }
                });
            }
        }
    }

    /** Each directory's link count is 2 + its subdirectories, all the way down. */
    private void checkLinks(long dir) {
        Rec list = new Rec();
        fs.readdir(ctx, dir, 0, 0, 1 << 20, list);
        int subdirs = 0;
        for (Rec.Dirent d : list.dirents) {
            if (d.name().equals(".") || d.name().equals("..")) continue;
            Rec l = new Rec();
            fs.lookup(ctx, dir, d.name(), l);
            Attr a = l.entry.attr();
            if (a.isDirectory()) {
                subdirs++;
                Rec up = new Rec();
                fs.lookup(ctx, a.ino(), "..", up);
                assertEquals(dir, up.entry.nodeid(), "parent of " + d.name());
                checkLinks(a.ino());
            }
        }
        Rec self = new Rec();
        fs.getattr(ctx, dir, -1, self);
        assertEquals(2 + subdirs, self.attr.nlink(), "nlink of " + dir);
    }
}
