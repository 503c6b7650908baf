package dev.ringfuse.fs.memfs;

import static dev.ringfuse.lowlevel.LowLevelFileSystem.ROOT_ID;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.Attr;
import dev.ringfuse.lowlevel.SetAttr;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** MemFs driven directly through its callbacks, as the kernel would, without mounting. */
class MemFsTest {
    private final MemFs fs = new MemFs();
    private final Rec.Ctx user = new Rec.Ctx(1000, 1000);

    private static Rec call(Consumer<Rec> op) {
        Rec r = new Rec();
        try {
            op.accept(r);
        } catch (FuseException e) {
            r.error(e.errno());
        }
        assertEquals(1, r.done, "exactly one reply");
        return r;
    }

    private static Rec ok(Consumer<Rec> op) {
        Rec r = call(op);
        assertEquals(0, r.errno, () -> "errno " + Errno.describe(r.errno));
        return r;
    }

    private static void fails(Errno e, Consumer<Rec> op) {
        assertEquals(e.code(), call(op).errno);
    }

    private long mkdir(long parent, String name) {
        return ok(r -> fs.mkdir(user, parent, name, 0755, r)).entry.nodeid();
    }

    private Rec create(long parent, String name) {
        return ok(r -> fs.create(user, parent, name, 0644, 2, r));
    }

    private Attr attr(long node) {
        return ok(r -> fs.getattr(user, node, -1, r)).attr;
    }

    private void write(long node, long fh, long off, String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        assertEquals(b.length, ok(r -> fs.write(user, node, fh, off, MemorySegment.ofArray(b), 0, r)).count);
    }

    private String read(long node, long off, int len) {
        return new String(ok(r -> fs.read(user, node, 0, off, len, r)).data, StandardCharsets.UTF_8);
    }

    private List<String> list(long dir) {
        return ok(r -> fs.readdir(user, dir, 0, 0, 4096, r)).dirents.stream().map(Rec.Dirent::name).toList();
    }

    @Test
    void directoryLinkCountsFollowSubdirectories() {
        int rootLinks = attr(ROOT_ID).nlink();
        long a = mkdir(ROOT_ID, "a");
        mkdir(a, "b");
        mkdir(a, "c");
        assertEquals(4, attr(a).nlink());
        assertEquals(rootLinks + 1, attr(ROOT_ID).nlink());
        ok(r -> fs.rename(user, a, "c", ROOT_ID, "c", 0, r));
        assertEquals(3, attr(a).nlink());
        assertEquals(rootLinks + 2, attr(ROOT_ID).nlink());
        fails(Errno.ENOTEMPTY, r -> fs.rmdir(user, ROOT_ID, "a", r));
        ok(r -> fs.rmdir(user, a, "b", r));
        ok(r -> fs.rmdir(user, ROOT_ID, "a", r));
        assertEquals(rootLinks + 1, attr(ROOT_ID).nlink());
        fails(Errno.ENOENT, r -> fs.mkdir(user, a, "x", 0755, r));
    }

    @Test
    void renameRules() {
        long a = mkdir(ROOT_ID, "a");
        long b = mkdir(a, "b");
        create(ROOT_ID, "f");
        create(ROOT_ID, "g");
        fails(Errno.EINVAL, r -> fs.rename(user, ROOT_ID, "a", b, "x", 0, r));
        fails(Errno.EINVAL, r -> fs.rename(user, ROOT_ID, "a", a, "x", 0, r));
        fails(Errno.EISDIR, r -> fs.rename(user, ROOT_ID, "f", ROOT_ID, "a", 0, r));
        fails(Errno.ENOTDIR, r -> fs.rename(user, ROOT_ID, "a", ROOT_ID, "f", 0, r));
        fails(Errno.ENOTEMPTY, r -> fs.rename(user, a, "b", ROOT_ID, "a", 0, r));
        fails(Errno.EEXIST, r -> fs.rename(user, ROOT_ID, "f", ROOT_ID, "g", 1, r));
        fails(Errno.ENOENT, r -> fs.rename(user, ROOT_ID, "f", ROOT_ID, "nope", 2, r));
        fails(Errno.EINVAL, r -> fs.rename(user, ROOT_ID, "f", ROOT_ID, "g", 3, r));
        // exchange a directory with a file across directories: link counts move with the directory
        ok(r -> fs.rename(user, ROOT_ID, "f", a, "b", 2, r));
        assertEquals(b, ok(r -> fs.lookup(user, ROOT_ID, "f", r)).entry.nodeid());
        assertEquals(2, attr(a).nlink());
        assertEquals(ROOT_ID, ok(r -> fs.lookup(user, b, "..", r)).entry.nodeid());
        // replacing a file drops its link
        long g = ok(r -> fs.lookup(user, ROOT_ID, "g", r)).entry.nodeid();
        ok(r -> fs.rename(user, a, "b", ROOT_ID, "g", 0, r));
        assertEquals(0, attr(g).nlink());
        assertEquals(List.of(".", ".."), list(a));
        // a whiteout leaves a 0/0 character device behind; it does not combine with EXCHANGE
        fails(Errno.EINVAL, r -> fs.rename(user, ROOT_ID, "g", ROOT_ID, "w", 6, r));
        ok(r -> fs.rename(user, ROOT_ID, "g", ROOT_ID, "w", 4, r));
        Attr marker = ok(r -> fs.lookup(user, ROOT_ID, "g", r)).attr;
        assertEquals(Attr.S_IFCHR, marker.mode());
        assertEquals(0, marker.rdev());
    }

    @Test
    void unlinkedOpenFileStaysUsableUntilForgotten() {
        Rec c = create(ROOT_ID, "f");
        long f = c.entry.nodeid();
        write(f, c.fh, 0, "hello");
        ok(r -> fs.unlink(user, ROOT_ID, "f", r));
        write(f, c.fh, 5, " world");
        assertEquals("hello world", read(f, 0, 100));
        assertEquals(0, attr(f).nlink());
        long inodes = fs.usedInodes();
        fs.forget(f, 1);
        assertEquals(inodes - 1, fs.usedInodes());
        fails(Errno.ESTALE, r -> fs.getattr(user, f, -1, r));
    }

    @Test
    void tmpfileCanBeLinkedLater() {
        Rec t = ok(r -> fs.tmpfile(user, ROOT_ID, 0600, 2, r));
        long f = t.entry.nodeid();
        assertEquals(0, t.attr.nlink());
        write(f, t.fh, 0, "x");
        assertEquals(List.of(".", ".."), list(ROOT_ID));
        ok(r -> fs.link(user, f, ROOT_ID, "named", r));
        assertEquals(1, attr(f).nlink());
        assertEquals("x", read(ok(r -> fs.lookup(user, ROOT_ID, "named", r)).entry.nodeid(), 0, 10));
    }

    @Test
    void readdirCookiesSurviveConcurrentChanges() {
        for (int i = 0; i < 10; i++) create(ROOT_ID, "f" + i);
        Rec first = new Rec();
        first.dirLimit = 5;
        fs.readdir(user, ROOT_ID, 0, 0, 4096, first);
        assertEquals(List.of(".", "..", "f0", "f1", "f2"), first.dirents.stream().map(Rec.Dirent::name).toList());
        long cookie = first.dirents.getLast().nextOffset();
        ok(r -> fs.unlink(user, ROOT_ID, "f2", r));
        ok(r -> fs.unlink(user, ROOT_ID, "f3", r));
        create(ROOT_ID, "new");
        List<String> rest = ok(r -> fs.readdir(user, ROOT_ID, 0, cookie, 4096, r)).dirents.stream()
                .map(Rec.Dirent::name).toList();
        assertEquals(List.of("f4", "f5", "f6", "f7", "f8", "f9", "new"), rest);
    }

    @Test
    void readdirplusCountsLookupsOnlyForAddedEntries() {
        Rec c = create(ROOT_ID, "a");
        create(ROOT_ID, "b");
        long a = c.entry.nodeid();
        Rec r = new Rec();
        r.dirLimit = 3;
        fs.readdirplus(user, ROOT_ID, 0, 0, 4096, r);
        assertEquals(0, r.dirents.get(0).entry().nodeid());
        assertEquals(a, r.dirents.get(2).entry().nodeid());
        // "a" now has two lookups (create and readdirplus): one unlink + one forget must not free it
        ok(x -> fs.unlink(user, ROOT_ID, "a", x));
        fs.forget(a, 1);
        assertEquals(0, attr(a).nlink());
        fs.forget(a, 1);
        fails(Errno.ESTALE, x -> fs.getattr(user, a, -1, x));
    }

    @Test
    void setgidDirectoriesHandDownTheirGroup() {
        long d = mkdir(ROOT_ID, "d");
        ok(r -> fs.setattr(user, d, setattr(SetAttr.FATTR_MODE | SetAttr.FATTR_GID, 02775, 0, 50), r));
        Rec.Ctx other = new Rec.Ctx(1001, 1001);
        Attr sub = ok(r -> fs.mkdir(other, d, "sub", 0755, r)).attr;
        assertEquals(50, sub.gid());
        assertEquals(02000, sub.mode() & 02000);
        Attr file = ok(r -> fs.create(other, d, "f", 0644, 2, r)).attr;
        assertEquals(50, file.gid());
        assertEquals(1001, file.uid());
    }

    @Test
    void namesLongerThan255BytesAreRejected() {
        String ok = "x".repeat(255), tooLong = "x".repeat(256), multibyte = "é".repeat(128);
        create(ROOT_ID, ok);
        fails(Errno.ENAMETOOLONG, r -> fs.create(user, ROOT_ID, tooLong, 0644, 2, r));
        fails(Errno.ENAMETOOLONG, r -> fs.lookup(user, ROOT_ID, multibyte, r));
    }

    @Test
    void xattrs() {
        long f = create(ROOT_ID, "f").entry.nodeid();
        MemorySegment v = MemorySegment.ofArray("v".getBytes(StandardCharsets.UTF_8));
        fails(Errno.ENODATA, r -> fs.setxattr(user, f, "user.a", v, XattrMap.XATTR_REPLACE, r));
        ok(r -> fs.setxattr(user, f, "user.a", v, XattrMap.XATTR_CREATE, r));
        fails(Errno.EEXIST, r -> fs.setxattr(user, f, "user.a", v, XattrMap.XATTR_CREATE, r));
        Rec.Ctx root = new Rec.Ctx(0, 0);
        ok(r -> fs.setxattr(root, f, "trusted.b", v, 0, r));
        fails(Errno.EOPNOTSUPP, r -> fs.setxattr(user, f, "bogus.c", v, 0, r));
        assertEquals(List.of("trusted.b", "user.a"), ok(r -> fs.listxattr(root, f, 100, r)).names);
        assertEquals(List.of("user.a"), ok(r -> fs.listxattr(user, f, 100, r)).names, "trusted.* names are root's");
        assertArrayEquals(new byte[] {'v'}, ok(r -> fs.getxattr(user, f, "user.a", 10, r)).data);
        ok(r -> fs.removexattr(user, f, "user.a", r));
        fails(Errno.ENODATA, r -> fs.getxattr(user, f, "user.a", 10, r));
    }

    @Test
    void truncateFallocateAndSeek() {
        Rec c = create(ROOT_ID, "f");
        long f = c.entry.nodeid();
        write(f, c.fh, 0, "abc");
        ok(r -> fs.setattr(user, f, setattr(SetAttr.FATTR_SIZE, 0, 10L << 30, 0), r));
        assertEquals(10L << 30, attr(f).size());
        assertTrue(attr(f).blocks() <= 128);
        assertEquals(0, ok(r -> fs.lseek(user, f, c.fh, 0, FileOps.SEEK_DATA, r)).count);
        assertEquals(ChunkStore.PAGE, ok(r -> fs.lseek(user, f, c.fh, 0, FileOps.SEEK_HOLE, r)).count);
        fails(Errno.ENXIO, r -> fs.lseek(user, f, c.fh, 5L << 30, FileOps.SEEK_DATA, r));
        ok(r -> fs.fallocate(user, f, c.fh, FileOps.FALLOC_FL_PUNCH_HOLE | FileOps.FALLOC_FL_KEEP_SIZE, 0, 4096, r));
        assertEquals(0, attr(f).blocks());
        fails(Errno.EOPNOTSUPP, r -> fs.fallocate(user, f, c.fh, 8, 0, 4096, r));
        ok(r -> fs.fallocate(user, f, c.fh, 0, 11L << 30, 100, r));
        assertEquals((11L << 30) + 100, attr(f).size());
        fails(Errno.EISDIR, r -> fs.setattr(user, ROOT_ID, setattr(SetAttr.FATTR_SIZE, 0, 0, 0), r));
    }

    @Test
    void copyFileRangeAndAppend() {
        Rec a = create(ROOT_ID, "a");
        write(a.entry.nodeid(), a.fh, 0, "0123456789");
        Rec b = ok(r -> fs.create(user, ROOT_ID, "b", 0644, 2 | FileOps.O_APPEND, r));
        write(b.entry.nodeid(), b.fh, 0, "xy");
        write(b.entry.nodeid(), b.fh, 0, "z");
        assertEquals("xyz", read(b.entry.nodeid(), 0, 10));
        assertEquals(4, ok(r -> fs.copyFileRange(user, a.entry.nodeid(), a.fh, 6, b.entry.nodeid(), b.fh, 1, 100, 0, r)).count);
        assertEquals("x6789", read(b.entry.nodeid(), 0, 10));
    }

    @Test
    void capacityGivesEnospc() {
        MemFs small = new MemFs(MemFs.Options.builder().capacityBytes(64 * 1024).maxInodes(3).build());
        Rec c = ok(r -> small.create(user, ROOT_ID, "f", 0644, 2, r));
        Rec w = call(r -> small.write(user, c.entry.nodeid(), c.fh, 0, MemorySegment.ofArray(new byte[100_000]), 0, r));
        assertEquals(64 * 1024, w.count);
        assertEquals(0, ok(r -> small.statfs(user, ROOT_ID, r)).statfs.bfree());
        ok(r -> small.mkdir(user, ROOT_ID, "d", 0755, r));
        fails(Errno.ENOSPC, r -> small.mkdir(user, ROOT_ID, "e", 0755, r));
    }

    @Test
    void privilegesDieWhenTheKernelSaysSo() {
        Rec c = create(ROOT_ID, "f");
        long f = c.entry.nodeid();
        MemorySegment cap = MemorySegment.ofArray(new byte[20]);
        ok(r -> fs.setattr(user, f, setattr(SetAttr.FATTR_MODE, 06755, 0, 0), r));
        ok(r -> fs.setxattr(user, f, XattrMap.SECURITY_CAPABILITY, cap, 0, r));
        MemorySegment one = MemorySegment.ofArray(new byte[] {1});
        ok(r -> fs.write(user, f, c.fh, 0, one, 0, r)); // no flag: bits stay, capabilities go
        assertEquals(06755, attr(f).mode() & 07777);
        assertEquals(List.of(), ok(r -> fs.listxattr(user, f, 100, r)).names);
        ok(r -> fs.write(user, f, c.fh, 0, one, FileOps.WRITE_KILL_SUIDGID, r));
        assertEquals(0755, attr(f).mode() & 07777);
        // sgid without group-execute belongs to locking: a member of the group keeps it, others do not
        ok(r -> fs.setattr(user, f, setattr(SetAttr.FATTR_MODE, 06644, 0, 0), r));
        ok(r -> fs.write(user, f, c.fh, 0, one, FileOps.WRITE_KILL_SUIDGID, r));
        assertEquals(02644, attr(f).mode() & 07777);
        Rec.Ctx stranger = new Rec.Ctx(2000, 2000);
        ok(r -> fs.write(stranger, f, c.fh, 0, one, FileOps.WRITE_KILL_SUIDGID, r));
        assertEquals(0644, attr(f).mode() & 07777);
    }

    private static SetAttr setattr(int valid, int mode, long size, int gid) {
        return new SetAttr(valid, -1, size, 0, 0, 0, 0, 0, 0, 0, mode, 0, gid);
    }
}
