package dev.ringfuse.uring.internal;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

import static java.lang.foreign.MemoryLayout.paddingLayout;
import static java.lang.foreign.MemoryLayout.structLayout;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * The io_uring kernel ABI (uapi {@code linux/io_uring.h} as of Linux 6.18 / liburing 2.15), named as in C.
 *
 * <p>This is the only place that knows numeric offsets and flag values; everything else refers to these
 * names. Layouts are architecture independent (x86-64 and arm64 share them). Opcode numbers live in the
 * public {@code Opcode} enum, one row per opcode.
 */
public final class Abi {
    private Abi() {}

    // ---- syscalls (same numbers on x86-64 and arm64) ----
    public static final long SYS_io_uring_setup = 425;
    public static final long SYS_io_uring_enter = 426;
    public static final long SYS_io_uring_register = 427;

    // ---- io_uring_params.flags (IORING_SETUP_*) ----
    public static final int IORING_SETUP_IOPOLL = 1;
    public static final int IORING_SETUP_SQPOLL = 1 << 1;
    public static final int IORING_SETUP_SQ_AFF = 1 << 2;
    public static final int IORING_SETUP_CQSIZE = 1 << 3;
    public static final int IORING_SETUP_CLAMP = 1 << 4;
    public static final int IORING_SETUP_SUBMIT_ALL = 1 << 7;
    public static final int IORING_SETUP_COOP_TASKRUN = 1 << 8;
    public static final int IORING_SETUP_TASKRUN_FLAG = 1 << 9;
    public static final int IORING_SETUP_SQE128 = 1 << 10;
    public static final int IORING_SETUP_CQE32 = 1 << 11;
    public static final int IORING_SETUP_SINGLE_ISSUER = 1 << 12;
    public static final int IORING_SETUP_DEFER_TASKRUN = 1 << 13;
    public static final int IORING_SETUP_NO_SQARRAY = 1 << 16;

    // ---- io_uring_params.features (IORING_FEAT_*) ----
    public static final int IORING_FEAT_SINGLE_MMAP = 1;
    public static final int IORING_FEAT_NODROP = 1 << 1;
    public static final int IORING_FEAT_SUBMIT_STABLE = 1 << 2;
    public static final int IORING_FEAT_RW_CUR_POS = 1 << 3;
    public static final int IORING_FEAT_FAST_POLL = 1 << 5;
    public static final int IORING_FEAT_EXT_ARG = 1 << 8;
    public static final int IORING_FEAT_NATIVE_WORKERS = 1 << 9;
    public static final int IORING_FEAT_CQE_SKIP = 1 << 11;
    public static final int IORING_FEAT_LINKED_FILE = 1 << 12;

    // ---- sq ring flags (IORING_SQ_*) ----
    public static final int IORING_SQ_NEED_WAKEUP = 1;
    public static final int IORING_SQ_CQ_OVERFLOW = 1 << 1;
    public static final int IORING_SQ_TASKRUN = 1 << 2;

    // ---- io_uring_enter flags (IORING_ENTER_*) ----
    public static final int IORING_ENTER_GETEVENTS = 1;
    public static final int IORING_ENTER_SQ_WAKEUP = 1 << 1;
    public static final int IORING_ENTER_SQ_WAIT = 1 << 2;
    public static final int IORING_ENTER_EXT_ARG = 1 << 3;

    // ---- io_uring_register opcodes (IORING_REGISTER_*) ----
    public static final int IORING_REGISTER_BUFFERS = 0;
    public static final int IORING_UNREGISTER_BUFFERS = 1;
    public static final int IORING_REGISTER_FILES = 2;
    public static final int IORING_UNREGISTER_FILES = 3;
    public static final int IORING_REGISTER_EVENTFD = 4;
    public static final int IORING_UNREGISTER_EVENTFD = 5;
    public static final int IORING_REGISTER_PROBE = 8;

    // ---- SQE flags (IOSQE_*) ----
    public static final int IOSQE_FIXED_FILE = 1;
    public static final int IOSQE_IO_DRAIN = 1 << 1;
    public static final int IOSQE_IO_LINK = 1 << 2;
    public static final int IOSQE_IO_HARDLINK = 1 << 3;
    public static final int IOSQE_ASYNC = 1 << 4;
    public static final int IOSQE_CQE_SKIP_SUCCESS = 1 << 6;

    // ---- op-specific flags ----
    public static final int IORING_FSYNC_DATASYNC = 1;
    public static final int IORING_TIMEOUT_ABS = 1;
    public static final int IORING_ASYNC_CANCEL_ALL = 1;
    public static final int IORING_ASYNC_CANCEL_ANY = 1 << 2;
    public static final int IORING_OP_SUPPORTED = 1;

    // ---- mmap offsets (IORING_OFF_*) ----
    public static final long IORING_OFF_SQ_RING = 0L;
    public static final long IORING_OFF_CQ_RING = 0x8000000L;
    public static final long IORING_OFF_SQES = 0x10000000L;

    // ---- struct io_sqring_offsets (40 B) ----
    public static final StructLayout IO_SQRING_OFFSETS = structLayout(
            JAVA_INT.withName("head"), JAVA_INT.withName("tail"), JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"), JAVA_INT.withName("flags"), JAVA_INT.withName("dropped"),
            JAVA_INT.withName("array"), JAVA_INT.withName("resv1"), JAVA_LONG.withName("user_addr"))
            .withName("io_sqring_offsets");

    // ---- struct io_cqring_offsets (40 B) ----
    public static final StructLayout IO_CQRING_OFFSETS = structLayout(
            JAVA_INT.withName("head"), JAVA_INT.withName("tail"), JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"), JAVA_INT.withName("overflow"), JAVA_INT.withName("cqes"),
            JAVA_INT.withName("flags"), JAVA_INT.withName("resv1"), JAVA_LONG.withName("user_addr"))
            .withName("io_cqring_offsets");

    // ---- struct io_uring_params (120 B) ----
    public static final StructLayout IO_URING_PARAMS = structLayout(
            JAVA_INT.withName("sq_entries"), JAVA_INT.withName("cq_entries"), JAVA_INT.withName("flags"),
            JAVA_INT.withName("sq_thread_cpu"), JAVA_INT.withName("sq_thread_idle"),
            JAVA_INT.withName("features"), JAVA_INT.withName("wq_fd"),
            MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv"),
            IO_SQRING_OFFSETS.withName("sq_off"), IO_CQRING_OFFSETS.withName("cq_off"))
            .withName("io_uring_params");

    public static final long PARAMS_SQ_ENTRIES = off(IO_URING_PARAMS, "sq_entries");
    public static final long PARAMS_CQ_ENTRIES = off(IO_URING_PARAMS, "cq_entries");
    public static final long PARAMS_FLAGS = off(IO_URING_PARAMS, "flags");
    public static final long PARAMS_SQ_THREAD_IDLE = off(IO_URING_PARAMS, "sq_thread_idle");
    public static final long PARAMS_FEATURES = off(IO_URING_PARAMS, "features");
    public static final long PARAMS_SQ_OFF = off(IO_URING_PARAMS, "sq_off");
    public static final long PARAMS_CQ_OFF = off(IO_URING_PARAMS, "cq_off");
    // offsets inside io_sqring_offsets / io_cqring_offsets
    public static final long SQOFF_HEAD = off(IO_SQRING_OFFSETS, "head");
    public static final long SQOFF_TAIL = off(IO_SQRING_OFFSETS, "tail");
    public static final long SQOFF_RING_MASK = off(IO_SQRING_OFFSETS, "ring_mask");
    public static final long SQOFF_RING_ENTRIES = off(IO_SQRING_OFFSETS, "ring_entries");
    public static final long SQOFF_FLAGS = off(IO_SQRING_OFFSETS, "flags");
    public static final long SQOFF_DROPPED = off(IO_SQRING_OFFSETS, "dropped");
    public static final long SQOFF_ARRAY = off(IO_SQRING_OFFSETS, "array");
    public static final long CQOFF_HEAD = off(IO_CQRING_OFFSETS, "head");
    public static final long CQOFF_TAIL = off(IO_CQRING_OFFSETS, "tail");
    public static final long CQOFF_RING_MASK = off(IO_CQRING_OFFSETS, "ring_mask");
    public static final long CQOFF_RING_ENTRIES = off(IO_CQRING_OFFSETS, "ring_entries");
    public static final long CQOFF_OVERFLOW = off(IO_CQRING_OFFSETS, "overflow");
    public static final long CQOFF_CQES = off(IO_CQRING_OFFSETS, "cqes");

    // ---- struct io_uring_sqe (64 B, or 128 B with SQE128: the big command area follows) ----
    public static final StructLayout IO_URING_SQE = structLayout(
            JAVA_BYTE.withName("opcode"), JAVA_BYTE.withName("flags"), JAVA_SHORT.withName("ioprio"),
            JAVA_INT.withName("fd"),
            JAVA_LONG.withName("off"),          // union: off | addr2 | { u32 cmd_op; u32 __pad1; }
            JAVA_LONG.withName("addr"),         // union: addr | splice_off_in | { level, optname }
            JAVA_INT.withName("len"),
            JAVA_INT.withName("op_flags"),      // union: rw_flags | fsync_flags | open_flags | ... | uring_cmd_flags
            JAVA_LONG.withName("user_data"),
            JAVA_SHORT.withName("buf_index"),   // union: buf_index | buf_group
            JAVA_SHORT.withName("personality"),
            JAVA_INT.withName("splice_fd_in"),  // union: splice_fd_in | file_index | optlen | addr_len
            JAVA_LONG.withName("addr3"),        // union: addr3 | cmd[0] (the command area starts here)
            paddingLayout(8))
            .withName("io_uring_sqe");

    public static final long SQE_SIZE = IO_URING_SQE.byteSize();       // 64
    public static final long SQE128_SIZE = 2 * SQE_SIZE;               // 128
    public static final long SQE_OPCODE = off(IO_URING_SQE, "opcode");
    public static final long SQE_FLAGS = off(IO_URING_SQE, "flags");
    public static final long SQE_IOPRIO = off(IO_URING_SQE, "ioprio");
    public static final long SQE_FD = off(IO_URING_SQE, "fd");
    public static final long SQE_OFF = off(IO_URING_SQE, "off");
    /** {@code addr2} shares the {@code off} slot. */
    public static final long SQE_ADDR2 = SQE_OFF;
    /** {@code cmd_op} (u32) shares the {@code off} slot; for IORING_OP_URING_CMD. */
    public static final long SQE_CMD_OP = SQE_OFF;
    public static final long SQE_ADDR = off(IO_URING_SQE, "addr");
    /** {@code splice_off_in} shares the {@code addr} slot. */
    public static final long SQE_SPLICE_OFF_IN = SQE_ADDR;
    public static final long SQE_LEN = off(IO_URING_SQE, "len");
    public static final long SQE_OP_FLAGS = off(IO_URING_SQE, "op_flags");
    public static final long SQE_USER_DATA = off(IO_URING_SQE, "user_data");
    public static final long SQE_BUF_INDEX = off(IO_URING_SQE, "buf_index");
    public static final long SQE_PERSONALITY = off(IO_URING_SQE, "personality");
    public static final long SQE_SPLICE_FD_IN = off(IO_URING_SQE, "splice_fd_in");
    /** {@code file_index} shares the {@code splice_fd_in} slot. */
    public static final long SQE_FILE_INDEX = SQE_SPLICE_FD_IN;
    public static final long SQE_ADDR3 = off(IO_URING_SQE, "addr3");
    /** The URING_CMD command area starts at {@code addr3}: 16 B in a 64-B SQE, 80 B in a 128-B SQE. */
    public static final long SQE_CMD = SQE_ADDR3;
    public static final long SQE_CMD_SIZE_SQE128 = SQE128_SIZE - SQE_CMD; // 80

    // ---- struct io_uring_cqe (16 B, or 32 B with CQE32: big_cqe[2] follows) ----
    public static final StructLayout IO_URING_CQE = structLayout(
            JAVA_LONG.withName("user_data"), JAVA_INT.withName("res"), JAVA_INT.withName("flags"))
            .withName("io_uring_cqe");
    public static final long CQE_SIZE = IO_URING_CQE.byteSize();        // 16
    public static final long CQE32_SIZE = 2 * CQE_SIZE;                 // 32
    public static final long CQE_USER_DATA = off(IO_URING_CQE, "user_data");
    public static final long CQE_RES = off(IO_URING_CQE, "res");
    public static final long CQE_FLAGS = off(IO_URING_CQE, "flags");
    public static final long CQE_BIG = CQE_SIZE;

    // ---- struct io_uring_probe (16 B header) + io_uring_probe_op (8 B each) ----
    public static final StructLayout IO_URING_PROBE_OP = structLayout(
            JAVA_BYTE.withName("op"), JAVA_BYTE.withName("resv"), JAVA_SHORT.withName("flags"),
            JAVA_INT.withName("resv2")).withName("io_uring_probe_op");
    public static final StructLayout IO_URING_PROBE = structLayout(
            JAVA_BYTE.withName("last_op"), JAVA_BYTE.withName("ops_len"), JAVA_SHORT.withName("resv"),
            MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv2")).withName("io_uring_probe");
    public static final int PROBE_MAX_OPS = 256;
    public static final long PROBE_LAST_OP = off(IO_URING_PROBE, "last_op");
    public static final long PROBE_OPS = IO_URING_PROBE.byteSize();
    public static final long PROBE_OP_SIZE = IO_URING_PROBE_OP.byteSize();
    public static final long PROBE_OP_FLAGS = off(IO_URING_PROBE_OP, "flags");

    // ---- struct iovec (16 B), struct __kernel_timespec (16 B), struct open_how (24 B) ----
    public static final StructLayout IOVEC = structLayout(
            JAVA_LONG.withName("iov_base"), JAVA_LONG.withName("iov_len")).withName("iovec");
    public static final long IOVEC_BASE = off(IOVEC, "iov_base");
    public static final long IOVEC_LEN = off(IOVEC, "iov_len");
    public static final StructLayout KERNEL_TIMESPEC = structLayout(
            JAVA_LONG.withName("tv_sec"), JAVA_LONG.withName("tv_nsec")).withName("__kernel_timespec");
    public static final StructLayout OPEN_HOW = structLayout(
            JAVA_LONG.withName("flags"), JAVA_LONG.withName("mode"), JAVA_LONG.withName("resolve"))
            .withName("open_how");

    // ---- struct io_uring_getevents_arg (24 B), for IORING_ENTER_EXT_ARG ----
    public static final StructLayout IO_URING_GETEVENTS_ARG = structLayout(
            JAVA_LONG.withName("sigmask"), JAVA_INT.withName("sigmask_sz"), JAVA_INT.withName("min_wait_usec"),
            JAVA_LONG.withName("ts")).withName("io_uring_getevents_arg");
    public static final long GETEVENTS_ARG_TS = off(IO_URING_GETEVENTS_ARG, "ts");

    // ---- libc constants used by the binding itself ----
    public static final int PROT_READ = 1;
    public static final int PROT_WRITE = 2;
    public static final int MAP_SHARED = 1;
    public static final int MAP_POPULATE = 0x8000;
    public static final int EFD_CLOEXEC = 0x80000;
    public static final int AT_FDCWD = -100;

    private static long off(MemoryLayout layout, String field) {
        return layout.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }

    /** Load-acquire/store-release view of a u32 in shared ring memory: coordinates (MemorySegment, long). */
    public static final java.lang.invoke.VarHandle U32 = ValueLayout.JAVA_INT.varHandle();
}
