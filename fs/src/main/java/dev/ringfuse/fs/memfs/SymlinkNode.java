package dev.ringfuse.fs.memfs;

import dev.ringfuse.lowlevel.Attr;

/** A symbolic link; its target is immutable, as for any Unix filesystem. */
final class SymlinkNode extends Inode {
    final byte[] target;

    SymlinkNode(long ino, int uid, int gid, byte[] target) {
        super(ino, Attr.S_IFLNK | 0777, uid, gid, 1);
        this.target = target;
    }

    @Override long size() { return target.length; }

    @Override
    void free(Limits limits) {
        super.free(limits);
        limits.release(target.length);
    }
}
