package dev.ringfuse.fs.passthrough;

import dev.ringfuse.Errno;
import dev.ringfuse.lowlevel.CreateReply;
import dev.ringfuse.lowlevel.Entry;
import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.OpenReply;
import dev.ringfuse.lowlevel.RequestContext;
import dev.ringfuse.lowlevel.StatusReply;

/** What a passthrough call answered, for driving it without a kernel: an entry, a handle, ok, or an errno. */
final class Got implements EntryReply, OpenReply, CreateReply, StatusReply {
    /** A caller: root unless told otherwise. */
    record Caller(int uid, int gid) implements RequestContext {
        static final Caller ROOT = new Caller(0, 0);
        @Override public int pid() { return 0; }
        @Override public int umask() { return 0; }
        @Override public boolean interrupted() { return false; }
        @Override public long unique() { return 0; }
    }

    Entry entry;
    long fh = -1;
    int errno;
    boolean ok;

    @Override public void entry(Entry e) { entry = e; }
    @Override public void negative(long timeoutNanos) { errno = Errno.ENOENT.code(); }
    @Override public void open(long fh, int openFlags) { this.fh = fh; }
    @Override public void open(long fh, int openFlags, int backingId) { this.fh = fh; }
    @Override public void created(Entry e, long fh, int openFlags) { entry = e; this.fh = fh; }
    @Override public void created(Entry e, long fh, int openFlags, int backingId) { created(e, fh, openFlags); }
    @Override public void ok() { ok = true; }
    @Override public void error(Errno e) { errno = e.code(); }
    @Override public void error(int e) { errno = e; }
    @Override public boolean isDone() { return entry != null || fh >= 0 || ok || errno != 0; }
}
