package dev.ringfuse.protocol;

import dev.ringfuse.lowlevel.FileLock;
import dev.ringfuse.protocol.Request.*;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Byte-exact decoding of every opcode, and malformed input as values. */
class DecoderTest {
    private final Decoder decoder = new Decoder(false);

    private Request decode(int opcode, Bytes body) {
        byte[] b = Bytes.request(opcode, 0x10, 7, body);
        return decoder.decodeDevice(Bytes.native_(b), b.length);
    }

    @SuppressWarnings("unchecked")
    private <T extends Request> T decodeAs(Class<T> type, int opcode, Bytes body) {
        Request r = decode(opcode, body);
        assertInstanceOf(type, r, () -> "decoded " + r);
        assertEquals(0x10, r.unique());
        assertEquals(7, r.nodeid());
        return (T) r;
    }

    @Test
    void header() {
        Request r = decode(1, Bytes.of().name("x"));
        Header h = r.header();
        assertEquals(new Header(42, 1, 0x10, 7, 1000, 100, 4242, 0), h);
    }

    @Test
    void init() {
        Init i = decodeAs(Init.class, 26, Bytes.of().u32(7).u32(45).u32(131072).u32(0x73fffffb).u32(0x7fd).zeros(44));
        assertEquals(7, i.major());
        assertEquals(45, i.minor());
        assertEquals(131072, i.maxReadahead());
        assertEquals(0x73fffffbL | (0x7fdL << 32), i.flags());
        Init old = decodeAs(Init.class, 26, Bytes.of().u32(7).u32(26).u32(65536).u32(0x1000));
        assertEquals(0x1000L, old.flags(), "a 16-byte init_in of an old kernel, no flags2");
    }

    @Test
    void namesAndEntries() {
        assertEquals("file", decodeAs(Lookup.class, 1, Bytes.of().name("file")).name());
        assertEquals("ünï", decodeAs(Lookup.class, 1, Bytes.of().name("ünï")).name());
        Symlink s = decodeAs(Symlink.class, 6, Bytes.of().name("link").name("../target"));
        assertEquals("link", s.name());
        assertEquals("../target", s.target());
        MkNod n = decodeAs(MkNod.class, 8, Bytes.of().u32(010644).u32(0x0801).u32(022).u32(0).name("dev"));
        assertEquals(new MkNod(n.header(), "dev", 010644, 0x0801, 022), n);
        MkDir d = decodeAs(MkDir.class, 9, Bytes.of().u32(0755).u32(022).name("sub"));
        assertEquals(new MkDir(d.header(), "sub", 0755, 022), d);
        assertEquals("gone", decodeAs(Unlink.class, 10, Bytes.of().name("gone")).name());
        assertEquals("d", decodeAs(RmDir.class, 11, Bytes.of().name("d")).name());
        Rename r = decodeAs(Rename.class, 12, Bytes.of().u64(9).name("a").name("b"));
        assertEquals(new Rename(r.header(), "a", 9, "b", 0), r);
        Rename r2 = decodeAs(Rename.class, 45, Bytes.of().u64(9).u32(2).u32(0).name("a").name("b"));
        assertEquals(new Rename(r2.header(), "a", 9, "b", 2), r2);
        Link l = decodeAs(Link.class, 13, Bytes.of().u64(5).name("hard"));
        assertEquals(new Link(l.header(), 5, "hard"), l);
        Create c = decodeAs(Create.class, 35, Bytes.of().u32(0101).u32(0100644).u32(022).u32(0).name("new"));
        assertEquals(new Create(c.header(), "new", 0101, 0100644, 022, 0), c);
        TmpFile t = decodeAs(TmpFile.class, 51, Bytes.of().u32(2).u32(0100600).u32(022).u32(0).name(""));
        assertEquals(0100600, t.mode());
    }

    @Test
    void attributes() {
        GetAttr g = decodeAs(GetAttr.class, 3, Bytes.of().u32(1).u32(0).u64(77));
        assertEquals(1, g.flags());
        assertEquals(77, g.fh());
        SetAttrReq s = decodeAs(SetAttrReq.class, 4, Bytes.of().u32(0x1 | 0x8 | 0x20).u32(0).u64(3).u64(4096).u64(11)
                .u64(100).u64(200).u64(300).u32(1).u32(2).u32(3).u32(0100600).u32(0).u32(1000).u32(100).u32(0));
        var a = s.attr();
        assertTrue(a.hasMode() && a.hasSize() && a.hasMtime());
        assertFalse(a.hasUid() || a.hasAtime());
        assertEquals(3, a.fh());
        assertEquals(4096, a.size());
        assertEquals(11, a.lockOwner());
        assertEquals(100, a.atimeSec());
        assertEquals(200, a.mtimeSec());
        assertEquals(300, a.ctimeSec());
        assertEquals(2, a.mtimeNsec());
        assertEquals(0100600, a.mode());
        assertEquals(1000, a.uid());
        assertEquals(100, a.gid());
        Statx x = decodeAs(Statx.class, 52, Bytes.of().u32(1).u32(0).u64(8).u32(0x800).u32(0x7ff));
        assertEquals(new Statx(x.header(), 1, 8, 0x800, 0x7ff), x);
        assertInstanceOf(ReadLink.class, decode(5, Bytes.of()));
        assertInstanceOf(StatFs.class, decode(17, Bytes.of()));
        assertEquals(4, decodeAs(Access.class, 34, Bytes.of().u32(4).u32(0)).mask());
    }

    @Test
    void openReadWrite() {
        Open o = decodeAs(Open.class, 14, Bytes.of().u32(2 | 01000).u32(0));
        assertEquals(2 | 01000, o.flags());
        assertFalse(o.dir());
        assertTrue(decodeAs(Open.class, 27, Bytes.of().u32(0).u32(0)).dir());
        Read r = decodeAs(Read.class, 15, Bytes.of().u64(5).u64(8192).u32(4096).u32(2).u64(99).u32(0x8002).u32(0));
        assertEquals(new Read(r.header(), 5, 8192, 4096, 2, 99, 0x8002, Read.Kind.FILE), r);
        assertEquals(Read.Kind.DIR, decodeAs(Read.class, 28, Bytes.of().u64(1).u64(0).u32(4096).zeros(20)).kind());
        assertEquals(Read.Kind.DIRPLUS, decodeAs(Read.class, 44, Bytes.of().u64(1).u64(3).u32(4096).zeros(20)).kind());
        Write w = decodeAs(Write.class, 16, Bytes.of().u64(5).u64(100).u32(3).u32(4).u64(9).u32(2).u32(0).str("abc"));
        assertEquals(5, w.fh());
        assertEquals(100, w.offset());
        assertEquals(4, w.writeFlags());
        assertEquals(9, w.lockOwner());
        assertArrayEquals("abc".getBytes(), w.data().toArray(ValueLayout.JAVA_BYTE));
        Release rel = decodeAs(Release.class, 18, Bytes.of().u64(5).u32(2).u32(2).u64(44));
        assertEquals(new Release(rel.header(), 5, 2, 2, 44, false), rel);
        assertTrue(decodeAs(Release.class, 29, Bytes.of().u64(5).u32(0).u32(0).u64(0)).dir());
        Flush f = decodeAs(Flush.class, 25, Bytes.of().u64(5).u32(0).u32(0).u64(44));
        assertEquals(new Flush(f.header(), 5, 44), f);
        assertTrue(decodeAs(Fsync.class, 20, Bytes.of().u64(5).u32(1).u32(0)).datasync());
        assertTrue(decodeAs(Fsync.class, 30, Bytes.of().u64(5).u32(0).u32(0)).dir());
        Fallocate fa = decodeAs(Fallocate.class, 43, Bytes.of().u64(5).u64(10).u64(20).u32(3).u32(0));
        assertEquals(new Fallocate(fa.header(), 5, 10, 20, 3), fa);
        Lseek ls = decodeAs(Lseek.class, 46, Bytes.of().u64(5).u64(4096).u32(3).u32(0));
        assertEquals(new Lseek(ls.header(), 5, 4096, 3), ls);
        CopyFileRange c = decodeAs(CopyFileRange.class, 47, Bytes.of().u64(1).u64(2).u64(3).u64(4).u64(5).u64(6).u64(0));
        assertEquals(new CopyFileRange(c.header(), 1, 2, 3, 4, 5, 6, 0, false), c);
        assertTrue(decodeAs(CopyFileRange.class, 53, Bytes.of().u64(1).u64(2).u64(3).u64(4).u64(5).u64(6).u64(0)).wide());
        assertInstanceOf(SyncFs.class, decode(50, Bytes.of().u64(0)));
    }

    @Test
    void xattrs() {
        SetXattr s = decodeAs(SetXattr.class, 21, Bytes.of().u32(3).u32(1).name("user.k").str("v\0w"));
        assertEquals("user.k", s.name());
        assertEquals(1, s.flags());
        assertArrayEquals(new byte[] {'v', 0, 'w'}, s.value().toArray(ValueLayout.JAVA_BYTE));
        Decoder ext = new Decoder(true);
        byte[] b = Bytes.request(21, 2, 1, Bytes.of().u32(1).u32(2).u32(1).u32(0).name("user.a").str("z"));
        SetXattr e = (SetXattr) ext.decodeDevice(Bytes.native_(b), b.length);
        assertEquals(2, e.flags());
        assertEquals(1, e.setxattrFlags());
        assertEquals("user.a", e.name());
        GetXattr g = decodeAs(GetXattr.class, 22, Bytes.of().u32(64).u32(0).name("user.k"));
        assertEquals(new GetXattr(g.header(), "user.k", 64), g);
        assertEquals(0, decodeAs(ListXattr.class, 23, Bytes.of().u32(0).u32(0)).size());
        assertEquals("user.k", decodeAs(RemoveXattr.class, 24, Bytes.of().name("user.k")).name());
    }

    @Test
    void locksAndMisc() {
        GetLk g = decodeAs(GetLk.class, 31, Bytes.of().u64(5).u64(0xabc).u64(10).u64(-1).u32(1).u32(321).u32(0).u32(0));
        assertEquals(new FileLock(10, FileLock.TO_EOF, 1, 321), g.lock());
        assertEquals(0xabc, g.owner());
        SetLk s = decodeAs(SetLk.class, 33, Bytes.of().u64(5).u64(1).u64(0).u64(99).u32(0).u32(1).u32(1).u32(0));
        assertTrue(s.sleep());
        assertEquals(1, s.lkFlags());
        assertEquals(99, s.lock().end());
        assertFalse(decodeAs(SetLk.class, 32, Bytes.of().u64(5).u64(1).zeros(24).u32(0).u32(0)).sleep());
        assertEquals(0x22, decodeAs(Interrupt.class, 36, Bytes.of().u64(0x22)).targetUnique());
        Bmap bm = decodeAs(Bmap.class, 37, Bytes.of().u64(12).u32(512).u32(0));
        assertEquals(new Bmap(bm.header(), 12, 512), bm);
        Ioctl io = decodeAs(Ioctl.class, 39, Bytes.of().u64(5).u32(0).u32(0x5401).u64(0x1000).u32(2).u32(8).raw((byte) 1, (byte) 2));
        assertEquals(0x5401, io.cmd());
        assertEquals(8, io.outSize());
        assertEquals(2, io.in().byteSize());
        Poll p = decodeAs(Poll.class, 40, Bytes.of().u64(5).u64(6).u32(1).u32(1));
        assertEquals(new Poll(p.header(), 5, 6, 1, 1), p);
        NotifyReply n = decodeAs(NotifyReply.class, 41, Bytes.of().u64(0).u64(4096).u32(2).u32(0).u64(0).u64(0).str("ok"));
        assertEquals(4096, n.offset());
        assertArrayEquals("ok".getBytes(), n.data().toArray(ValueLayout.JAVA_BYTE));
        BatchForget bf = decodeAs(BatchForget.class, 42, Bytes.of().u32(2).u32(0).u64(5).u64(1).u64(6).u64(3));
        assertArrayEquals(new long[] {5, 6}, bf.nodeids());
        assertArrayEquals(new long[] {1, 3}, bf.nlookups());
        assertEquals(3, decodeAs(Forget.class, 2, Bytes.of().u64(3)).nlookup());
        assertInstanceOf(Destroy.class, decode(38, Bytes.of()));
        assertInstanceOf(Unsupported.class, decode(48, Bytes.of().zeros(40)));
        assertInstanceOf(Unsupported.class, decode(49, Bytes.of().zeros(8)));
    }

    @Test
    void malformedInputIsAValue() {
        assertMalformed(decode(1, Bytes.of().str("no-terminator")), "NUL");
        assertMalformed(decode(16, Bytes.of().u64(1).u64(0).u32(100).zeros(20).str("short")), "size 100");
        assertMalformed(decode(15, Bytes.of().u64(1)), "op struct");
        assertMalformed(decode(42, Bytes.of().u32(1000).u32(0).u64(1).u64(1)), "count");
        assertMalformed(decode(21, Bytes.of().u32(50).u32(0).name("user.x").str("v")), "overruns");
        assertMalformed(decode(6, Bytes.of().name("only-one")), "NUL");
        assertInstanceOf(Unsupported.class, decode(200, Bytes.of()));
        byte[] b = Bytes.request(1, 2, 1, Bytes.of().name("x"));
        assertMalformed(decoder.decodeDevice(Bytes.native_(b), b.length - 1), "header len");
        assertNull(decoder.decodeDevice(Bytes.native_(b), 39), "less than a header cannot be answered");
        byte[] ext = Bytes.request(1, 2, 1, Bytes.of().name("x"));
        ext[36] = 9; // total_extlen of 72 bytes, longer than the payload
        assertMalformed(decoder.decodeDevice(Bytes.native_(ext), ext.length), "extensions");
    }

    @Test
    void extensionsAreStripped() {
        byte[] b = Bytes.request(35, 2, 1, Bytes.of().u32(0).u32(0100644).u32(0).u32(0).name("f").zeros(6).u64(0xfeed));
        b[36] = 1; // 8 bytes of extensions at the end
        Create c = (Create) decoder.decodeDevice(Bytes.native_(b), b.length);
        assertEquals("f", c.name());
    }

    @Test
    void threeSegmentsDecodeLikeOneBuffer() {
        byte[] b = Bytes.request(16, 0x10, 7, Bytes.of().u64(5).u64(100).u32(3).u32(0).u64(0).u32(0).u32(0).str("xyz"));
        MemorySegment all = Bytes.native_(b);
        Write w = (Write) decoder.decode(all.asSlice(0, 40), all.asSlice(40, 40), all.asSlice(80, 3));
        assertEquals(100, w.offset());
        assertArrayEquals("xyz".getBytes(), w.data().toArray(ValueLayout.JAVA_BYTE));
    }

    private static void assertMalformed(Request r, String reasonPart) {
        Malformed m = assertInstanceOf(Malformed.class, r);
        assertTrue(m.reason().contains(reasonPart), () -> "reason: " + m.reason());
    }
}
