package dev.ringfuse.stats;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.function.Supplier;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * The statistics endpoint of one mount: a unix-domain socket that writes one snapshot to whoever connects
 * and closes. Where it lives follows from the mount alone, so a reader needs only the mount point:
 * {@code /run/ringfuse/stats/<major>-<minor>.sock} for mounts served by root, else
 * {@code /run/user/<uid>/ringfuse/stats/...} (or {@code /tmp/ringfuse-<uid>/stats/...} without a runtime
 * directory),
 * with the device number and the owner's uid ({@code user_id=}) as /proc/self/mountinfo shows them.
 *
 * <p>Access: the directory is 0700 and the socket 0600, both owned by the serving user, and each peer's
 * credentials (SO_PEERCRED) are checked again: the mount's owner and root read it, nobody else.
 */
public final class StatsSocket implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.ringfuse.stats");

    private final Path path;
    private final ServerSocketChannel server;
    private final Supplier<String> snapshot;
    private final UserPrincipal owner;
    private volatile boolean closed;

    private StatsSocket(Path path, ServerSocketChannel server, Supplier<String> snapshot, UserPrincipal owner) {
        this.path = path;
        this.server = server;
        this.snapshot = snapshot;
        this.owner = owner;
    }

    /** The directory of the sockets of mounts served by {@code uid}. */
    public static Path directory(int uid) {
        if (uid == 0) return Path.of("/run/ringfuse/stats");
        Path run = Path.of("/run/user/" + uid);
        return (Files.isDirectory(run) ? run.resolve("ringfuse") : Path.of("/tmp/ringfuse-" + uid)).resolve("stats");
    }

    /** The socket of the mount with device {@code major:minor} served by {@code uid}. */
    public static Path socket(int uid, int major, int minor) {
        return directory(uid).resolve(major + "-" + minor + ".sock");
    }

    /** Binds the socket of this mount; {@code snapshot} is called once per reader. */
    public static StatsSocket open(int uid, int major, int minor, Supplier<String> snapshot) throws IOException {
        Path dir = directory(uid);
        // only our own directory is made private: its parent may hold other things of ringfuse's. The parent must
        // be ours and closed to others (in /tmp another user could have put a symlink to a directory of theirs
        // there, then swapped our socket for one of their own)
        Path parent = dir.getParent();
        if (uid != 0 && !Files.exists(parent, java.nio.file.LinkOption.NOFOLLOW_LINKS) && parent.getParent() != null) {
            Files.createDirectories(parent.getParent());
            try {
                Files.createDirectory(parent, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException raced) {
                // checked below
            }
        } else {
            Files.createDirectories(parent);
        }
        String why = unsafe(parent, uid);
        if (why != null) throw new IOException(parent + " " + why + "; statistics socket not created");
        try {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (java.nio.file.FileAlreadyExistsException exists) {
            // made by an earlier mount; owner and mode are checked below
        }
        UserPrincipal me = Files.getOwner(dir);
        if (!Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                || !me.getName().equals(Files.getOwner(Path.of("/proc/self")).getName())) {
            throw new IOException(dir + " is not a directory of this user; statistics socket not created");
        }
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
        Path path = dir.resolve(major + "-" + minor + ".sock");
        Files.deleteIfExists(path); // left by a server that died with this device number
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.bind(UnixDomainSocketAddress.of(path));
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rw-------"));
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        StatsSocket s = new StatsSocket(path, ch, snapshot, me);
        Thread.ofPlatform().daemon().name("ringfuse-stats-" + major + "-" + minor).start(s::serve);
        return s;
    }

    public Path path() { return path; }

    private void serve() {
        while (!closed) {
            try (SocketChannel c = server.accept()) {
                UnixDomainPrincipal peer = c.getOption(ExtendedSocketOptions.SO_PEERCRED);
                if (!peer.user().equals(owner) && !peer.user().getName().equals("root")) {
                    LOG.log(System.Logger.Level.DEBUG, "statistics refused to " + peer.user().getName());
                    continue;
                }
                ByteBuffer b = ByteBuffer.wrap(snapshot.get().getBytes(StandardCharsets.UTF_8));
                while (b.hasRemaining()) c.write(b);
            } catch (IOException | RuntimeException e) {
                if (!closed) LOG.log(System.Logger.Level.DEBUG, "statistics reader: " + e);
            }
        }
    }

    /** Stops serving and removes the socket. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            server.close();
            Files.deleteIfExists(path);
        } catch (IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "closing " + path + ": " + e);
        }
    }

    /**
     * The socket of the FUSE mount at {@code mountpoint}, from /proc/self/mountinfo (device number and the
     * {@code user_id=} of the mount's owner).
     *
     * @throws IOException saying why: not a mount point, not a FUSE mount
     */
    public static Path locate(Path mountpoint) throws IOException {
        String want = mountpoint.toAbsolutePath().normalize().toString();
        String[] found = null;
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            String[] f = line.split(" ");
            if (f.length >= 10 && unescape(f[4]).equals(want)) found = f;
        }
        if (found == null) throw new IOException(want + " is not a mount point");
        int dash = java.util.Arrays.asList(found).indexOf("-");
        String type = found[dash + 1];
        if (!type.equals("fuse") && !type.startsWith("fuse.")) throw new IOException(want + " is not a FUSE mount (" + type + ")");
        int uid = -1;
        for (String o : found[dash + 3].split(",")) {
            if (o.startsWith("user_id=")) uid = Integer.parseInt(o.substring(8));
        }
        if (uid < 0) throw new IOException(want + ": no user_id in its mount options");
        String[] dev = found[2].split(":");
        return socket(uid, Integer.parseInt(dev[0]), Integer.parseInt(dev[1]));
    }

    private static String unescape(String s) {
        if (s.indexOf('\\') < 0) return s;
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length()) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    /**
     * Why {@code dir} cannot hold the statistics of {@code uid}'s mounts safely, or null: it must be a directory
     * (not a symlink) of that user or root that nobody else may write to.
     */
    static String unsafe(Path dir, int uid) throws IOException {
        var a = Files.readAttributes(dir, java.nio.file.attribute.PosixFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory()) return "is not a directory (a symlink?)";
        int owner = (Integer) Files.getAttribute(dir, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
        if (owner != uid && owner != 0) return "belongs to uid " + owner + ", not " + uid;
        var p = a.permissions();
        if (p.contains(java.nio.file.attribute.PosixFilePermission.GROUP_WRITE)
                || p.contains(java.nio.file.attribute.PosixFilePermission.OTHERS_WRITE)) {
            return "may be written by others (" + PosixFilePermissions.toString(p) + ")";
        }
        return null;
    }

    /**
     * The uid whose mounts' sockets {@code socket} would be among, from where {@link #directory} puts them; -1 for a
     * socket elsewhere.
     */
    static int expectedOwner(Path socket) {
        Path dir = socket.toAbsolutePath().normalize().getParent();
        if (dir == null || dir.getParent() == null) return -1;
        if (dir.equals(directory(0))) return 0;
        String parent = dir.getParent().toString();
        try {
            if (parent.startsWith("/tmp/ringfuse-")) return Integer.parseInt(parent.substring("/tmp/ringfuse-".length()));
            if (parent.startsWith("/run/user/") && parent.endsWith("/ringfuse")) {
                return Integer.parseInt(parent.substring("/run/user/".length(), parent.length() - "/ringfuse".length()));
            }
        } catch (NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /**
     * Refuses a socket of uid N's that another user could have put there: the socket, its directory and that
     * directory's parent must be N's (or root's) and closed to others, so that nobody else answers in the server's
     * place (in /tmp, a symlink made by another user beforehand).
     */
    private static void checkPlace(Path socket) throws IOException {
        int uid = expectedOwner(socket);
        if (uid < 0) return;
        Path dir = socket.toAbsolutePath().normalize().getParent();
        for (Path d : new Path[] {dir.getParent(), dir}) {
            if (!Files.exists(d, java.nio.file.LinkOption.NOFOLLOW_LINKS)) continue; // connect will say
            String why = unsafe(d, uid);
            if (why != null) throw new IOException(d + " " + why + ": not reading statistics from " + socket);
        }
        if (!Files.exists(socket, java.nio.file.LinkOption.NOFOLLOW_LINKS)) return;
        int owner = (Integer) Files.getAttribute(socket, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS);
        if (owner != uid && owner != 0) throw new IOException(socket + " belongs to uid " + owner + ", not " + uid);
    }

    /** Connects to {@code socket} and returns the snapshot it writes. */
    public static String read(Path socket) throws IOException {
        checkPlace(socket);
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            ByteBuffer b = ByteBuffer.allocate(1 << 16);
            StringBuilder out = new StringBuilder();
            while (c.read(b) >= 0) {
                b.flip();
                out.append(StandardCharsets.UTF_8.decode(b));
                b.clear();
            }
            return out.toString();
        }
    }
}
