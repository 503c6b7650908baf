package dev.ringfuse.fs;

/**
 * Receives the names of a directory from {@link PathFileSystem#readdir}. Add every name once; "." and ".."
 * may be left out (the adapter lists them itself and ignores them here).
 */
@FunctionalInterface
public interface DirFiller {
    /**
     * Adds one name. {@code stat} may be null: the adapter then asks {@link PathFileSystem#getattr} when it
     * needs the attributes (readdirplus) and uses the type bits of the result.
     */
    void add(String name, FileStat stat);
}
