package dev.ringfuse.testkit;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.memfs.MemFs;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import dev.ringfuse.fs.passthrough.PassthroughFs.KernelMode;
import dev.ringfuse.fs.volume.VolumeFs;
import dev.ringfuse.fs.volume.VolumeOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16 point 2 on memfs, passthrough and volume's exported file ({@link WriteKillsPrivileges}: an
 * unprivileged writer's buffered, O_DIRECT, mmap, libaio and io_uring writes leave of setuid/setgid what
 * tmpfs leaves). Pool and sql run the same check in their modules.
 *
 * <p>The kernel marks direct and io_uring writes of a caller without CAP_FSETID with WRITE_KILL_SUIDGID as it
 * does buffered ones (fuse_direct_io, fuse_send_write_pages), so memfs (HANDLE_KILLPRIV_V2) clears the bits
 * on every path, and invalidates the kernel's cached attributes after a kill so that stat sees it at once.
 * Passthrough with kernel passthrough on leaves the decision to the kernel (no HANDLE_KILLPRIV: the server
 * never sees a write), whose FUSE fallback clears setgid only from group-executable files and, with nothing to
 * clear, sends an empty SETATTR: the server completes tmpfs's rule there (a writer outside the file's group
 * loses setgid; before, 6767 kept it and a write to 2767 failed with EPERM). With kernel passthrough off it
 * takes HANDLE_KILLPRIV_V2 and clears the bits itself on WRITE_KILL_SUIDGID, as memfs does. It is the kernel's VFS rule, applied
 * by the server, not the source filesystem's: the server changes the source's mode as root. Volume's one
 * file can be chmod'ed and written by anyone, so the check applies to it unchanged ({@link
 * WriteKillsPrivileges#onFile}); its O_DIRECT writes carry WRITE_KILL_SUIDGID and nothing else kills there.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class WriteKillsPrivilegesTest {
    /** 30 writes by separate processes: minutes on a loaded machine. */
    static final Duration LIMIT = Duration.ofMinutes(10);

    private static FuseMount withUring(FuseMount m, TransportKind t) {
        m.timeout(LIMIT);
        return t == TransportKind.URING ? m.beforeMount(() -> Files.writeString(MemFsScenarios.ENABLE_URING, "1")) : m;
    }

    private static FuseMount memfs(TransportKind t) {
        return withUring(FuseMount.of(MemFs::new).options(MountOptions.defaults().withAllowOther(true).withTransport(t).withInitTimeout(Duration.ofSeconds(60))), t);
    }

    private static FuseMount passthrough(KernelMode k, TransportKind t) {
        return withUring(FuseMount.of(() -> new PassthroughFs(PassthroughFs.Options.of(PassthroughScenarios.newSource()).withKernel(k)))
                .options(MountOptions.defaults().withAllowOther(true).withTransport(t).withInitTimeout(Duration.ofSeconds(60))), t);
    }

    private static FuseMount volume(VolumeOptions.Passthrough p) {
        return FuseMount.of(() -> {
                    try {
                        return VolumeFs.open(VolumeOptions.of(PassthroughScenarios.newSource().resolve("disk.img"))
                                .withCreate(1L << 20).withPassthrough(p));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                })
                .options(MountOptions.defaults().withAllowOther(true).withTransport(TransportKind.DEV).withInitTimeout(Duration.ofSeconds(60)))
                .timeout(LIMIT)
                .freshDirectories(false);
    }

    @RegisterExtension static final FuseMount MEMFS_DEV = memfs(TransportKind.DEV);
    @RegisterExtension static final FuseMount MEMFS_URING = memfs(TransportKind.URING);
    @RegisterExtension static final FuseMount PT_OFF_DEV = passthrough(KernelMode.OFF, TransportKind.DEV);
    @RegisterExtension static final FuseMount PT_OFF_URING = passthrough(KernelMode.OFF, TransportKind.URING);
    @RegisterExtension static final FuseMount PT_ON_DEV = passthrough(KernelMode.ON, TransportKind.DEV);
    @RegisterExtension static final FuseMount VOLUME_SERVED = volume(VolumeOptions.Passthrough.OFF);
    @RegisterExtension static final FuseMount VOLUME_KERNEL = volume(VolumeOptions.Passthrough.AUTO);

    private static void check(FuseMount m, Map<String, String> differences) throws Exception {
        WriteKillsPrivileges.assumeTools();
        WriteKillsPrivileges.assertLikeTmpfs(WriteKillsPrivileges.inDirectory(m.testDir()), differences);
    }

    private static void checkVolume(FuseMount m, Map<String, String> differences) throws Exception {
        WriteKillsPrivileges.assumeTools();
        WriteKillsPrivileges.assertLikeTmpfs(WriteKillsPrivileges.onFile(m.root().resolve(VolumeFs.NAME)), differences);
    }

    @Test void memfsDev() throws Exception { check(MEMFS_DEV, Map.of()); }
    @Test void memfsUring() throws Exception { check(MEMFS_URING, Map.of()); }
    @Test void passthroughKernelOffDev() throws Exception { check(PT_OFF_DEV, Map.of()); }
    @Test void passthroughKernelOffUring() throws Exception { check(PT_OFF_URING, Map.of()); }
    @Test void passthroughKernelOnDev() throws Exception { check(PT_ON_DEV, Map.of()); }
    @Test void volumeServed() throws Exception { checkVolume(VOLUME_SERVED, Map.of()); }

    /**
     * A file capability goes with an unprivileged write, as on tmpfs, and stays when a stranger chowns (-1, -1) a
     * set-ID file. Passthrough refused the kernel's removal on a write (a security.* change by a non-root caller:
     * the write failed with EIO, kernel passthrough on or off); under HANDLE_KILLPRIV_V2 the kernel sends the
     * same removal for the stranger's chown before any owner check, and every filesystem carried it out.
     */
    @Test void fileCapabilitiesGoWithWritersOnly() throws Exception {
        WriteKillsPrivileges.assumeTools();
        for (FuseMount m : new FuseMount[] {MEMFS_DEV, PT_OFF_DEV, PT_OFF_URING, PT_ON_DEV}) {
            WriteKillsPrivileges.assertCapabilitiesLikeTmpfs(m.testDir());
        }
    }

    /**
     * With kernel passthrough the volume's writes never reach the server, and without HANDLE_KILLPRIV_V2 the
     * kernel's fallback keeps setgid on a file that is not group-executable, so the server takes it away when
     * a caller outside the group opens the volume for writing (fs/DESIGN.md, "Set-ID bits on the volume").
     * A shared mapping's writer is such an opener, where tmpfs (which kills on write(2) only) keeps the bit:
     * the one documented difference, on the side that never leaves a set-ID bit behind an outsider's write.
     */
    @Test void volumeKernelPassthrough() throws Exception {
        checkVolume(VOLUME_KERNEL, Map.of("mmap 6767", "-rwsrw-rwx", "mmap 2767", "-rwxrw-rwx"));
    }
}
