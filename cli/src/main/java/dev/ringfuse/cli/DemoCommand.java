package dev.ringfuse.cli;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.memfs.MemFs;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ringfuse demo}: mounts memfs in a temporary directory, exercises it with real system calls
 * (create a tree, write and verify data, list, rename, remove) and prints what it did with throughput.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Mount the in-memory filesystem in a temporary directory and show it working.")
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--dirs", defaultValue = "20", description = "Directories to create (default: ${DEFAULT-VALUE})")
    int dirs;

    @Option(names = "--files", defaultValue = "50", description = "Files per directory (default: ${DEFAULT-VALUE})")
    int files;

    @Option(names = "--megabytes", defaultValue = "256", description = "Size of the big file in MiB (default: ${DEFAULT-VALUE})")
    int megabytes;

    @Option(names = "--transport", defaultValue = "auto", description = "auto, dev or uring (default: ${DEFAULT-VALUE})")
    TransportKind transport;

    private final PrintStream out = System.out;
    /** A progress line rewrites itself with \r, which only makes sense on a terminal. */
    private final boolean tty = System.console() != null && System.console().isTerminal();

    @Override
    public Integer call() throws Exception {
        Path dir = Files.createTempDirectory("ringfuse-demo-");
        try (Mount m = Fuse.mount(dir, new MemFs(), MountOptions.defaults().withTransport(transport))) {
            out.println("ringfuse demo: memfs mounted at " + m.describe());
            run(m.mountpoint());
        } finally {
            Files.deleteIfExists(dir);
        }
        out.println("unmounted; the demo passed.");
        return 0;
    }

    private void run(Path root) throws Exception {
        int total = dirs * files;
        long t0 = System.nanoTime();
        for (int d = 0; d < dirs; d++) {
            Path sub = Files.createDirectory(root.resolve("dir-" + d));
            for (int f = 0; f < files; f++) {
                Files.writeString(sub.resolve("file-" + f + ".txt"), "file " + f + " in directory " + d + "\n");
            }
            progress("creating", (d + 1) * files, total);
        }
        long created = System.nanoTime() - t0;
        endProgress();
        report("created " + dirs + " directories and " + total + " files", total, created);

        long t1 = System.nanoTime();
        int checked = 0;
        for (int d = 0; d < dirs; d++) {
            for (int f = 0; f < files; f++) {
                String s = Files.readString(root.resolve("dir-" + d).resolve("file-" + f + ".txt"));
                if (!s.equals("file " + f + " in directory " + d + "\n")) throw new IOException("content mismatch in dir-" + d + "/file-" + f);
                checked++;
            }
            progress("verifying", checked, total);
        }
        endProgress();
        report("read back and verified " + checked + " files", checked, System.nanoTime() - t1);

        bigFile(root.resolve("big.bin"));

        long t2 = System.nanoTime();
        long listed;
        try (Stream<Path> all = Files.walk(root)) {
            listed = all.count() - 1;
        }
        report("listed the tree: " + listed + " entries", listed, System.nanoTime() - t2);

        long t3 = System.nanoTime();
        for (int d = 0; d < dirs; d++) Files.move(root.resolve("dir-" + d), root.resolve("renamed-" + d));
        report("renamed " + dirs + " directories", dirs, System.nanoTime() - t3);

        FileStore store = Files.getFileStore(root);
        out.printf(Locale.ROOT, "  statfs: %s, %d MiB total, %d MiB free%n", store.type(),
                store.getTotalSpace() >> 20, store.getUsableSpace() >> 20);

        long t4 = System.nanoTime();
        int removed = 0;
        for (int d = 0; d < dirs; d++) {
            Path sub = root.resolve("renamed-" + d);
            for (int f = 0; f < files; f++) {
                Files.delete(sub.resolve("file-" + f + ".txt"));
                removed++;
            }
            Files.delete(sub);
            progress("removing", removed, total);
        }
        Files.delete(root.resolve("big.bin"));
        endProgress();
        report("removed everything", removed + dirs + 1, System.nanoTime() - t4);
        try (Stream<Path> left = Files.list(root)) {
            if (left.findAny().isPresent()) throw new IOException("the root is not empty after removal");
        }
    }

    private void bigFile(Path file) throws Exception {
        int chunk = 1 << 20;
        ByteBuffer buf = ByteBuffer.allocateDirect(chunk);
        SplittableRandom random = new SplittableRandom(42);
        MessageDigest written = MessageDigest.getInstance("SHA-256");
        long t0 = System.nanoTime();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            byte[] block = new byte[chunk];
            for (int i = 0; i < megabytes; i++) {
                random.nextBytes(block);
                written.update(block);
                buf.clear().put(block).flip();
                while (buf.hasRemaining()) ch.write(buf);
                progress("writing big.bin", i + 1, megabytes);
            }
            ch.force(true);
        }
        long wrote = System.nanoTime() - t0;
        endProgress();
        out.printf(Locale.ROOT, "  wrote %d MiB to big.bin in %.2f s: %.0f MiB/s%n", megabytes, wrote / 1e9, megabytes / (wrote / 1e9));

        MessageDigest read = MessageDigest.getInstance("SHA-256");
        long t1 = System.nanoTime();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            byte[] block = new byte[chunk];
            int i = 0;
            while (true) {
                buf.clear();
                int n = ch.read(buf);
                if (n < 0) break;
                buf.flip().get(block, 0, n);
                read.update(block, 0, n);
                if ((++i & 15) == 0) progress("reading big.bin", Math.min(i, megabytes), megabytes);
            }
        }
        long took = System.nanoTime() - t1;
        endProgress();
        byte[] a = written.digest(), b = read.digest();
        if (!MessageDigest.isEqual(a, b)) throw new IOException("big.bin read back differs from what was written");
        out.printf(Locale.ROOT, "  read back %d MiB in %.2f s: %.0f MiB/s, SHA-256 verified (%s...)%n", megabytes,
                took / 1e9, megabytes / (took / 1e9), HexFormat.of().formatHex(a, 0, 8));
    }

    private void report(String what, long ops, long nanos) {
        out.printf(Locale.ROOT, "  %s in %.2f s: %.0f ops/s%n", what, nanos / 1e9, ops / (nanos / 1e9));
    }

    private void progress(String what, long done, long total) {
        if (!tty) return;
        out.printf(Locale.ROOT, "\r  %-16s %6d/%d", what, done, total);
        out.flush();
    }

    private void endProgress() {
        if (!tty) return;
        out.print("\r\033[K");
        out.flush();
    }
}
