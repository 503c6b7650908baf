package dev.ringfuse.testkit;

import dev.ringfuse.Errno;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.AttrReply;
import dev.ringfuse.lowlevel.DirReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.ReadReply;
import dev.ringfuse.lowlevel.RequestContext;
import java.nio.charset.StandardCharsets;

/**
 * A read-only filesystem with one file, {@code /hello}: enough to exercise mounting, unmounting and fault
 * handling without depending on a full filesystem. Nothing is cached by the kernel (timeouts 0), so every
 * stat reaches the server.
 */
final class TinyFs implements LowLevelFileSystem {
    static final byte[] HELLO = "hello world\n".getBytes(StandardCharsets.UTF_8);
    private static final long HELLO_ID = 2;

    private static Attr attr(long ino) {
        long now = 1_700_000_000L;
        return ino == ROOT_ID
                ? new Attr(ino, Attr.S_IFDIR | 0755, 2, 0, 0, 0, 0, 0, 4096, now, 0, now, 0, now, 0, now, 0)
                : new Attr(ino, Attr.S_IFREG | 0644, 1, 0, 0, 0, HELLO.length, 1, 4096, now, 0, now, 0, now, 0, now, 0);
    }

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        if (parent == ROOT_ID && name.equals("hello")) reply.entry(new Entry(HELLO_ID, 1, attr(HELLO_ID), 0, 0));
        else reply.error(Errno.ENOENT);
    }

    @Override
    public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
        if (nodeid == ROOT_ID || nodeid == HELLO_ID) reply.attr(attr(nodeid), 0);
        else reply.error(Errno.ENOENT);
    }

    @Override
    public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        reply.open(0, 0);
    }

    @Override
    public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
        int from = (int) Math.min(offset, HELLO.length);
        reply.data(HELLO, from, Math.min(size, HELLO.length - from));
    }

    @Override
    public void opendir(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
        reply.open(0, 0);
    }

    @Override
    public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) {
        String[] names = {".", "..", "hello"};
        long[] inos = {ROOT_ID, ROOT_ID, HELLO_ID};
        for (int i = (int) offset; i < names.length; i++) {
            if (!reply.add(names[i], inos[i], i == 2 ? Attr.S_IFREG : Attr.S_IFDIR, i + 1)) break;
        }
        reply.send();
    }
}
