package dev.ringfuse.pool.format;

/** On-disk bytes that are not a valid structure of this format (bad magic, checksum, version, bounds). */
public class FormatException extends java.io.IOException {
    public FormatException(String message) {
        super(message);
    }
}
