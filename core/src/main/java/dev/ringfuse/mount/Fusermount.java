package dev.ringfuse.mount;

import dev.ringfuse.MountException;
import dev.ringfuse.sys.ErrnoException;
import dev.ringfuse.sys.Libc;
import dev.ringfuse.sys.Msghdr;
import java.io.File;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The fusermount3 protocol: the setuid helper mounts for an unprivileged user and sends the /dev/fuse
 * descriptor back as SCM_RIGHTS over a socket it finds in {@code _FUSE_COMMFD}. ProcessBuilder closes every
 * descriptor above 2 in the child, so the helper is spawned with posix_spawnp and a dup2 file action.
 */
final class Fusermount {
    private Fusermount() {}

    /** The helper's path: fusermount3, else fusermount, from PATH and the usual places. */
    static String find() throws MountException {
        List<String> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) dirs.addAll(List.of(path.split(File.pathSeparator)));
        dirs.addAll(List.of("/usr/bin", "/bin", "/usr/local/bin", "/sbin", "/usr/sbin"));
        for (String name : List.of("fusermount3", "fusermount")) {
            for (String d : dirs) {
                Path p = Path.of(d, name);
                if (Files.isExecutable(p)) return p.toString();
            }
        }
        throw new MountException("fusermount3 not found: install it (apt-get install fuse3) or mount as root", 2);
    }

    static int mount(Path mnt, String options) throws MountException {
        String helper = find();
        int[] sv;
        try {
            sv = Libc.socketpair(Libc.AF_UNIX, Libc.SOCK_STREAM | Libc.SOCK_CLOEXEC);
        } catch (ErrnoException e) {
            throw new MountException("socketpair for fusermount3: " + e.getMessage(), e.errno());
        }
        int pid;
        try {
            String[] argv = {helper, "-o", options, "--", mnt.toString()};
            pid = Libc.spawnp(argv, environment(), sv[1], 3);
        } catch (ErrnoException e) {
            Libc.close(sv[0]);
            Libc.close(sv[1]);
            throw new MountException("cannot start " + helper + ": " + e.getMessage(), e.errno());
        }
        Libc.close(sv[1]);
        try {
            int fd = receiveFd(sv[0]);
            int status = Libc.waitpid(pid);
            if (fd < 0) {
                throw new MountException(helper + " failed to mount " + mnt + " (exit status " + ((status >> 8) & 0xff)
                        + "; its message is above)", 1);
            }
            Libc.fcntl(fd, Libc.F_SETFD, Libc.FD_CLOEXEC);
            return fd;
        } catch (ErrnoException e) {
            throw new MountException("fusermount3 handshake: " + e.getMessage(), e.errno());
        } finally {
            Libc.close(sv[0]);
        }
    }

    private static String[] environment() {
        List<String> env = new ArrayList<>();
        for (Map.Entry<String, String> e : System.getenv().entrySet()) {
            if (!e.getKey().startsWith("_FUSE_")) env.add(e.getKey() + "=" + e.getValue());
        }
        env.add("_FUSE_COMMFD=3");
        return env.toArray(String[]::new);
    }

    /** One byte plus an SCM_RIGHTS message; returns the descriptor, or -1 if the helper sent none. */
    private static int receiveFd(int sock) throws ErrnoException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment data = a.allocate(1);
            MemorySegment iov = a.allocate(Msghdr.IOVEC);
            iov.set(ValueLayout.ADDRESS, Msghdr.IOV_BASE, data);
            iov.set(ValueLayout.JAVA_LONG, Msghdr.IOV_LEN, 1);
            MemorySegment control = a.allocate(Msghdr.CMSG_SPACE_INT, 8);
            MemorySegment msg = a.allocate(Msghdr.MSGHDR);
            msg.set(ValueLayout.ADDRESS, Msghdr.MSG_IOV, iov);
            msg.set(ValueLayout.JAVA_LONG, Msghdr.MSG_IOVLEN, 1);
            msg.set(ValueLayout.ADDRESS, Msghdr.MSG_CONTROL, control);
            msg.set(ValueLayout.JAVA_LONG, Msghdr.MSG_CONTROLLEN, Msghdr.CMSG_SPACE_INT);
            long n = Libc.recvmsg(sock, msg, 0);
            if (n <= 0) return -1;
            long clen = msg.get(ValueLayout.JAVA_LONG, Msghdr.MSG_CONTROLLEN);
            if (clen < Msghdr.CMSG_DATA + 4
                    || control.get(ValueLayout.JAVA_INT, Msghdr.CMSG_LEVEL) != Msghdr.SOL_SOCKET
                    || control.get(ValueLayout.JAVA_INT, Msghdr.CMSG_TYPE) != Msghdr.SCM_RIGHTS) {
                return -1;
            }
            return control.get(ValueLayout.JAVA_INT, Msghdr.CMSG_DATA);
        }
    }

    /** `fusermount3 -u -z -q -- mnt`. */
    static void unmount(Path mnt) throws MountException {
        String helper = find();
        try {
            Process p = new ProcessBuilder(helper, "-u", "-z", "-q", "--", mnt.toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!Mounter.waitFor(p, 30) || p.exitValue() != 0) {
                if (out.contains("not found in /etc/mtab") || out.contains("not mounted")) return;
                throw new MountException(helper + " -u " + mnt + " failed: " + out, 1);
            }
        } catch (IOException e) {
            throw new MountException("cannot run " + helper + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MountException("interrupted while unmounting " + mnt, e);
        }
    }
}
