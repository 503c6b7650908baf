package dev.ringfuse.fs.memfs;

/**
 * A fifo, socket, or character or block device made by mknod(2). Only the node lives here: the kernel
 * opens fifos and devices itself and never sends their I/O to the filesystem.
 */
final class SpecialNode extends Inode {
    private final int rdev;

    SpecialNode(long ino, int mode, int uid, int gid, int rdev) {
        super(ino, mode, uid, gid, 1);
        this.rdev = rdev;
    }

    @Override long size() { return 0; }

    @Override int rdev() { return rdev; }
}
