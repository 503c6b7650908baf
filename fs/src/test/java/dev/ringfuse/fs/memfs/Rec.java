package dev.ringfuse.fs.memfs;

import dev.ringfuse.Errno;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.AttrReply;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.CreateReply;
import dev.ringfuse.lowlevel.DirPlusReply;
import dev.ringfuse.lowlevel.DirReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.LseekReply;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.ReadReply;
import dev.ringfuse.lowlevel.ReadlinkReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.StatFs;
import dev.ringfuse.lowlevel.StatfsReply;
import dev.ringfuse.lowlevel.StatusReply;
import dev.ringfuse.lowlevel.StatxReply;
import dev.ringfuse.lowlevel.XattrReply;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** One recording reply handle for every reply kind, for driving MemFs without a kernel. */
final class Rec implements EntryReply, AttrReply, StatusReply, CreateReply, OpenReply, ReadReply, CountReply,
        DirReply, DirPlusReply, XattrReply, LseekReply, ReadlinkReply, StatfsReply, StatxReply {
    record Ctx(int uid, int gid) implements RequestContext {
        @Override public int pid() { return 1; }
        @Override public int umask() { return 0; }
        @Override public boolean interrupted() { return false; }
        @Override public long unique() { return 2; }
    }

    record Dirent(String name, long ino, long nextOffset, Entry entry) {}

    int done;
    int errno;
    Entry entry;
    Attr attr;
    long fh;
    long count;
    byte[] data;
    List<String> names;
    StatFs statfs;
    final List<Dirent> dirents = new ArrayList<>();
    int dirLimit = Integer.MAX_VALUE;
    private MemorySegment buffer;

    private void complete() {
        if (done++ > 0) throw new IllegalStateException("completed twice");
    }

    @Override public void error(Errno e) { complete(); errno = e.code(); }
    @Override public void error(int e) { complete(); errno = e; }
    @Override public boolean isDone() { return done > 0; }
    @Override public void entry(Entry e) { complete(); entry = e; attr = e.attr(); }
    @Override public void negative(long t) { complete(); errno = Errno.ENOENT.code(); }
    @Override public void attr(Attr a, long t) { complete(); attr = a; }
    @Override public void ok() { complete(); }
    @Override public void created(Entry e, long fh, int f) { complete(); entry = e; attr = e.attr(); this.fh = fh; }
    @Override public void created(Entry e, long fh, int f, int b) { created(e, fh, f); }
    @Override public void open(long fh, int f) { complete(); this.fh = fh; }
    @Override public void open(long fh, int f, int b) { open(fh, f); }
    @Override public void data(MemorySegment d) { complete(); data = d.toArray(ValueLayout.JAVA_BYTE); }
    @Override public void data(byte[] d, int off, int len) { data(MemorySegment.ofArray(d).asSlice(off, len)); }
    @Override public void data(ByteBuffer d) { data(MemorySegment.ofBuffer(d)); }
    @Override public MemorySegment buffer() {
        if (buffer == null) buffer = MemorySegment.ofArray(new byte[1 << 20]);
        return buffer;
    }
    @Override public void commit(int n) { data(buffer.asSlice(0, n)); }
    @Override public void count(long c) { complete(); count = c; }
    @Override public boolean add(String name, long ino, int type, long next) {
        if (dirents.size() >= dirLimit) return false;
        return dirents.add(new Dirent(name, ino, next, null));
    }
    @Override public boolean add(String name, Entry e, long next) {
        if (dirents.size() >= dirLimit) return false;
        return dirents.add(new Dirent(name, e.attr().ino(), next, e));
    }
    @Override public void send() { complete(); }
    @Override public void value(byte[] v) { complete(); data = v; }
    @Override public void names(Collection<String> n) { complete(); names = List.copyOf(n); }
    @Override public void offset(long o) { complete(); count = o; }
    @Override public void target(String t) { target(t.getBytes(java.nio.charset.StandardCharsets.UTF_8)); }
    @Override public void target(byte[] t) { complete(); data = t; }
    @Override public void statfs(StatFs s) { complete(); statfs = s; }
    @Override public void statx(Attr a, int mask, long t) { complete(); attr = a; }
}
