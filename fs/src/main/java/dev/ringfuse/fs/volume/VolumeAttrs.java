package dev.ringfuse.fs.volume;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.SetAttr;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.attribute.FileTime;
import java.util.Map;

/**
 * Attributes of {@code /} and {@code /volume}. Owner, permissions and times start from the image file;
 * chmod, chown and utimens change this copy only (the image's own metadata is the host's business), and
 * the size is always the image's.
 */
final class VolumeAttrs {
    private final ImageFile image;
    private final long btimeNanos;
    // guarded by this: rare changes (chmod, chown, utimens)
    private int mode;
    private int uid;
    private int gid;
    private long atimeNanos;
    // written on every write without a lock: a stale value only makes mtime a write older
    private volatile long mtimeNanos;
    private volatile long ctimeNanos;

    VolumeAttrs(ImageFile image) throws IOException {
        this.image = image;
        Map<String, Object> a = Files.readAttributes(image.path(), "unix:mode,uid,gid,lastModifiedTime,lastAccessTime,ctime");
        this.mode = (Integer) a.get("mode") & 07777;
        this.uid = (Integer) a.get("uid");
        this.gid = (Integer) a.get("gid");
        this.atimeNanos = nanos(a.get("lastAccessTime"));
        this.mtimeNanos = nanos(a.get("lastModifiedTime"));
        this.ctimeNanos = nanos(a.get("ctime"));
        this.btimeNanos = mtimeNanos;
    }

    private static long nanos(Object t) {
        return ((FileTime) t).to(java.util.concurrent.TimeUnit.NANOSECONDS);
    }

    private static long now() {
        java.time.Instant i = java.time.Instant.now();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    Attr of(long nodeid) {
        if (nodeid == LowLevelFileSystem.ROOT_ID) return root();
        if (nodeid == VolumeFs.VOLUME_ID) return volume();
        throw new FuseException(Errno.ENOENT);
    }

    synchronized Attr root() {
        return attr(LowLevelFileSystem.ROOT_ID, Attr.S_IFDIR | 0755, 2, 0);
    }

    synchronized Attr volume() {
        return attr(VolumeFs.VOLUME_ID, Attr.S_IFREG | mode, 1, image.size());
    }

    private Attr attr(long ino, int fullMode, int nlink, long size) {
        long m = mtimeNanos, c = ctimeNanos;
        return new Attr(ino, fullMode, nlink, uid, gid, 0, size, (size + 511) / 512, 4096,
                atimeNanos / 1_000_000_000L, (int) (atimeNanos % 1_000_000_000L),
                m / 1_000_000_000L, (int) (m % 1_000_000_000L), c / 1_000_000_000L, (int) (c % 1_000_000_000L),
                btimeNanos / 1_000_000_000L, (int) (btimeNanos % 1_000_000_000L));
    }

    /** The data changed: mtime and ctime are now. */
    void touch() {
        long n = now();
        mtimeNanos = n;
        ctimeNanos = n;
    }

    /** The group {@code /volume} will have after {@code c}: whose membership decides over setgid. */
    synchronized int groupAfter(SetAttr c) {
        return c.hasGid() ? c.gid() : gid;
    }

    /**
     * Applies chmod/chown/utimens to {@code /volume} (the root keeps fixed attributes). Without
     * {@code callerInGroup} a mode keeps no setgid, as setattr_prepare decides for a chmod: the kernel's own
     * privilege kill for a writer (FUSE's fallback, a SETATTR of the mode forced past setattr_prepare) keeps
     * setgid on a file that is not group-executable, where tmpfs drops it for a writer outside the group.
     */
    synchronized void apply(long nodeid, SetAttr c, boolean callerInGroup) {
        if (nodeid != VolumeFs.VOLUME_ID) return;
        long n = now();
        if (c.hasMode()) mode = c.mode() & (callerInGroup ? 07777 : 05777);
        if (c.hasUid()) uid = c.uid();
        if (c.hasGid()) gid = c.gid();
        if (c.atimeNow()) atimeNanos = n;
        else if (c.hasAtime()) atimeNanos = c.atimeSec() * 1_000_000_000L + c.atimeNsec();
        if (c.mtimeNow()) mtimeNanos = n;
        else if (c.hasMtime()) mtimeNanos = c.mtimeSec() * 1_000_000_000L + c.mtimeNsec();
        ctimeNanos = n;
    }

    /**
     * A write by a caller without CAP_FSETID (the kernel's WRITE_KILL_SUIDGID): set-user-ID goes; set-group-ID
     * goes when group-executable or when the caller is outside the file's group, as tmpfs decides. True if
     * the mode changed.
     */
    synchronized boolean killPrivileges(java.util.function.IntPredicate callerInGroup) {
        int after = dev.ringfuse.access.Permissions.killedMode(mode, () -> callerInGroup.test(gid));
        if (after == mode) return false;
        mode = after;
        ctimeNanos = now();
        return true;
    }

    /**
     * Setgid on a file that is not group-executable, for a caller outside the file's group: the one kill the
     * kernel's fallback (no HANDLE_KILLPRIV_V2) never asks for. True if the mode changed.
     */
    synchronized boolean killSetgidForOutsider(java.util.function.IntPredicate callerInGroup) {
        if ((mode & 02010) != 02000 || callerInGroup.test(gid)) return false;
        mode &= ~02000;
        ctimeNanos = now();
        return true;
    }
}
