package dev.ringfuse.sqlfs;

import dev.ringfuse.testkit.MountedFsKit;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A sqlfs mount served by another JVM ({@link SqlServerMain}, same class path), for tests with several
 * mounts and crashes. {@link #close} stops it with SIGTERM and, whatever happens, leaves nothing mounted.
 */
final class ServerJvm implements AutoCloseable {
    final Path mountpoint;
    final Process process;
    private final StringBuilder output = new StringBuilder();

    private ServerJvm(Path mountpoint, Process process) {
        this.mountpoint = mountpoint;
        this.process = process;
    }

    /** A server with {@code jvmOptions} (system properties) before its main class. */
    static ServerJvm start(String url, String label, int cacheSeconds, String... jvmOptions) throws Exception {
        return start(url, MountedFsKit.newMountpoint(label), cacheSeconds, jvmOptions);
    }

    static ServerJvm start(String url, Path mnt, int cacheSeconds, String... jvmOptions) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp", System.getProperty("java.class.path")));
        cmd.addAll(List.of(jvmOptions));
        cmd.addAll(List.of(SqlServerMain.class.getName(), url, mnt.toString(), Integer.toString(cacheSeconds)));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        ServerJvm s = new ServerJvm(mnt, p);
        CompletableFuture<Boolean> ready = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (s.output) {
                        s.output.append(line).append('\n');
                    }
                    if (line.equals("READY")) ready.complete(true);
                }
            } catch (IOException ignored) {
                // the process ended
            }
            ready.complete(false);
        });
        boolean ok;
        try {
            ok = ready.get(150, TimeUnit.SECONDS); // JVM start and mount: slow on a loaded machine
        } catch (Exception e) {
            ok = false;
        }
        if (!ok) {
            s.close();
            throw new IllegalStateException("server did not mount: " + s.output());
        }
        return s;
    }

    String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    /** SIGKILL: the server dies at once; the dead mount is then taken away. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
        MountedFsKit.forceUnmount(mountpoint);
    }

    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(20, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            MountedFsKit.forceUnmount(mountpoint);
        }
    }
}
