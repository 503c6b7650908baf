package dev.ringfuse.fs.passthrough;

import dev.ringfuse.fs.passthrough.Inodes.Inode;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.Notifier;
import java.io.IOException;
import java.lang.System.Logger.Level;

/**
 * Kernel passthrough (FUSE_PASSTHROUGH, Linux 6.9+): reads, writes and mmap of a regular file go straight
 * to the source file in the kernel. Decided once at INIT; once on, every open of a regular file is a
 * passthrough open, because the kernel answers EIO to a caching open of an inode that is in passthrough
 * mode and to a second backing file for the same inode. So each inode has one backing id, shared by all
 * its open files (counted), registered at the first open and closed at the last release.
 */
final class KernelPassthrough {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse.fs.passthrough");

    private final PassthroughFs.KernelMode mode;
    private volatile boolean acquiredOnce;
    private volatile boolean on;
    private volatile Notifier notifier;

    KernelPassthrough(PassthroughFs.KernelMode mode) {
        this.mode = mode;
    }

    boolean on() {
        return on;
    }

    /** Negotiates passthrough if wanted and possible; logs why not otherwise. */
    void init(InitContext init, boolean euidRoot) {
        if (mode == PassthroughFs.KernelMode.OFF) return;
        String why = null;
        if (!euidRoot) why = "needs CAP_SYS_ADMIN (run as root)";
        else if (init.wanted().contains(Capability.WRITEBACK_CACHE)) why = "the writeback cache is on";
        else if (!init.want(Capability.PASSTHROUGH)) why = "the kernel does not offer it (Linux 6.9+ needed)";
        if (why != null) {
            // ON is a promise about where the data goes: fail the mount (INIT answers EIO) rather than break it
            if (mode == PassthroughFs.KernelMode.ON) throw new IllegalStateException("kernel passthrough unavailable: " + why);
            LOG.log(Level.INFO, "kernel passthrough off: " + why);
            return;
        }
        init.maxStackDepth(1); // the source may itself be on a stacked filesystem of depth 0 only
        notifier = init.notifier();
        on = true;
        LOG.log(Level.INFO, "kernel passthrough on");
    }

    /** The backing id of {@code n} for one more open file. */
    int acquire(Inode n) throws IOException {
        synchronized (n) {
            if (n.backingUsers == 0) n.backingId = notifier.openBacking(n.fd);
            n.backingUsers++;
            acquiredOnce = true;
            return n.backingId;
        }
    }

    /** One open file of {@code n} is released; the last one closes the backing id. */
    void release(Inode n) {
        synchronized (n) {
            if (n.backingUsers == 0 || --n.backingUsers > 0) return;
            int id = n.backingId;
            n.backingId = 0;
            try {
                notifier.closeBacking(id);
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "closeBacking " + id + ": " + e.getMessage());
            }
        }
    }

    /**
     * A registration failed. Before any succeeded (no inode is in passthrough mode yet) passthrough is
     * turned off for good and the open proceeds without it; after that, the open must fail (a caching
     * open would get EIO from the kernel anyway).
     */
    boolean fallBack(IOException why) {
        if (acquiredOnce) return false;
        if (on) LOG.log(Level.WARNING, "kernel passthrough off: backing open failed: " + why.getMessage());
        on = false;
        return true;
    }
}
