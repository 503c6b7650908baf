package dev.ringfuse.session;

import dev.ringfuse.Mount;
import dev.ringfuse.MountException;
import dev.ringfuse.MountMethod;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.mount.Mounter;
import dev.ringfuse.sys.GuardedFd;
import dev.ringfuse.sys.Libc;
import dev.ringfuse.sys.ServedMounts;
import dev.ringfuse.transport.Transport;
import dev.ringfuse.transport.dev.DevFuseTransport;
import dev.ringfuse.transport.uring.UringTransport;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Wires a mount: checks, mounts, starts the transports, waits for INIT (and the io_uring queues). */
public final class Server implements InitHooks {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse");

    private final MountOptions options;
    private final GuardedFd fd;
    private final String uringUnavailable;
    private Session session;
    private volatile Transport uring;

    private volatile dev.ringfuse.mount.MountInfo served;
    private volatile LowLevelFileSystem servedFs;

    private Server(MountOptions options, GuardedFd fd, String uringUnavailable) {
        this.options = options;
        this.fd = fd;
        this.uringUnavailable = uringUnavailable;
    }

    public static Mount start(Path mountpoint, LowLevelFileSystem fs, MountOptions options) throws MountException {
        dev.ringfuse.sys.NativeAccess.require();
        MountEvent event = new MountEvent();
        event.begin();
        String uringUnavailable = options.transport() == TransportKind.DEV ? "not requested" : UringTransport.unavailableReason();
        if (options.transport() == TransportKind.URING && uringUnavailable != null) {
            throw new MountException("cannot use the io_uring transport: " + uringUnavailable, 95);
        }
        refuseUnchecked(fs, options);
        Path mnt = Mounter.check(mountpoint);
        MountMethod method = Mounter.resolve(options.method());
        // the directory the mount will cover, for a filesystem whose calls would otherwise cross into its own mount
        int covered = coveredDirectory(mnt);
        int fd;
        try {
            if (method == MountMethod.DIRECT) {
                fd = Mounter.openDevice();
                try {
                    Mounter.mountDirect(fd, mnt, options);
                } catch (MountException e) {
                    Libc.close(fd);
                    throw e;
                }
            } else {
                fd = Mounter.mountFusermount(mnt, options);
            }
        } catch (MountException | RuntimeException e) {
            Libc.close(covered);
            throw e;
        }
        Server server = new Server(options, new GuardedFd(fd), uringUnavailable);
        server.registerServed(mnt, fs, covered);
        Mount m = server.serve(mnt, fs, method);
        event.end();
        if (event.shouldCommit()) {
            event.mountpoint = mnt.toString();
            event.fsName = options.fsName();
            event.subtype = options.subtype();
            event.transport = m.transport().name().toLowerCase(java.util.Locale.ROOT);
            event.serving = ((LiveMount) m).serving();
            event.method = method.name().toLowerCase(java.util.Locale.ROOT);
            event.commit();
        }
        return m;
    }

    private static final int O_PATH = 010000000, O_DIRECTORY = 0200000;

    /** An O_PATH descriptor of {@code mnt} before it is mounted on, or -1 (the mount goes on without it). */
    private static int coveredDirectory(Path mnt) {
        try {
            return Libc.open(mnt.toString(), O_PATH | O_DIRECTORY | Libc.O_CLOEXEC, 0);
        } catch (dev.ringfuse.sys.ErrnoException e) {
            return -1;
        }
    }

    /**
     * Records the new mount's device in {@link ServedMounts} before any request is read, so that the filesystem
     * can tell its own mount from others from its first request on; forgotten when the transport ends.
     */
    private void registerServed(Path mnt, LowLevelFileSystem fs, int covered) {
        var info = dev.ringfuse.mount.MountInfo.at(mnt).filter(dev.ringfuse.mount.MountInfo::isFuse);
        if (info.isEmpty()) {
            Libc.close(covered);
            return;
        }
        served = info.get();
        servedFs = fs;
        ServedMounts.add(served.major(), served.minor(), fs, covered);
    }

    /** The mount ended: its device number may now go to another mount. */
    void forgetServed() {
        var i = served;
        if (i != null) ServedMounts.remove(i.major(), i.minor(), servedFs);
    }

    /**
     * allow_other without default_permissions leaves every check to the filesystem: refuse one that does
     * not say it makes them, before anything is mounted.
     */
    static void refuseUnchecked(LowLevelFileSystem fs, MountOptions options) throws MountException {
        if (!options.allowOther() || options.defaultPermissions() || fs.checksPermissions()) return;
        throw new MountException("refusing to mount " + fs.getClass().getSimpleName()
                + " with allow_other and no_default_permissions: it does not check permissions itself"
                + " (LowLevelFileSystem.checksPermissions), so every user could read, write and chmod every file;"
                + " mount with default_permissions, or without allow_other", 1);
    }

    private Mount serve(Path mnt, LowLevelFileSystem fs, MountMethod method) throws MountException {
        LiveMount live = new LiveMount(mnt, method, fd);
        live.onEnd(this::forgetServed);
        session = new Session(fs, options, fd, this);
        session.mountpoint = mnt.toString();
        DevFuseTransport dev = new DevFuseTransport(session, fd, options.threads(), options.spinMicros(),
                options.maxWrite() + 4096, live::transportEnded);
        live.attach(session, dev);
        dev.startFirst();
        try {
            if (!session.awaitInit(options.initTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                live.close();
                throw new MountException("the kernel did not complete INIT within " + options.initTimeout() + " at " + mnt, 110);
            }
            if (session.initFailure() != null) {
                live.close();
                Throwable f = session.initFailure();
                throw new MountException("mount refused during INIT: " + (f.getMessage() == null ? f : f.getMessage()), f);
            }
            Transport u = uring;
            if (u != null) {
                dev.noPolling();
                live.attachUring(u);
                if (!u.awaitReady(options.initTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                    live.close();
                    throw new MountException("the io_uring queues did not register in time at " + mnt, 110);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            live.close();
            throw new MountException("interrupted while waiting for INIT", e);
        }
        if (dev.isEnded()) {
            live.close();
            throw new MountException("the connection ended during INIT at " + mnt, 107);
        }
        if (uring == null) dev.start();
        live.ready();
        return live;
    }

    @Override
    public void beforeReply(InitContext init) throws Exception {
        if (uringUnavailable != null) return;
        boolean required = options.transport() == TransportKind.URING;
        if (!init.offered().contains(Capability.OVER_IO_URING)) {
            if (required) throw new IOException("the kernel did not offer FUSE_OVER_IO_URING in INIT");
            return;
        }
        Transport u = new UringTransport(session, fd.fd(), options.uringDepth(), options.spinMicros(), Math.max(8192, init.maxWrite()));
        try {
            u.prepare();
        } catch (IOException e) {
            if (required) throw e;
            LOG.log(System.Logger.Level.WARNING, "io_uring transport unavailable, using /dev/fuse: " + e.getMessage());
            return;
        }
        init.want(Capability.OVER_IO_URING);
        uring = u;
    }

    @Override
    public void afterReply(InitContext init) {
        Transport u = uring;
        if (u != null) u.start();
    }
}
