package dev.ringfuse.protocol;

import dev.ringfuse.kernel.Off;
import dev.ringfuse.kernel.Opcode;
import dev.ringfuse.lowlevel.FileLock;
import dev.ringfuse.lowlevel.SetAttr;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

import static dev.ringfuse.protocol.Wire.i32;
import static dev.ringfuse.protocol.Wire.i64;
import static dev.ringfuse.protocol.Wire.u16;

/**
 * Bytes in, a {@link Request} out. Pure: no I/O, no state but the negotiated options it is built with,
 * and no exception for bad input — that becomes {@link Request.Malformed}.
 *
 * <p>Both transports feed the same {@link #decode(MemorySegment, MemorySegment, MemorySegment)}: io_uring
 * delivers header, op-in and payload separately; /dev/fuse delivers one buffer that
 * {@link #decodeDevice(MemorySegment, int)} splits using the opcode table.
 */
public final class Decoder {
    private static final int EINVAL = 22;
    private static final int EIO = 5;

    private final boolean setxattrExt;

    /** @param setxattrExt whether SETXATTR_EXT was negotiated (setxattr_in is then 16 bytes, else 8) */
    public Decoder(boolean setxattrExt) {
        this.setxattrExt = setxattrExt;
    }

    /** Decodes a header; returns null if fewer than 40 bytes arrived (nothing can be answered). */
    public static Header header(MemorySegment h) {
        if (h.byteSize() < Off.SIZEOF_IN_HEADER) return null;
        return new Header(i32(h, Off.IN_HEADER_LEN), i32(h, Off.IN_HEADER_OPCODE), i64(h, Off.IN_HEADER_UNIQUE),
                i64(h, Off.IN_HEADER_NODEID), i32(h, Off.IN_HEADER_UID), i32(h, Off.IN_HEADER_GID),
                i32(h, Off.IN_HEADER_PID), u16(h, Off.IN_HEADER_TOTAL_EXTLEN));
    }

    /** The size of the fixed input struct of {@code op} under the negotiated options. */
    public int inSize(Opcode op) {
        return op == Opcode.SETXATTR && setxattrExt ? Off.SIZEOF_SETXATTR_IN : op.inSize();
    }

    /**
     * Splits one /dev/fuse read of {@code n} bytes into header, op-in and payload and decodes it.
     * Returns null if not even a header arrived.
     */
    public Request decodeDevice(MemorySegment buf, int n) {
        if (n < Off.SIZEOF_IN_HEADER) return null;
        MemorySegment all = buf.asSlice(0, n);
        Header h = header(all);
        if (h.len() != n) return new Request.Malformed(h, EIO, "header len " + h.len() + " but read " + n);
        Opcode op = Opcode.of(h.opcode());
        int in = op == null ? 0 : Math.min(inSize(op), n - Off.SIZEOF_IN_HEADER);
        long payloadAt = Off.SIZEOF_IN_HEADER + (long) in;
        return decode(h, all.asSlice(Off.SIZEOF_IN_HEADER, in), all.asSlice(payloadAt, n - payloadAt));
    }

    /** Decodes the three segments (the io_uring shape). */
    public Request decode(MemorySegment header, MemorySegment opIn, MemorySegment payload) {
        Header h = header(header);
        if (h == null) return null;
        return decode(h, opIn, payload);
    }

    /** Decodes op-in and payload under a header already decoded (the io_uring queue reads it first for the opcode). */
    public Request decode(Header h, MemorySegment in, MemorySegment payload) {
        Opcode op = Opcode.of(h.opcode());
        if (op == null) return new Request.Unsupported(h);
        int need = op == Opcode.INIT ? 16 : inSize(op);
        if (in.byteSize() < need) return bad(h, op + ": op struct of " + in.byteSize() + " bytes, need " + need);
        long ext = h.extLen() * 8L;
        if (ext > payload.byteSize()) return bad(h, op + ": extensions longer than the payload");
        MemorySegment p = payload.asSlice(0, payload.byteSize() - ext);
        try {
            return switch (op) {
                case INIT -> new Request.Init(h, i32(in, Off.INIT_IN_MAJOR), i32(in, Off.INIT_IN_MINOR),
                        i32(in, Off.INIT_IN_MAX_READAHEAD), initFlags(in));
                case DESTROY -> new Request.Destroy(h);
                case LOOKUP -> new Request.Lookup(h, names(p, 1)[0]);
                case FORGET -> new Request.Forget(h, i64(in, Off.FORGET_IN_NLOOKUP));
                case BATCH_FORGET -> batchForget(h, in, p);
                case GETATTR -> new Request.GetAttr(h, i32(in, Off.GETATTR_IN_GETATTR_FLAGS), i64(in, Off.GETATTR_IN_FH));
                case SETATTR -> new Request.SetAttrReq(h, setAttr(in));
                case READLINK -> new Request.ReadLink(h);
                case SYMLINK -> {
                    String[] n = names(p, 2);
                    yield new Request.Symlink(h, n[0], n[1]);
                }
                case MKNOD -> new Request.MkNod(h, names(p, 1)[0], i32(in, Off.MKNOD_IN_MODE), i32(in, Off.MKNOD_IN_RDEV), i32(in, Off.MKNOD_IN_UMASK));
                case MKDIR -> new Request.MkDir(h, names(p, 1)[0], i32(in, Off.MKDIR_IN_MODE), i32(in, Off.MKDIR_IN_UMASK));
                case UNLINK -> new Request.Unlink(h, names(p, 1)[0]);
                case RMDIR -> new Request.RmDir(h, names(p, 1)[0]);
                case RENAME -> {
                    String[] n = names(p, 2);
                    yield new Request.Rename(h, n[0], i64(in, Off.RENAME_IN_NEWDIR), n[1], 0);
                }
                case RENAME2 -> {
                    String[] n = names(p, 2);
                    yield new Request.Rename(h, n[0], i64(in, Off.RENAME2_IN_NEWDIR), n[1], i32(in, Off.RENAME2_IN_FLAGS));
                }
                case LINK -> new Request.Link(h, i64(in, Off.LINK_IN_OLDNODEID), names(p, 1)[0]);
                case OPEN, OPENDIR -> new Request.Open(h, i32(in, Off.OPEN_IN_FLAGS), i32(in, Off.OPEN_IN_OPEN_FLAGS), op == Opcode.OPENDIR);
                case READ, READDIR, READDIRPLUS -> new Request.Read(h, i64(in, Off.READ_IN_FH), i64(in, Off.READ_IN_OFFSET),
                        i32(in, Off.READ_IN_SIZE), i32(in, Off.READ_IN_READ_FLAGS), i64(in, Off.READ_IN_LOCK_OWNER),
                        i32(in, Off.READ_IN_FLAGS), op == Opcode.READ ? Request.Read.Kind.FILE
                                : op == Opcode.READDIR ? Request.Read.Kind.DIR : Request.Read.Kind.DIRPLUS);
                case WRITE -> write(h, in, p);
                case STATFS -> new Request.StatFs(h);
                case RELEASE, RELEASEDIR -> new Request.Release(h, i64(in, Off.RELEASE_IN_FH), i32(in, Off.RELEASE_IN_FLAGS),
                        i32(in, Off.RELEASE_IN_RELEASE_FLAGS), i64(in, Off.RELEASE_IN_LOCK_OWNER), op == Opcode.RELEASEDIR);
                case FSYNC, FSYNCDIR -> new Request.Fsync(h, i64(in, Off.FSYNC_IN_FH),
                        (i32(in, Off.FSYNC_IN_FSYNC_FLAGS) & 1) != 0, op == Opcode.FSYNCDIR);
                case SETXATTR -> setXattr(h, in, p);
                case GETXATTR -> new Request.GetXattr(h, names(p, 1)[0], i32(in, Off.GETXATTR_IN_SIZE));
                case LISTXATTR -> new Request.ListXattr(h, i32(in, Off.GETXATTR_IN_SIZE));
                case REMOVEXATTR -> new Request.RemoveXattr(h, names(p, 1)[0]);
                case FLUSH -> new Request.Flush(h, i64(in, Off.FLUSH_IN_FH), i64(in, Off.FLUSH_IN_LOCK_OWNER));
                case GETLK -> new Request.GetLk(h, i64(in, Off.LK_IN_FH), i64(in, Off.LK_IN_OWNER), lock(in), i32(in, Off.LK_IN_LK_FLAGS));
                case SETLK, SETLKW -> new Request.SetLk(h, i64(in, Off.LK_IN_FH), i64(in, Off.LK_IN_OWNER), lock(in),
                        i32(in, Off.LK_IN_LK_FLAGS), op == Opcode.SETLKW);
                case ACCESS -> new Request.Access(h, i32(in, Off.ACCESS_IN_MASK));
                case CREATE -> new Request.Create(h, names(p, 1)[0], i32(in, Off.CREATE_IN_FLAGS), i32(in, Off.CREATE_IN_MODE),
                        i32(in, Off.CREATE_IN_UMASK), i32(in, Off.CREATE_IN_OPEN_FLAGS));
                case TMPFILE -> new Request.TmpFile(h, p.byteSize() > 0 ? names(p, 1)[0] : "", i32(in, Off.CREATE_IN_FLAGS),
                        i32(in, Off.CREATE_IN_MODE), i32(in, Off.CREATE_IN_UMASK), i32(in, Off.CREATE_IN_OPEN_FLAGS));
                case INTERRUPT -> new Request.Interrupt(h, i64(in, Off.INTERRUPT_IN_UNIQUE));
                case BMAP -> new Request.Bmap(h, i64(in, Off.BMAP_IN_BLOCK), i32(in, Off.BMAP_IN_BLOCKSIZE));
                case IOCTL -> ioctl(h, in, p);
                case POLL -> new Request.Poll(h, i64(in, Off.POLL_IN_FH), i64(in, Off.POLL_IN_KH), i32(in, Off.POLL_IN_FLAGS),
                        i32(in, Off.POLL_IN_EVENTS));
                case NOTIFY_REPLY -> notifyReply(h, in, p);
                case FALLOCATE -> new Request.Fallocate(h, i64(in, Off.FALLOCATE_IN_FH), i64(in, Off.FALLOCATE_IN_OFFSET),
                        i64(in, Off.FALLOCATE_IN_LENGTH), i32(in, Off.FALLOCATE_IN_MODE));
                case LSEEK -> new Request.Lseek(h, i64(in, Off.LSEEK_IN_FH), i64(in, Off.LSEEK_IN_OFFSET), i32(in, Off.LSEEK_IN_WHENCE));
                case COPY_FILE_RANGE, COPY_FILE_RANGE_64 -> new Request.CopyFileRange(h, i64(in, Off.COPY_FILE_RANGE_IN_FH_IN),
                        i64(in, Off.COPY_FILE_RANGE_IN_OFF_IN), i64(in, Off.COPY_FILE_RANGE_IN_NODEID_OUT),
                        i64(in, Off.COPY_FILE_RANGE_IN_FH_OUT), i64(in, Off.COPY_FILE_RANGE_IN_OFF_OUT),
                        i64(in, Off.COPY_FILE_RANGE_IN_LEN), i64(in, Off.COPY_FILE_RANGE_IN_FLAGS), op == Opcode.COPY_FILE_RANGE_64);
                case SYNCFS -> new Request.SyncFs(h);
                case STATX -> new Request.Statx(h, i32(in, Off.STATX_IN_GETATTR_FLAGS), i64(in, Off.STATX_IN_FH),
                        i32(in, Off.STATX_IN_SX_FLAGS), i32(in, Off.STATX_IN_SX_MASK));
                case SETUPMAPPING, REMOVEMAPPING -> new Request.Unsupported(h);
            };
        } catch (BadInput e) {
            return bad(h, op + ": " + e.getMessage());
        }
    }

    private static Request.Malformed bad(Header h, String reason) {
        return new Request.Malformed(h, EINVAL, reason);
    }

    private static long initFlags(MemorySegment in) {
        long flags = Integer.toUnsignedLong(i32(in, Off.INIT_IN_FLAGS));
        if (in.byteSize() >= Off.INIT_IN_FLAGS2 + 4 && (flags & dev.ringfuse.kernel.Fuse.INIT_EXT) != 0) {
            flags |= Integer.toUnsignedLong(i32(in, Off.INIT_IN_FLAGS2)) << 32;
        }
        return flags;
    }

    private static SetAttr setAttr(MemorySegment in) {
        return new SetAttr(i32(in, Off.SETATTR_IN_VALID), i64(in, Off.SETATTR_IN_FH), i64(in, Off.SETATTR_IN_SIZE),
                i64(in, Off.SETATTR_IN_LOCK_OWNER), i64(in, Off.SETATTR_IN_ATIME), i32(in, Off.SETATTR_IN_ATIMENSEC),
                i64(in, Off.SETATTR_IN_MTIME), i32(in, Off.SETATTR_IN_MTIMENSEC), i64(in, Off.SETATTR_IN_CTIME),
                i32(in, Off.SETATTR_IN_CTIMENSEC), i32(in, Off.SETATTR_IN_MODE), i32(in, Off.SETATTR_IN_UID),
                i32(in, Off.SETATTR_IN_GID));
    }

    private static FileLock lock(MemorySegment in) {
        long base = Off.LK_IN_LK;
        long end = i64(in, base + Off.FILE_LOCK_END);
        return new FileLock(i64(in, base + Off.FILE_LOCK_START), end == -1 ? FileLock.TO_EOF : end,
                i32(in, base + Off.FILE_LOCK_TYPE), i32(in, base + Off.FILE_LOCK_PID));
    }

    private static Request batchForget(Header h, MemorySegment in, MemorySegment p) {
        int count = i32(in, Off.BATCH_FORGET_IN_COUNT);
        if (count < 0 || (long) count * Off.SIZEOF_FORGET_ONE > p.byteSize()) {
            return new Request.Malformed(h, EINVAL, "BATCH_FORGET: count " + Integer.toUnsignedString(count)
                    + " exceeds the payload");
        }
        long[] ids = new long[count];
        long[] counts = new long[count];
        for (int i = 0; i < count; i++) {
            long at = (long) i * Off.SIZEOF_FORGET_ONE;
            ids[i] = i64(p, at + Off.FORGET_ONE_NODEID);
            counts[i] = i64(p, at + Off.FORGET_ONE_NLOOKUP);
        }
        return new Request.BatchForget(h, ids, counts);
    }

    private static Request write(Header h, MemorySegment in, MemorySegment p) {
        long size = Integer.toUnsignedLong(i32(in, Off.WRITE_IN_SIZE));
        if (size > p.byteSize()) throw new BadInput("size " + size + " but " + p.byteSize() + " data bytes");
        return new Request.Write(h, i64(in, Off.WRITE_IN_FH), i64(in, Off.WRITE_IN_OFFSET), i32(in, Off.WRITE_IN_WRITE_FLAGS),
                i64(in, Off.WRITE_IN_LOCK_OWNER), i32(in, Off.WRITE_IN_FLAGS), p.asSlice(0, size));
    }

    private Request setXattr(Header h, MemorySegment in, MemorySegment p) {
        long size = Integer.toUnsignedLong(i32(in, Off.SETXATTR_IN_SIZE));
        int nul = nul(p, 0);
        long valueAt = nul + 1L;
        if (valueAt + size > p.byteSize()) throw new BadInput("value of " + size + " bytes overruns the payload");
        return new Request.SetXattr(h, utf8(p, 0, nul), p.asSlice(valueAt, size), i32(in, Off.SETXATTR_IN_FLAGS),
                setxattrExt ? i32(in, Off.SETXATTR_IN_SETXATTR_FLAGS) : 0);
    }

    private static Request ioctl(Header h, MemorySegment in, MemorySegment p) {
        long inSize = Integer.toUnsignedLong(i32(in, Off.IOCTL_IN_IN_SIZE));
        if (inSize > p.byteSize()) throw new BadInput("in_size " + inSize + " overruns the payload");
        return new Request.Ioctl(h, i64(in, Off.IOCTL_IN_FH), i32(in, Off.IOCTL_IN_FLAGS), i32(in, Off.IOCTL_IN_CMD),
                i64(in, Off.IOCTL_IN_ARG), i32(in, Off.IOCTL_IN_OUT_SIZE), p.asSlice(0, inSize));
    }

    private static Request notifyReply(Header h, MemorySegment in, MemorySegment p) {
        long size = Integer.toUnsignedLong(i32(in, Off.NOTIFY_RETRIEVE_IN_SIZE));
        if (size > p.byteSize()) throw new BadInput("size " + size + " overruns the payload");
        return new Request.NotifyReply(h, i64(in, Off.NOTIFY_RETRIEVE_IN_OFFSET), (int) size, p.asSlice(0, size));
    }

    /** {@code count} NUL-terminated names from the start of {@code p}. */
    private static String[] names(MemorySegment p, int count) {
        String[] out = new String[count];
        long at = 0;
        for (int i = 0; i < count; i++) {
            int nul = nul(p, at);
            out[i] = utf8(p, at, nul);
            at = nul + 1L;
        }
        return out;
    }

    private static int nul(MemorySegment p, long from) {
        long size = p.byteSize();
        for (long i = from; i < size; i++) {
            if (p.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) == 0) return (int) i;
        }
        throw new BadInput("name without its NUL terminator");
    }

    private static String utf8(MemorySegment p, long from, long to) {
        byte[] b = p.asSlice(from, to - from).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        return dev.ringfuse.FileNames.decode(b);
    }

    /** Internal signal for input that cannot be decoded; never escapes {@link #decode}. */
    private static final class BadInput extends RuntimeException {
        BadInput(String message) {
            super(message, null, false, false);
        }
    }
}
