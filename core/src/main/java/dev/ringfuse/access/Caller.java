package dev.ringfuse.access;

import dev.ringfuse.lowlevel.RequestContext;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The caller of one request for permission checks: its uid and gid as the kernel sends them (fsuid,
 * fsgid) and its supplementary groups, read on first need from {@code /proc/PID/task/PID/status} (the
 * request's pid is the calling thread's id). A caller that has exited has no supplementary groups, so a
 * check can only get stricter. Not thread-safe: one request, one thread.
 */
public final class Caller {
    private final int uid;
    private final int gid;
    private final int pid;
    private int[] groups;

    private Caller(int uid, int gid, int pid, int[] groups) {
        this.uid = uid;
        this.gid = gid;
        this.pid = pid;
        this.groups = groups;
    }

    /** The caller of the request {@code ctx}. */
    public static Caller of(RequestContext ctx) {
        return new Caller(ctx.uid(), ctx.gid(), ctx.pid(), null);
    }

    /** A caller with known supplementary groups (tests, servers that know better). */
    public static Caller of(int uid, int gid, int... groups) {
        return new Caller(uid, gid, 0, groups.clone());
    }

    /** @return the uid permission checks use (the caller's fsuid) */
    public int uid() { return uid; }

    /** @return the primary gid permission checks use (the caller's fsgid) */
    public int gid() { return gid; }

    /** uid 0: stands for the capabilities root has, which a FUSE server cannot see. */
    public boolean isRoot() { return uid == 0; }

    /** The supplementary groups (possibly empty); read once. */
    public int[] groups() {
        if (groups == null) groups = pid > 0 ? readGroups(pid) : new int[0];
        return groups.clone();
    }

    /** Whether {@code g} is the caller's group or one of its supplementary groups (in_group_p). */
    public boolean inGroup(int g) {
        if (g == gid) return true;
        if (groups == null) groups = pid > 0 ? readGroups(pid) : new int[0];
        for (int x : groups) if (x == g) return true;
        return false;
    }

    /** The supplementary groups of thread {@code tid} (of its process when it is the main thread). */
    public static int[] groupsOf(long tid) {
        return readGroups(tid);
    }

    /** The "Groups:" line of a thread's status file; empty if the thread is gone or the line unreadable. */
    static int[] readGroups(long pid) {
        byte[] status;
        try {
            status = Files.readAllBytes(Path.of("/proc/" + pid + "/task/" + pid + "/status"));
        } catch (IOException | SecurityException e) {
            return new int[0];
        }
        return parseGroups(new String(status, StandardCharsets.ISO_8859_1));
    }

    static int[] parseGroups(String status) {
        int at = status.indexOf("\nGroups:");
        if (at < 0) return new int[0];
        int end = status.indexOf('\n', at + 1);
        String[] parts = status.substring(at + 8, end < 0 ? status.length() : end).trim().split("\\s+");
        int[] out = new int[parts.length];
        int n = 0;
        for (String p : parts) {
            if (p.isEmpty()) continue;
            try {
                out[n++] = Integer.parseUnsignedInt(p);
            } catch (NumberFormatException e) {
                return new int[0];
            }
        }
        return Arrays.copyOf(out, n);
    }

    @Override
    public String toString() {
        return "Caller[uid=" + uid + ", gid=" + gid + ", pid=" + pid + "]";
    }
}
