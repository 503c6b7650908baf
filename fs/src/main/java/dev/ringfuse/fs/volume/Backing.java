package dev.ringfuse.fs.volume;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.fs.volume.VolumeOptions.Passthrough;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.Notifier;

import java.io.IOException;

/**
 * The kernel passthrough backing file of {@code /volume}: the image descriptor registered once with
 * FUSE_DEV_IOC_BACKING_OPEN, on the first open, and reused for every later open.
 *
 * <p>One id for the life of the mount, because the kernel allows one backing file per inode: a second
 * registration of the same image would be a <em>different</em> backing file, and an open carrying it while
 * the first is in use fails with EIO. The id is released when the session ends.
 *
 * <p>The decision is made once and sticks: under {@link Passthrough#AUTO} a failed registration (no
 * CAP_SYS_ADMIN in the initial user namespace, kernel without passthrough) is logged and every open is
 * served instead; mixing the two modes on one inode is exactly the conflict the kernel refuses.
 */
final class Backing implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Backing.class.getName());

    private final Passthrough mode;
    private final int fd;
    private volatile Notifier notifier;      // set by INIT when passthrough was negotiated
    private volatile int id;                 // > 0 once registered
    private String unavailable;              // why not (guarded by this), null while undecided

    Backing(Passthrough mode, int fd) {
        this.mode = mode;
        this.fd = fd;
    }

    /** At INIT: asks for passthrough unless it is off. Stack depth 1: the image is on a non-stacked filesystem. */
    void negotiate(InitContext init) {
        if (mode == Passthrough.OFF) return;
        if (init.want(Capability.PASSTHROUGH)) {
            init.maxStackDepth(1);
            notifier = init.notifier();
        }
    }

    boolean active() {
        return id > 0;
    }

    /** The backing id to put in an open reply, or 0 to serve the I/O. Registers on the first call. */
    int idForOpen() {
        int current = id;
        if (current > 0 || mode == Passthrough.OFF) return current;
        synchronized (this) {
            if (id == 0 && unavailable == null) register();
            if (id > 0) return id;
            if (mode == Passthrough.ON) {
                LOG.log(System.Logger.Level.ERROR, "open refused: --passthrough on, but " + unavailable);
                throw new FuseException(Errno.EPERM);
            }
            return 0;
        }
    }

    private void register() {
        Notifier n = notifier;
        if (n == null) {
            unavailable = "the kernel did not negotiate FUSE passthrough";
        } else {
            try {
                id = n.openBacking(fd);
                LOG.log(System.Logger.Level.INFO, "kernel passthrough on (backing id " + id + ")");
                return;
            } catch (IOException e) {
                unavailable = "registering the backing file failed (" + e.getMessage()
                        + "; it needs CAP_SYS_ADMIN in the initial user namespace)";
            }
        }
        LOG.log(mode == Passthrough.ON ? System.Logger.Level.ERROR : System.Logger.Level.INFO,
                "kernel passthrough off: " + unavailable + "; serving reads and writes through io_uring");
    }

    /** Releases the id; open files keep the kernel's own reference. A dead connection already freed it. */
    @Override
    public synchronized void close() {
        int current = id;
        id = 0;
        Notifier n = notifier;
        if (current > 0 && n != null) {
            try {
                n.closeBacking(current);
            } catch (IOException e) {
                LOG.log(System.Logger.Level.DEBUG, "backing close after the connection ended: " + e.getMessage());
            }
        }
    }
}
