package dev.ringfuse.session;

import dev.ringfuse.Mount;
import dev.ringfuse.MountException;
import dev.ringfuse.MountMethod;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.mount.Mounter;
import dev.ringfuse.sys.Libc;
import dev.ringfuse.transport.DevFuseTransport;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Wires a mount: checks, mounts, starts the transport, waits for INIT. */
public final class Server {
    private Server() {}

    public static Mount start(Path mountpoint, LowLevelFileSystem fs, MountOptions options) throws MountException {
        if (options.transport() == TransportKind.URING) {
            throw new MountException("the io_uring transport is not available in this build; use --transport dev", 95);
        }
        Path mnt = Mounter.check(mountpoint);
        MountMethod method = Mounter.resolve(options.method());
        int fd;
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
        LiveMount live = new LiveMount(mnt, method, fd);
        Session session = new Session(fs, options, fd, n -> { });
        DevFuseTransport transport = new DevFuseTransport(session, fd, options.threads(), options.maxWrite() + 4096,
                live::transportEnded);
        live.attach(session, transport, TransportKind.DEV);
        transport.startFirst();
        try {
            if (!session.awaitInit(options.initTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                live.close();
                throw new MountException("the kernel did not complete INIT within " + options.initTimeout()
                        + " at " + mnt, 110);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            live.close();
            throw new MountException("interrupted while waiting for INIT", e);
        }
        if (transport.isEnded()) {
            live.close();
            throw new MountException("the connection ended during INIT at " + mnt, 107);
        }
        transport.startClones();
        live.ready();
        return live;
    }
}
