package dev.ringfuse.uring;

import dev.ringfuse.uring.internal.Abi;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * A cursor over one submission queue entry in ring memory, handed out zeroed by {@link IoUring#nextSqe()}.
 *
 * <p>Each ring reuses a single {@code Sqe} object: it is valid until the next {@code nextSqe()} call and must be
 * filled by the ring's owner thread. The {@code prep*} methods mirror liburing's {@code io_uring_prep_*} and set
 * only the fields of their operation (the entry starts zeroed); the raw setters cover everything else.
 * Every method returns {@code this} so a submission reads as one chain:
 * <pre>{@code ring.nextSqe().prepRead(fd, buf, 0).userData(42);}</pre>
 *
 * <p>Memory referenced by an SQE (buffers, paths, iovecs, timespecs) must be native, and must stay valid until the
 * operation completes: read and write buffers because the kernel uses them asynchronously, the rest because
 * some kernels copy them only when the request is issued.
 */
public final class Sqe {
    private final MemorySegment sqes;
    private final boolean big;
    private long base;

    Sqe(MemorySegment sqes, boolean big) {
        this.sqes = sqes;
        this.big = big;
    }

    Sqe at(long offset) {
        this.base = offset;
        return this;
    }

    // ------------------------------------------------------------------ raw fields

    /** The operation; the {@code prep*} methods set it for you. */
    public Sqe opcode(Opcode op) { sqes.set(JAVA_BYTE, base + Abi.SQE_OPCODE, (byte) op.code()); return this; }

    /** IOSQE_* flags, replacing what is there. */
    public Sqe flags(int iosqeFlags) { sqes.set(JAVA_BYTE, base + Abi.SQE_FLAGS, (byte) iosqeFlags); return this; }

    /** The IOSQE_* flags set so far. */
    public int flags() { return sqes.get(JAVA_BYTE, base + Abi.SQE_FLAGS) & 0xff; }

    /** {@code ioprio}: an I/O priority (ioprio_set(2) encoding) for reads and writes, op-specific bits for others. */
    public Sqe ioprio(int prio) { sqes.set(JAVA_SHORT, base + Abi.SQE_IOPRIO, (short) prio); return this; }

    /** A file descriptor, or an index into the registered file table together with {@link #fixedFile()}. */
    public Sqe fd(int fd) { sqes.set(JAVA_INT, base + Abi.SQE_FD, fd); return this; }

    /** {@code off}: the file offset for reads and writes (-1: the current position); other ops reuse the field. */
    public Sqe off(long off) { sqes.set(JAVA_LONG, base + Abi.SQE_OFF, off); return this; }

    /** {@code addr}: usually the address of the buffer, path or struct the operation reads or fills. */
    public Sqe addr(long addr) { sqes.set(JAVA_LONG, base + Abi.SQE_ADDR, addr); return this; }

    /** {@code addr} = the address of {@code seg}, which must be native (IllegalArgumentException otherwise). */
    public Sqe addr(MemorySegment seg) { return addr(nativeAddress(seg)); }

    /** {@code addr2} (shares its place with {@code off}): a second address, e.g. the new path of RENAMEAT. */
    public Sqe addr2(long addr2) { sqes.set(JAVA_LONG, base + Abi.SQE_ADDR2, addr2); return this; }

    /** {@code addr3}: a third address (URING_CMD, SQE128 layouts). */
    public Sqe addr3(long addr3) { sqes.set(JAVA_LONG, base + Abi.SQE_ADDR3, addr3); return this; }

    /** {@code len}: a byte count for reads and writes, an iovec count for READV/WRITEV, op-specific otherwise. */
    public Sqe len(int len) { sqes.set(JAVA_INT, base + Abi.SQE_LEN, len); return this; }

    /** The per-op flags word (rw_flags, fsync_flags, open_flags, statx_flags, uring_cmd_flags, ...). */
    public Sqe opFlags(int flags) { sqes.set(JAVA_INT, base + Abi.SQE_OP_FLAGS, flags); return this; }

    /** {@code user_data}: copied unchanged into the operation's CQE, to tell which request completed. */
    public Sqe userData(long userData) { sqes.set(JAVA_LONG, base + Abi.SQE_USER_DATA, userData); return this; }

    /** The {@code user_data} set so far. */
    public long userData() { return sqes.get(JAVA_LONG, base + Abi.SQE_USER_DATA); }

    /** {@code buf_index}: the registered buffer READ_FIXED/WRITE_FIXED use ({@link IoUring#registerBuffers}). */
    public Sqe bufIndex(int index) { sqes.set(JAVA_SHORT, base + Abi.SQE_BUF_INDEX, (short) index); return this; }

    /** {@code personality}: run with credentials registered by IORING_REGISTER_PERSONALITY (0: the submitter's). */
    public Sqe personality(int id) { sqes.set(JAVA_SHORT, base + Abi.SQE_PERSONALITY, (short) id); return this; }

    /** {@code splice_fd_in}: the input descriptor of SPLICE and TEE. */
    public Sqe spliceFdIn(int fd) { sqes.set(JAVA_INT, base + Abi.SQE_SPLICE_FD_IN, fd); return this; }

    /** {@code file_index}: for OPENAT/ACCEPT "direct" descriptors this is slot + 1; 0 means a normal fd. */
    public Sqe fileIndex(int fileIndex) { sqes.set(JAVA_INT, base + Abi.SQE_FILE_INDEX, fileIndex); return this; }

    /** {@code cmd_op} (u32 at SQE+8) of a URING_CMD. */
    public Sqe cmdOp(int cmdOp) { sqes.set(JAVA_INT, base + Abi.SQE_CMD_OP, cmdOp); return this; }

    /** Sets IOSQE_FIXED_FILE: {@link #fd(int)} is an index into the registered file table. */
    public Sqe fixedFile() { return flags(flags() | Abi.IOSQE_FIXED_FILE); }

    /** Sets IOSQE_IO_LINK: the next SQE starts only after this one succeeds. */
    public Sqe link() { return flags(flags() | Abi.IOSQE_IO_LINK); }

    /** Sets IOSQE_IO_HARDLINK: the next SQE starts after this one, even if it fails. */
    public Sqe hardLink() { return flags(flags() | Abi.IOSQE_IO_HARDLINK); }

    /** Sets IOSQE_IO_DRAIN: start only after all earlier SQEs complete. */
    public Sqe drain() { return flags(flags() | Abi.IOSQE_IO_DRAIN); }

    /**
     * Sets IOSQE_ASYNC: always punt to an io-wq worker, skipping the non-blocking attempt. On 6.18 the punt happens
     * before the file is looked up, so io-wq cannot see a regular file: the request is unbound work, not hashed to
     * its inode. Buffered writes to one file then get a worker each (13–17 per ring of 16 measured) that all queue
     * on the inode lock, where without the flag the refused attempt is punted hashed and they run on one worker
     * (3.4–3.5 against 2.3–2.6 µs of process CPU per write measured): leave it off for buffered file writes.
     */
    public Sqe async() { return flags(flags() | Abi.IOSQE_ASYNC); }

    /** Sets IOSQE_CQE_SKIP_SUCCESS: no CQE unless the operation fails. */
    public Sqe skipSuccess() { return flags(flags() | Abi.IOSQE_CQE_SKIP_SUCCESS); }

    /**
     * The command area of a URING_CMD: 80 bytes at SQE+48 on an SQE128 ring, 16 bytes otherwise. Write the
     * driver's command struct here (for FUSE: {@code fuse_uring_cmd_req}); valid until the next {@code nextSqe()}.
     */
    public MemorySegment cmd() {
        return sqes.asSlice(base + Abi.SQE_CMD, big ? Abi.SQE_CMD_SIZE_SQE128 : Abi.SQE_SIZE - Abi.SQE_CMD);
    }

    /** The whole entry (64 or 128 bytes), for fields this class does not name. */
    public MemorySegment segment() {
        return sqes.asSlice(base, big ? Abi.SQE128_SIZE : Abi.SQE_SIZE);
    }

    // ------------------------------------------------------------------ preparation helpers

    /** io_uring_prep_rw: the common shape (opcode, fd, addr, len, off). */
    public Sqe prepRw(Opcode op, int fd, long addr, int len, long off) {
        return opcode(op).fd(fd).addr(addr).len(len).off(off);
    }

    /** NOP: completes at once with 0; for measuring the ring itself or waking its owner. */
    public Sqe prepNop() { return opcode(Opcode.NOP); }

    /** READ into {@code buf} at file offset {@code off} (-1: current position). */
    public Sqe prepRead(int fd, MemorySegment buf, long off) {
        return prepRw(Opcode.READ, fd, nativeAddress(buf), length(buf), off);
    }

    /** WRITE from {@code buf} at file offset {@code off} (-1: current position); may complete short. */
    public Sqe prepWrite(int fd, MemorySegment buf, long off) {
        return prepRw(Opcode.WRITE, fd, nativeAddress(buf), length(buf), off);
    }

    /** READV into {@code nr} {@code struct iovec}s at {@code iovecs}. */
    public Sqe prepReadv(int fd, MemorySegment iovecs, int nr, long off) {
        return prepRw(Opcode.READV, fd, nativeAddress(iovecs), nr, off);
    }

    /** WRITEV from {@code nr} {@code struct iovec}s at {@code iovecs}. */
    public Sqe prepWritev(int fd, MemorySegment iovecs, int nr, long off) {
        return prepRw(Opcode.WRITEV, fd, nativeAddress(iovecs), nr, off);
    }

    /** READ_FIXED into (part of) registered buffer {@code bufIndex}; {@code buf} must lie inside it. */
    public Sqe prepReadFixed(int fd, MemorySegment buf, long off, int bufIndex) {
        return prepRw(Opcode.READ_FIXED, fd, nativeAddress(buf), length(buf), off).bufIndex(bufIndex);
    }

    /** WRITE_FIXED from (part of) registered buffer {@code bufIndex}; {@code buf} must lie inside it. */
    public Sqe prepWriteFixed(int fd, MemorySegment buf, long off, int bufIndex) {
        return prepRw(Opcode.WRITE_FIXED, fd, nativeAddress(buf), length(buf), off).bufIndex(bufIndex);
    }

    /** FSYNC, or fdatasync semantics with {@code datasync}. */
    public Sqe prepFsync(int fd, boolean datasync) {
        return opcode(Opcode.FSYNC).fd(fd).opFlags(datasync ? Abi.IORING_FSYNC_DATASYNC : 0);
    }

    /** OPENAT: {@code path} is a NUL-terminated string; use {@link IoUring#AT_FDCWD} for relative paths. */
    public Sqe prepOpenat(int dirfd, MemorySegment path, int flags, int mode) {
        return prepRw(Opcode.OPENAT, dirfd, nativeAddress(path), mode, 0).opFlags(flags);
    }

    /** OPENAT2 with a {@code struct open_how} (24 bytes: flags, mode, resolve). */
    public Sqe prepOpenat2(int dirfd, MemorySegment path, MemorySegment openHow) {
        return prepRw(Opcode.OPENAT2, dirfd, nativeAddress(path), (int) Abi.OPEN_HOW.byteSize(),
                nativeAddress(openHow));
    }

    /** CLOSE of a normal descriptor. */
    public Sqe prepClose(int fd) { return opcode(Opcode.CLOSE).fd(fd); }

    /** CLOSE of a registered (direct) descriptor. */
    public Sqe prepCloseDirect(int fileIndex) { return opcode(Opcode.CLOSE).fileIndex(fileIndex + 1); }

    /** STATX into a 256-byte {@code struct statx} buffer. */
    public Sqe prepStatx(int dirfd, MemorySegment path, int flags, int mask, MemorySegment statxBuf) {
        return prepRw(Opcode.STATX, dirfd, nativeAddress(path), mask, nativeAddress(statxBuf)).opFlags(flags);
    }

    /** FALLOCATE: note the ABI puts the length in {@code addr} and the mode in {@code len}. */
    public Sqe prepFallocate(int fd, int mode, long offset, long length) {
        return prepRw(Opcode.FALLOCATE, fd, length, mode, offset);
    }

    /** RENAMEAT: the new directory fd travels in {@code len}, the new path in {@code addr2}. */
    public Sqe prepRenameat(int oldDirfd, MemorySegment oldPath, int newDirfd, MemorySegment newPath, int flags) {
        return prepRw(Opcode.RENAMEAT, oldDirfd, nativeAddress(oldPath), newDirfd, nativeAddress(newPath))
                .opFlags(flags);
    }

    /** UNLINKAT; {@code flags} = AT_REMOVEDIR (0x200) removes a directory. */
    public Sqe prepUnlinkat(int dirfd, MemorySegment path, int flags) {
        return prepRw(Opcode.UNLINKAT, dirfd, nativeAddress(path), 0, 0).opFlags(flags);
    }

    /** MKDIRAT: {@code path} NUL-terminated, relative to {@code dirfd}; {@code mode} is masked by the umask. */
    public Sqe prepMkdirat(int dirfd, MemorySegment path, int mode) {
        return prepRw(Opcode.MKDIRAT, dirfd, nativeAddress(path), mode, 0);
    }

    /** SYMLINKAT: creates {@code linkPath} (relative to {@code newDirfd}) pointing at {@code target}. */
    public Sqe prepSymlinkat(MemorySegment target, int newDirfd, MemorySegment linkPath) {
        return prepRw(Opcode.SYMLINKAT, newDirfd, nativeAddress(target), 0, nativeAddress(linkPath));
    }

    /** LINKAT: a new name {@code newPath} for {@code oldPath}; {@code flags} AT_SYMLINK_FOLLOW (0x400) follows a symlink. */
    public Sqe prepLinkat(int oldDirfd, MemorySegment oldPath, int newDirfd, MemorySegment newPath, int flags) {
        return prepRw(Opcode.LINKAT, oldDirfd, nativeAddress(oldPath), newDirfd, nativeAddress(newPath))
                .opFlags(flags);
    }

    /** FTRUNCATE (Linux 6.9+; check {@link Features#supports}). */
    public Sqe prepFtruncate(int fd, long length) {
        return prepRw(Opcode.FTRUNCATE, fd, 0, 0, length);
    }

    /** SPLICE {@code len} bytes; an offset of -1 means "no offset" (required for pipes). */
    public Sqe prepSplice(int fdIn, long offIn, int fdOut, long offOut, int len, int spliceFlags) {
        return prepRw(Opcode.SPLICE, fdOut, offIn, len, offOut).spliceFdIn(fdIn).opFlags(spliceFlags);
    }

    /**
     * URING_CMD to a driver (e.g. /dev/fuse): {@code cmd_op} at SQE+8; fill {@link #cmd()} and, if the
     * command takes them, {@link #addr} and {@link #len}. Needs an SQE128 ring for commands over 16 bytes.
     */
    public Sqe prepUringCmd(int fd, int cmdOp) {
        return opcode(Opcode.URING_CMD).fd(fd).cmdOp(cmdOp);
    }

    /**
     * TIMEOUT: completes with -ETIME after {@code timespec} (16-byte {@code __kernel_timespec}), or with 0
     * once {@code count} other completions have arrived (0: pure timer).
     */
    public Sqe prepTimeout(MemorySegment timespec, int count, int timeoutFlags) {
        return prepRw(Opcode.TIMEOUT, -1, nativeAddress(timespec), 1, count).opFlags(timeoutFlags);
    }

    /** LINK_TIMEOUT: put right after an SQE marked {@link #link()}; cancels it if it takes too long. */
    public Sqe prepLinkTimeout(MemorySegment timespec, int timeoutFlags) {
        return prepRw(Opcode.LINK_TIMEOUT, -1, nativeAddress(timespec), 1, 0).opFlags(timeoutFlags);
    }

    /** ASYNC_CANCEL of the request whose user_data is {@code target} (cancelFlags 0: the first match). */
    public Sqe prepCancel(long target, int cancelFlags) {
        return prepRw(Opcode.ASYNC_CANCEL, -1, target, 0, 0).opFlags(cancelFlags);
    }

    /** POLL_ADD: one-shot poll for {@code pollMask} (POLLIN = 1, POLLOUT = 4, ...). */
    public Sqe prepPollAdd(int fd, int pollMask) {
        return opcode(Opcode.POLL_ADD).fd(fd).opFlags(pollMask);
    }

    private static long nativeAddress(MemorySegment seg) {
        if (!seg.isNative()) throw new IllegalArgumentException("io_uring needs native memory, got a heap segment");
        return seg.address();
    }

    private static int length(MemorySegment buf) {
        long n = buf.byteSize();
        if (n > Integer.MAX_VALUE) throw new IllegalArgumentException("buffer larger than 2 GiB: " + n);
        return (int) n;
    }
}
