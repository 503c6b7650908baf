package dev.ringfuse.sqlfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Space held back on the SQLite file's disk: with a full disk even a delete needs room (SQLite writes the
 * freed pages' bookkeeping to the WAL), so a file that only frees space gives this room up when the
 * database reports the disk full, and takes it again once there is room to spare (four times its size). {@link #SIZE} bytes beside the
 * database ({@code FILE-ringfuse.reserve}).
 */
final class Reserve {
    static final int SIZE = 1 << 20;

    private final Path file;

    Reserve(Path db) {
        this.file = db.resolveSibling(db.getFileName() + "-ringfuse.reserve");
    }

    /** Takes the reserve if it is not held; false if there is no room for it. */
    synchronized boolean take() {
        try {
            if (Files.exists(file) && Files.size(file) == SIZE) return true;
            // taken again only with room to spare, or the first write after a delete would fail again
            if (Files.getFileStore(file.getParent()).getUsableSpace() < 4L * SIZE) return false;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                ByteBuffer zeros = ByteBuffer.allocate(64 * 1024);
                for (long done = 0; done < SIZE; done += zeros.capacity()) {
                    zeros.clear();
                    ch.write(zeros, done);
                }
                ch.force(true);
            }
            return true;
        } catch (IOException e) {
            release();
            return false;
        }
    }

    /** Gives the room back to the database; true if there was any. */
    synchronized boolean release() {
        try {
            return Files.deleteIfExists(file);
        } catch (IOException e) {
            return false;
        }
    }
}
