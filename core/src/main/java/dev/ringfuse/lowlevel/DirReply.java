package dev.ringfuse.lowlevel;

/**
 * Answers readdir. Add entries until {@link #add} returns false (the kernel's buffer is full), then
 * {@link #send()}. Sending nothing means the end of the directory.
 */
public interface DirReply extends Reply {
    /**
     * Adds one entry. {@code type} is the file's mode ({@code S_IFDIR}, ...; only the type bits are used);
     * {@code nextOffset} is the cookie the kernel sends back to continue after this entry.
     *
     * Entries are written into the reply buffer at once: add and send on one thread (see the package
     * documentation for replies filled by another thread).
     *
     * @return false if the entry did not fit; it was not added and the reply should be sent
     * @throws IllegalStateException if the request was answered already
     */
    boolean add(String name, long ino, int type, long nextOffset);

    /** Sends the entries added so far. */
    void send();
}
