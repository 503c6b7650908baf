package dev.ringfuse.fs.memfs;

import dev.ringfuse.lowlevel.Attr;

/**
 * A regular file. Its bytes live in a {@link ChunkStore} guarded by {@link #content}: reads share it,
 * writes, truncation and fallocate hold it exclusively.
 */
final class FileNode extends Inode {
    final ChunkStore data;

    FileNode(long ino, int mode, int uid, int gid, int nlink, ChunkMemory memory, ChunkStore.Space space) {
        super(ino, Attr.S_IFREG | (mode & 07777), uid, gid, nlink);
        this.data = new ChunkStore(memory, space);
    }

    @Override long size() { return data.size(); }

    @Override long allocated() { return data.allocatedBytes(); }

    @Override
    void free(Limits limits) {
        super.free(limits);
        content.writeLock().lock();
        try {
            data.clear();
        } finally {
            content.writeLock().unlock();
        }
    }
}
