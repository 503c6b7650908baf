package dev.ringfuse.sqlfs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Scratch databases for tests, removed when the JVM exits. */
final class TestDbs {
    private TestDbs() {}

    /** A path for a new SQLite file in a fresh directory (the file itself does not exist yet). */
    static Path newSqliteFile() {
        try {
            Path dir = Files.createTempDirectory("sqlfs-test");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
            return dir.resolve("fs.db");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void deleteTree(Path dir) {
        try {
            new ProcessBuilder("rm", "-rf", dir.toString()).inheritIO().start().waitFor();
        } catch (IOException | InterruptedException ignored) {
            // best effort at exit
        }
    }
}
