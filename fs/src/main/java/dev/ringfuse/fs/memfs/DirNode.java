package dev.ringfuse.fs.memfs;

import dev.ringfuse.lowlevel.Attr;

/**
 * A directory. Its link count is 2 + the number of subdirectories ("." and the entry in its parent, plus
 * each child's ".."); an rmdir'ed directory has 0 and refuses new entries.
 */
final class DirNode extends Inode {
    /** Guarded by {@link #content}. */
    final DirEntries entries = new DirEntries();
    /** ".."; the root is its own parent. Changed only by rename, under the rename lock. */
    private volatile DirNode parent;

    DirNode(long ino, int mode, int uid, int gid, DirNode parent) {
        super(ino, Attr.S_IFDIR | (mode & 07777), uid, gid, 2);
        this.parent = parent == null ? this : parent;
    }

    DirNode parent() { return parent; }

    void parent(DirNode p) { parent = p; }

    /** As tmpfs: a nominal 20 bytes (BOGO_DIRENT_SIZE) for each entry, "." and ".." included. */
    @Override long size() { return 20L * (2 + entries.size()); }

    /** True if {@code this} is {@code d} or one of its ancestors. Stable only under the rename lock. */
    boolean isAncestorOf(DirNode d) {
        for (DirNode cur = d; ; cur = cur.parent) {
            if (cur == this) return true;
            if (cur.parent == cur) return false;
        }
    }
}
