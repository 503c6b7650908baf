package dev.ringfuse.fs.memfs;

import dev.ringfuse.FileNames;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Extended attributes of one inode. The kernel has already checked the caller's right to the namespace
 * (trusted.* needs CAP_SYS_ADMIN, user.* only on files and directories), the name length (255) and the value
 * size (64 KiB); this class applies the namespaces tmpfs knows and the create/replace flags.
 *
 * <p>Thread-safe through its own monitor, a leaf lock like the inode's.
 */
final class XattrMap {
    static final int XATTR_CREATE = 1, XATTR_REPLACE = 2;
    static final String SECURITY_CAPABILITY = "security.capability";

    // guarded by this; null until the first attribute, as most files never have one
    private Map<String, byte[]> values;
    private long bytes;

    /**
     * Accepts the namespaces tmpfs supports. POSIX ACLs go through {@link Acls} (validated, kept in step with
     * the mode).
     */
    static void checkNamespace(String name) {
        // a prefix alone names nothing: the VFS's xattr_resolve_name answers EINVAL for it on tmpfs, but FUSE's
        // catch-all handler passes it through
        if (name.equals("user.") || name.equals("trusted.") || name.equals("security.")) throw new FuseException(Errno.EINVAL);
        if (name.startsWith("user.") || name.startsWith("trusted.") || name.startsWith("security.")
                || name.equals("system.posix_acl_access") || name.equals("system.posix_acl_default")) {
            return;
        }
        throw new FuseException(Errno.EOPNOTSUPP);
    }

    /** The value of {@code name}, or null. */
    synchronized byte[] getOrNull(String name) {
        return values == null ? null : values.get(name);
    }

    synchronized byte[] get(String name) {
        byte[] v = values == null ? null : values.get(name);
        if (v == null) throw new FuseException(Errno.ENODATA);
        return v;
    }

    /** Sets {@code name}; the space the value needs is reserved before anything changes. */
    synchronized void set(String name, byte[] value, int flags, ChunkStore.Space space) {
        byte[] old = values == null ? null : values.get(name);
        if (old != null && (flags & XATTR_CREATE) != 0) throw new FuseException(Errno.EEXIST);
        if (old == null && (flags & XATTR_REPLACE) != 0) throw new FuseException(Errno.ENODATA);
        long cost = cost(name, value) - (old == null ? 0 : cost(name, old));
        if (cost > 0) space.reserve(cost);
        else space.release(-cost);
        if (values == null) values = new TreeMap<>();
        values.put(name, value);
        bytes += cost;
    }

    synchronized void remove(String name, ChunkStore.Space space) {
        byte[] old = values == null ? null : values.remove(name);
        if (old == null) throw new FuseException(Errno.ENODATA);
        long cost = cost(name, old);
        bytes -= cost;
        space.release(cost);
    }

    /** Removes {@code name} if it exists: file capabilities die with a write, truncate or chown. */
    synchronized void removeIfPresent(String name, ChunkStore.Space space) {
        if (values != null && values.containsKey(name)) remove(name, space);
    }

    synchronized List<String> names() {
        return values == null ? List.of() : List.copyOf(values.keySet());
    }

    /** Forgets everything; returns the bytes to give back. */
    synchronized long clear() {
        long b = bytes;
        values = null;
        bytes = 0;
        return b;
    }

    private static long cost(String name, byte[] value) {
        return FileNames.encodedLength(name) + 1L + value.length;
    }
}
