package dev.ringfuse;

import dev.ringfuse.lowlevel.*;
import java.nio.charset.StandardCharsets;

/** The smallest useful filesystem: a root directory holding one read-only file, "hello". */
class HelloFs implements LowLevelFileSystem {
    static final byte[] CONTENT = "Hello from ringfuse\n".getBytes(StandardCharsets.UTF_8);
    static final long FILE = 2;

    static Attr attr(long ino) {
        long now = 1_700_000_000L;
        return ino == ROOT_ID
                ? new Attr(ino, Attr.S_IFDIR | 0755, 2, 0, 0, 0, 0, 0, 4096, now, 0, now, 0, now, 0, now, 0)
                : new Attr(ino, Attr.S_IFREG | 0444, 1, 0, 0, 0, CONTENT.length, 1, 4096, now, 0, now, 0, now, 0, now, 0);
    }

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        if (parent == ROOT_ID && name.equals("hello")) reply.entry(new Entry(FILE, 1, attr(FILE), 1_000_000_000L, 1_000_000_000L));
        else reply.error(Errno.ENOENT);
    }

    @Override
    public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
        if (nodeid == ROOT_ID || nodeid == FILE) reply.attr(attr(nodeid), 1_000_000_000L);
        else reply.error(Errno.ENOENT);
    }

    @Override
    public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        reply.open(0, 0);
    }

    @Override
    public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
        int from = (int) Math.min(offset, CONTENT.length);
        reply.data(CONTENT, from, Math.min(size, CONTENT.length - from));
    }

    @Override
    public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        reply.open(0, 0);
    }

    @Override
    public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) {
        String[] names = {".", "..", "hello"};
        long[] inos = {ROOT_ID, ROOT_ID, FILE};
        int[] modes = {Attr.S_IFDIR, Attr.S_IFDIR, Attr.S_IFREG};
        for (int i = (int) offset; i < names.length; i++) {
            if (!reply.add(names[i], inos[i], modes[i], i + 1)) break;
        }
        reply.send();
    }
}
