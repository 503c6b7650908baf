package dev.ringfuse.lowlevel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Answers read. Either hand over the data ({@link #data}), or fill {@link #buffer()} in place and
 * {@link #commit} the length: that writes straight into the transport's reply buffer, with no copy.
 * Fewer bytes than asked for means end of file (unless the file was opened with direct I/O).
 */
public interface ReadReply extends Reply {
    /** Answers with the bytes of {@code data} (copied before this returns). */
    void data(MemorySegment data);

    /** Answers with {@code len} bytes of {@code data} from {@code off}. */
    void data(byte[] data, int off, int len);

    /** Answers with the remaining bytes of {@code data}. */
    void data(ByteBuffer data);

    /**
     * The reply buffer, at least as large as the request's size; valid until {@link #commit} (or an error
     * reply). Fill it on the thread that commits; taken by another thread while the callback runs, only
     * that thread can answer (see the package documentation).
     *
     * @throws IllegalStateException if the request was answered already
     */
    MemorySegment buffer();

    /** Answers with the first {@code length} bytes of {@link #buffer()}. */
    void commit(int length);
}
