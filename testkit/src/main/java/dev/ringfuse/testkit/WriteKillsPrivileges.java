package dev.ringfuse.testkit;

import dev.ringfuse.testkit.internal.Procs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Issue 16 point 2 for any mounted filesystem: what an unprivileged writer (uid and gid 65534, no
 * supplementary groups) leaves of setuid/setgid on a root-owned file, by every write path — buffered,
 * O_DIRECT, a shared mapping, libaio O_DIRECT, io_uring buffered and O_DIRECT — compared with tmpfs on the
 * same kernel. The mode is read by {@code stat} right after the write, so a filesystem that changed the mode
 * but left the kernel's cached attributes alone fails too.
 *
 * <p>Cases: modes 6777, 6767, 4777 and 2767 with the writer outside the file's group, and 2767 with the
 * writer in it (the file's group is 65534): setgid without group-execute goes for an outsider and stays for
 * a member, so a filesystem that always or never clears it shows.
 */
public final class WriteKillsPrivileges {
    /** The writer: nobody/nogroup on Debian. */
    public static final int NOBODY = 65534;
    /** Every way of writing, in the order of the result's keys. */
    public static final List<String> WAYS = List.of("buffered", "odirect", "mmap", "aio-direct", "uring", "uring-direct");
    /** Every case: the file's mode, and " member" when the file's group is the writer's. */
    public static final List<String> CASES = List.of("6777", "6767", "4777", "2767", "2767 member");

    private static Map<String, String> tmpfs;

    private WriteKillsPrivileges() {}

    /** The fio and setpriv the check needs; a test without them is skipped, not failed. */
    public static void assumeTools() {
        assumeTrue(Procs.onPath("fio"), "fio is not installed (apt-get install fio)");
        assumeTrue(Procs.onPath("setpriv"), "setpriv is not installed (util-linux)");
    }

    /** Every way × case on new 64 KiB files in {@code dir}: "way case" → {@code stat -c %A} after the write. */
    public static Map<String, String> inDirectory(Path dir) throws IOException, InterruptedException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Map<String, String> m = new LinkedHashMap<>();
        for (String way : WAYS) {
            for (String c : CASES) {
                Path f = dir.resolve("kill-" + way + "-" + c.replace(' ', '-'));
                Files.write(f, new byte[65536]);
                m.put(way + " " + c, writeAs(f, way, c));
            }
        }
        return m;
    }

    /** Every way × case on one existing file of at least 64 KiB (a volume's), whose mode and group it changes. */
    public static Map<String, String> onFile(Path file) throws IOException, InterruptedException {
        if (Files.size(file) < 65536) throw new IllegalArgumentException(file + " is smaller than 64 KiB");
        Map<String, String> m = new LinkedHashMap<>();
        for (String way : WAYS) for (String c : CASES) m.put(way + " " + c, writeAs(file, way, c));
        return m;
    }

    /** The same on tmpfs (/dev/shm), once per JVM: the reference. */
    public static synchronized Map<String, String> tmpfs() throws IOException, InterruptedException {
        if (tmpfs == null) {
            Path shm = Path.of("/dev/shm");
            assumeTrue(Files.isDirectory(shm), "no tmpfs at /dev/shm for the reference");
            Path dir = Files.createTempDirectory(shm, "ringfuse-kill-ref");
            try {
                tmpfs = inDirectory(dir);
            } finally {
                Procs.run("rm", "-rf", dir.toString());
            }
        }
        return tmpfs;
    }

    /** Asserts that {@code actual} is tmpfs's answer except for the documented {@code differences}. */
    public static void assertLikeTmpfs(Map<String, String> actual, Map<String, String> differences)
            throws IOException, InterruptedException {
        Map<String, String> expected = new LinkedHashMap<>(tmpfs());
        expected.putAll(differences);
        assertEquals(expected, actual);
    }

    /**
     * An unprivileged write to a file that carries a file capability ({@code security.capability}, set by root
     * on a new 0666 file in {@code dir}): what the writer's exit status, the capability and the content are
     * afterwards. tmpfs: "exit 0, capability dropped, hi+more". The kernel drops the capability itself before
     * the write (cap_inode_killpriv: a REMOVEXATTR the filesystem gets with the writer's credentials, which
     * an explicit removal without CAP_SETFCAP never produces).
     */
    public static String capabilityAfterWrite(Path dir) throws IOException, InterruptedException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
        Path f = dir.resolve("cap-" + System.nanoTime());
        Files.writeString(f, "hi");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        // VFS_CAP_REVISION_2 with the effective flag, permitted CAP_NET_RAW (bit 13)
        check(Procs.run(Procs.python(), "-c", "import os, struct; os.setxattr('" + f + "', 'security.capability', "
                + "struct.pack('<IIIII', 0x02000001, 1 << 13, 0, 0, 0))"));
        Procs.Result w = Procs.run(Duration.ofSeconds(60), Procs.asUser(NOBODY, NOBODY,
                List.of("sh", "-c", "printf +more >> '" + f + "'")));
        Procs.Result cap = Procs.run(Procs.python(), "-c", "import os\ntry:\n  os.getxattr('" + f
                + "', 'security.capability'); print('kept')\nexcept OSError as e:\n  print('dropped' if e.errno == 61 else e)");
        return "exit " + w.exit() + ", capability " + cap.out().trim() + ", " + Files.readString(f);
    }

    /**
     * chown(-1, -1) by {@link #NOBODY}, who may not write it, of root's 4755 file carrying a file capability in
     * {@code dir}: the exit status, whether the capability is still there, and the mode. tmpfs: refused, kept,
     * 4755. (Under HANDLE_KILLPRIV_V2 the kernel sends its capability kill before any owner check.)
     */
    public static String capabilityAfterForeignChown(Path dir) throws IOException, InterruptedException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path f = dir.resolve("cap-chown-" + System.nanoTime());
        Files.writeString(f, "hi");
        check(Procs.run("chmod", "4755", f.toString()));
        check(Procs.run(Procs.python(), "-c", "import os, struct; os.setxattr('" + f + "', 'security.capability', "
                + "struct.pack('<IIIII', 0x02000001, 1 << 13, 0, 0, 0))"));
        Procs.Result c = Procs.run(Duration.ofSeconds(60), Procs.asUser(NOBODY, NOBODY,
                List.of(Procs.python(), "-c", "import os; os.chown('" + f + "', -1, -1)")));
        Procs.Result cap = Procs.run(Procs.python(), "-c", "import os\ntry:\n  os.getxattr('" + f
                + "', 'security.capability'); print('kept')\nexcept OSError as e:\n  print('dropped' if e.errno == 61 else e)");
        return "exit " + (c.exit() == 0 ? "0" : "non-zero") + ", capability " + cap.out().trim() + ", mode "
                + check(Procs.run("stat", "-c", "%a", f.toString())).out().trim();
    }

    private static String tmpfsCapabilities;

    /**
     * {@link #capabilityAfterWrite} and {@link #capabilityAfterForeignChown} on {@code dir} give what they give on
     * tmpfs (/dev/shm, once per JVM): an unprivileged writer drops a file capability, a stranger's chown(-1, -1)
     * of a set-ID file does not.
     */
    public static void assertCapabilitiesLikeTmpfs(Path dir) throws IOException, InterruptedException {
        synchronized (WriteKillsPrivileges.class) {
            if (tmpfsCapabilities == null) {
                Path shm = Files.createTempDirectory(Path.of("/dev/shm"), "ringfuse-cap-ref");
                try {
                    tmpfsCapabilities = capabilityAfterWrite(shm) + " / " + capabilityAfterForeignChown(shm);
                    // what this kernel's tmpfs gave when the check was written: a reference that changed is news
                    assertEquals("exit 0, capability dropped, hi+more / exit non-zero, capability kept, mode 4755",
                            tmpfsCapabilities, "tmpfs");
                } finally {
                    Procs.run("rm", "-rf", shm.toString());
                }
            }
        }
        assertEquals(tmpfsCapabilities, capabilityAfterWrite(dir) + " / " + capabilityAfterForeignChown(dir), dir.toString());
    }

    /** Writes 4 KiB at offset 0 of {@code f} as {@link #NOBODY} by {@code way} after setting it up for {@code c}. */
    static String writeAs(Path f, String way, String c) throws IOException, InterruptedException {
        String mode = c.substring(0, 4);
        // chgrp before chmod: a chown clears setuid, even root's
        check(Procs.run("chgrp", c.endsWith("member") ? String.valueOf(NOBODY) : "0", f.toString()));
        check(Procs.run("chmod", mode, f.toString()));
        String py = Procs.python();
        List<String> cmd = switch (way) {
            case "buffered" -> List.of(py, "-c", "import os; fd = os.open('" + f + "', os.O_WRONLY); os.pwrite(fd, b'x' * 4096, 0)");
            case "odirect" -> List.of(py, "-c", "import os, mmap; fd = os.open('" + f + "', os.O_WRONLY | os.O_DIRECT); "
                    + "b = mmap.mmap(-1, 4096); b[:] = b'y' * 4096; os.pwritev(fd, [b], 0)");
            case "mmap" -> List.of(py, "-c", "import os, mmap; fd = os.open('" + f + "', os.O_RDWR); m = mmap.mmap(fd, 65536); "
                    + "m[0:10] = b'z' * 10; m.flush(); m.close()");
            default -> List.of("fio", "--name=kill", "--filename=" + f, "--rw=write", "--bs=4k", "--size=64k", "--io_size=4k",
                    "--ioengine=" + (way.startsWith("aio") ? "libaio" : "io_uring"), "--direct=" + (way.endsWith("direct") ? 1 : 0),
                    "--minimal");
        };
        Procs.Result r = Procs.run(Duration.ofSeconds(60), Procs.asUser(NOBODY, NOBODY, cmd));
        assertEquals(0, r.exit(), way + " " + c + ": " + r.out() + r.err());
        return check(Procs.run("stat", "-c", "%A", f.toString())).out().trim();
    }

    private static Procs.Result check(Procs.Result r) {
        if (r.exit() != 0) throw new AssertionError("exit " + r.exit() + ": " + r.out() + r.err());
        return r;
    }
}
