package dev.ringfuse.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ringfuse.testkit.internal.Procs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A volume's serving threads are I/O flushers (PR_SET_IO_FLUSHER), and ext4 on a loop device on the volume
 * survives memory pressure: the writer dirties twice its cgroup's memory limit through ext4, so reclaim in
 * the cgroup has to write ext4 pages back through the loop device, which the server serves. Each run must
 * end (hard timeout) without an OOM kill, with the data verified after a remount.
 *
 * <p>Two placements. The writer alone in the cgroup runs everywhere. The container case, server and writer
 * in one cgroup, is the one that deadlocks without the flag (seen on this project's CI machine: the
 * server's io-wq workers, writing the image through the page cache, entered the cgroup's reclaim and waited
 * for the writeback of loop pages that only they could complete; fio, the loop worker and every sync on
 * the machine hung with them). It runs only where the server may set the flag (CAP_SYS_RESOURCE; root in
 * some containers lacks it, and the server then says so in one warning, which is checked instead).
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IoFlusherVolumeTest {
    private static final long PF_MEMALLOC_NOIO = 0x80000, PF_LOCAL_THROTTLE = 0x100000;
    private static final long LIMIT = 256L << 20;
    private static final Duration WORK = Duration.ofSeconds(240);

    @TempDir
    Path dir;   // on the machine's disk: an image on tmpfs would be unreclaimable memory of the cgroup

    @org.junit.jupiter.api.AfterEach
    void unmountLeftovers() throws Exception {
        Cli.unmountAllUnder(dir);
    }

    /** Whether this process may set PR_SET_IO_FLUSHER: CAP_SYS_RESOURCE (bit 24) in CapEff. */
    static boolean mayFlush() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("CapEff:")) return (Long.parseUnsignedLong(line.substring(7).trim(), 16) & (1L << 24)) != 0;
        }
        return false;
    }

    @ParameterizedTest(name = "transport {0}, server in the cgroup: {1}")
    @CsvSource({"uring,false", "dev,false", "uring,true", "dev,true"})
    void ext4OnALoopDeviceOnAVolumeInAMemoryLimitedCgroup(String transport, boolean serverInCgroup) throws Exception {
        assumeTrue(Procs.run("sh", "-c", "command -v fio && command -v mkfs.ext4 && command -v losetup").exit() == 0, "fio, e2fsprogs, losetup");
        boolean flushers = mayFlush();
        assumeTrue(flushers || !serverInCgroup, "a server in the writer's cgroup deadlocks without PR_SET_IO_FLUSHER, "
                + "which needs CAP_SYS_RESOURCE (this root lacks it)");
        Path img = dir.resolve("disk.img"), mnt = Files.createDirectory(dir.resolve("v")), ext4 = Files.createDirectory(dir.resolve("e"));
        String loop = null;
        long connection = -1;
        boolean done = false;
        try (MemoryCgroup cg = MemoryCgroup.create("ringfuse-ioflusher-" + ProcessHandle.current().pid(), LIMIT)) {
            assumeTrue(cg != null, "a memory cgroup");
            List<String> server = new ArrayList<>(serverInCgroup ? cg.enter() : List.of());
            server.addAll(Cli.cmd("mount", "volume", img.toString(), mnt.toString(), "--create", "--size", "1G",
                    "--passthrough", "off", "--transport", transport));
            try (Procs.Child s = Cli.serve(server)) {
                long pid = s.process().pid();
                long dev = (Long) Files.getAttribute(mnt, "unix:dev");
                connection = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
                loop = sh("losetup --find --show --direct-io=on " + mnt.resolve("volume"));
                sh("mkfs.ext4 -q -F -E nodiscard " + loop + " && mount " + loop + " " + ext4);
                List<String> fio = new ArrayList<>(cg.enter());
                fio.addAll(fioJob(ext4, false));
                Procs.Result w = Procs.run(WORK, fio);
                assertEquals(0, w.exit(), "the write load ended and verified what it read back: " + w.out() + w.err());
                Map<String, Long> flags = threadFlags(pid);
                assertEquals(0, cg.oomKills(), "no OOM kill in the cgroup");
                assertTrue(cg.peak() > LIMIT * 3 / 4, "the load filled the cgroup: peak " + cg.peak());
                List<String> serving = flags.keySet().stream().filter(n -> n.startsWith("ringfuse-dev") || n.startsWith("ringfuse-uring")
                        || n.startsWith("uring-loop") || n.startsWith("iou-wrk")).toList();
                assertTrue(serving.stream().anyMatch(n -> n.startsWith("ringfuse-" + transport)), "transport threads: " + flags.keySet());
                if (flushers) {
                    for (String n : serving) {
                        long f = flags.get(n);
                        assertEquals(PF_MEMALLOC_NOIO | PF_LOCAL_THROTTLE, f & (PF_MEMALLOC_NOIO | PF_LOCAL_THROTTLE),
                                n + " is an I/O flusher (flags " + Long.toHexString(f) + ")");
                    }
                } else {
                    assertTrue(Files.readString(s.err().toPath()).contains("cannot mark the serving threads as I/O flushers (EPERM: "
                            + "PR_SET_IO_FLUSHER needs CAP_SYS_RESOURCE"), "the refusal is reported: " + Files.readString(s.err().toPath()));
                }
                // back from the disk, not the page cache: unmount, detach, attach, fsck, verify
                sh("umount " + ext4 + " && losetup -d " + loop);
                loop = sh("losetup --find --show --direct-io=on " + mnt.resolve("volume"));
                sh("fsck.ext4 -fn " + loop + " && mount " + loop + " " + ext4);
                Procs.Result v = Procs.run(WORK, fioJob(ext4, true));
                assertEquals(0, v.exit(), "verified after the remount: " + v.out() + v.err());
                sh("umount " + ext4 + " && losetup -d " + loop);
                loop = null;
                Cli.unmount(mnt, s);
                done = true;
            } finally {
                // a hang leaves the writer, the loop worker and every sync on the machine in D state: aborting
                // the FUSE connection fails the pending requests and frees them all
                if (!done && connection >= 0) {
                    try {
                        Files.writeString(Path.of("/sys/fs/fuse/connections", Long.toString(connection), "abort"), "1");
                    } catch (IOException gone) {
                        // the connection had ended
                    }
                }
                if (loop != null) {
                    Procs.run("umount", "-l", ext4.toString());
                    Procs.run("losetup", "-d", loop);
                }
                if (Cli.mountLine(mnt) != null) Procs.run("umount", "-l", mnt.toString());
            }
        }
    }

    @org.junit.jupiter.api.Test
    void aVolumeServerReExecutesItselfSoThatEveryThreadIsMarked() throws Exception {
        Path img = dir.resolve("small.img"), mnt = Files.createDirectory(dir.resolve("w"));
        // forced: this machine's root may lack CAP_SYS_RESOURCE; the re-execution itself is what is checked
        List<String> cmd = new ArrayList<>(List.of("env", WholeProcessFlusher.FORCE + "=1"));
        cmd.addAll(Cli.cmd("mount", "volume", img.toString(), mnt.toString(), "--create", "--size", "16M"));
        try (Procs.Child s = Cli.serve(cmd)) {
            long pid = s.process().pid();
            String environ = Files.readString(Path.of("/proc", Long.toString(pid), "environ"));
            assertTrue(environ.contains(WholeProcessFlusher.DONE + "=1"), "the server executed itself again, same pid");
            Files.write(mnt.resolve("volume"), new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.WRITE);
            assertEquals(16 << 20, Files.size(mnt.resolve("volume")));
            if (mayFlush()) {
                for (Map.Entry<String, Long> t : threadFlags(pid).entrySet()) {
                    assertEquals(PF_MEMALLOC_NOIO, t.getValue() & PF_MEMALLOC_NOIO, t.getKey() + " (GC, JIT and all) is marked");
                }
            }
            Cli.unmount(mnt, s);
        }
        byte[] head = new byte[3];
        try (var in = Files.newInputStream(img)) {
            assertEquals(3, in.read(head));
        }
        assertEquals(List.of((byte) 1, (byte) 2, (byte) 3), List.of(head[0], head[1], head[2]));
    }

    /** 512 MiB written through the page cache in 1 MiB blocks with crc32c headers, then read back and checked. */
    private static List<String> fioJob(Path ext4, boolean verifyOnly) {
        List<String> l = new ArrayList<>(List.of("fio", "--name=load", "--filename=" + ext4.resolve("data"), "--size=512M",
                "--bs=1M", "--rw=write", "--ioengine=psync", "--verify=crc32c", "--verify_fatal=1",
                "--verify_state_save=0", "--end_fsync=1"));
        l.add(verifyOnly ? "--verify_only=1" : "--do_verify=1");
        return l;
    }

    private static String sh(String script) throws IOException, InterruptedException {
        Procs.Result r = Procs.run(WORK, List.of("sh", "-c", script));
        assertEquals(0, r.exit(), script + ": " + r.err());
        return r.out().trim();
    }

    /** Thread name to its task flags (/proc/PID/task/TID/stat, field 9). */
    private static Map<String, Long> threadFlags(long pid) throws IOException {
        Map<String, Long> m = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path t : tasks.toList()) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    m.put(comm + "#" + t.getFileName(), Long.parseLong(f[6]));
                } catch (IOException gone) {
                    // the thread ended
                }
            }
        }
        return m;
    }
}
