package dev.ringfuse.pool.fs;

import dev.ringfuse.FileNames;
import dev.ringfuse.lowlevel.Notifier;
import dev.ringfuse.pool.txg.Snapshots;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * After `rollback` replaced a mounted dataset's tree, the kernel still caches names, attributes and pages of
 * the state before. This hook collects what it may cache (every inode it holds a lookup on, and every name in
 * those directories, before and after the rollback) and invalidates all of it, from the rolling-back thread
 * without the pool lock (the Notifier's deadlock rule: a read waiting for the lock holds the page locked).
 */
final class RollbackInvalidation implements Snapshots.ResetHook {
    private record Name(long dir, String name) {}

    private final PoolFs fs;
    private final Set<Long> inodes = new LinkedHashSet<>();
    private final Set<Name> names = new LinkedHashSet<>();
    private long[] next;

    RollbackInvalidation(PoolFs fs) {
        this.fs = fs;
    }

    /**
     * Refuses (before anything changed) while files are open on a mount with the writeback cache: the kernel
     * then owns a regular file's size and takes none from the pool while it holds the inode (a rollback that
     * shrank a file held open showed the old length, the rest as zeros, even after the close), and pages
     * written before the rollback would be written back into the state after it. Closed files have no dirty
     * pages (the kernel writes them back at close) and are forgotten with their names, as without the cache.
     */
    @Override
    public void beforeReset() throws IOException {
        int open = fs.openFiles();
        if (open > 0) {
            throw new IOException("'" + fs.ds.name() + "' is mounted with the writeback cache and " + open
                    + (open == 1 ? " file is" : " files are") + " open on it (the kernel keeps an open file's size):"
                    + " close them, or unmount, and retry");
        }
        inodes.clear();
        names.clear();
        next = fs.inodes.nextNumbers();
        collect();
    }

    @Override
    public void afterReset() throws IOException {
        fs.inodes.keepCountersAtLeast(next); // the kernel may hold inodes numbered after the snapshot's counters
        collect();
    }

    private void collect() throws IOException {
        for (long ino : fs.inodes.knownInodes()) {
            inodes.add(ino);
            Inode n = fs.inodes.get(ino);
            if (n == null || !n.isDir()) continue;
            fs.names.after(ino, 2, (d, cookie) -> {
                names.add(new Name(ino, FileNames.decode(d.name())));
                return true;
            });
        }
    }

    @Override
    public void notifyKernel() {
        Notifier n = fs.notifier;
        if (n == null) return; // not mounted (tests through the API)
        List<String> failed = new ArrayList<>();
        for (Name e : names) {
            try {
                n.invalEntry(e.dir(), e.name());
            } catch (IOException ex) {
                failed.add(e.name() + ": " + ex.getMessage());
            }
        }
        for (long ino : inodes) {
            try {
                n.invalInode(ino, 0, 0);
            } catch (IOException ex) {
                failed.add("inode " + ino + ": " + ex.getMessage());
            }
        }
        if (!failed.isEmpty()) System.err.println("pool: rollback invalidation failed for " + failed);
        inodes.clear();
        names.clear();
    }
}
