package dev.ringfuse.pool.fs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Everything a mounted tree shows through system calls, by relative path, for comparing two trees: type, mode,
 * owners, link count, size, the four times, symlink targets, contents (SHA-256), user xattrs, the data/hole
 * map of regular files (SEEK_DATA/SEEK_HOLE, from python3) and which names are hard links of one another (by
 * inode number within the tree: the numbers themselves may differ between trees).
 */
record TreeImage(Map<String, String> entries, List<List<String>> linkGroups) {
    private static final String[] ATTRS = {"mode", "uid", "gid", "nlink", "size", "rdev", "lastModifiedTime", "lastAccessTime",
        "ctime", "creationTime"};

    /** Reads the tree under {@code root}: metadata of every entry first, then contents (reads change nothing). */
    static TreeImage of(Path root) throws Exception {
        List<Path> all;
        try (Stream<Path> s = Files.walk(root)) {
            all = s.sorted().toList();
        }
        Map<String, String> out = new TreeMap<>();
        Map<Object, List<String>> byIno = new TreeMap<>();
        List<String> files = new ArrayList<>();
        for (Path p : all) {
            String rel = root.relativize(p).toString();
            Map<String, Object> a = Files.readAttributes(p, "unix:*", LinkOption.NOFOLLOW_LINKS);
            StringBuilder b = new StringBuilder();
            for (String k : ATTRS) b.append(k).append('=').append(a.get(k)).append(' ');
            out.put(rel, b.toString());
            if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                files.add(rel);
                byIno.computeIfAbsent(a.get("ino"), k -> new ArrayList<>()).add(rel);
            }
        }
        for (Path p : all) {
            String rel = root.relativize(p).toString();
            StringBuilder b = new StringBuilder(out.get(rel));
            if (Files.isSymbolicLink(p)) b.append("-> ").append(Files.readSymbolicLink(p));
            else if (Files.isRegularFile(p)) b.append("sha256=").append(sha(p));
            if (!Files.isSymbolicLink(p)) {
                UserDefinedFileAttributeView x = Files.getFileAttributeView(p, UserDefinedFileAttributeView.class);
                for (String name : new java.util.TreeSet<>(x.list())) {
                    ByteBuffer v = ByteBuffer.allocate(x.size(name));
                    x.read(name, v);
                    b.append(" xattr ").append(name).append('=').append(HexFormat.of().formatHex(v.array(), 0, v.position()));
                }
            }
            out.put(rel, b.toString());
        }
        List<String> holes = holes(root, files);
        for (int i = 0; i < files.size(); i++) out.put(files.get(i), out.get(files.get(i)) + " data=" + holes.get(i));
        List<List<String>> groups = new ArrayList<>();
        for (List<String> g : byIno.values()) if (g.size() > 1) groups.add(g);
        groups.sort(java.util.Comparator.comparing(List::getFirst));
        return new TreeImage(out, groups);
    }

    private static String sha(Path p) throws Exception {
        MessageDigest d = MessageDigest.getInstance("SHA-256");
        try (var in = Files.newInputStream(p)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) >= 0; ) d.update(buf, 0, n);
        }
        return HexFormat.of().formatHex(d.digest());
    }

    /** The data segments [start, end) of each file by SEEK_DATA/SEEK_HOLE, one line per file. */
    private static List<String> holes(Path root, List<String> files) throws IOException, InterruptedException {
        if (files.isEmpty()) return List.of();
        String script = """
                import os, sys
                for p in sys.argv[1:]:
                    fd = os.open(p, os.O_RDONLY)
                    size, off, segs = os.fstat(fd).st_size, 0, []
                    while off < size:
                        try:
                            d = os.lseek(fd, off, os.SEEK_DATA)
                        except OSError:
                            break
                        h = os.lseek(fd, d, os.SEEK_HOLE)
                        segs.append("%d-%d" % (d, h))
                        off = h
                    os.close(fd)
                    print(",".join(segs))
                """;
        List<String> cmd = new ArrayList<>(List.of("python3", "-c", script));
        cmd.addAll(files);
        Process pr = new ProcessBuilder(cmd).directory(root.toFile()).redirectErrorStream(true).start();
        String got = new String(pr.getInputStream().readAllBytes());
        if (!pr.waitFor(60, TimeUnit.SECONDS) || pr.exitValue() != 0) throw new IOException("SEEK_HOLE walk failed: " + got);
        List<String> lines = got.lines().toList();
        if (lines.size() != files.size()) throw new IOException("SEEK_HOLE walk: " + got);
        return lines;
    }
}
