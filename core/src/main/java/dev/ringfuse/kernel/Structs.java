package dev.ringfuse.kernel;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

/**
 * Every fuse_kernel.h (7.45) struct as a {@link StructLayout}, with the protocol version that gave it its
 * current shape. Field offsets are derived from these layouts in {@link Off}; sizes are {@code byteSize()}.
 * Generated once from the 7.45 header's field lists; the unit test {@code StructsTest} pins every size.
 */
public final class Structs {
    private Structs() {}

    private static MemoryLayout pad(String name, long n) {
        return MemoryLayout.sequenceLayout(n, JAVA_BYTE).withName(name);
    }

    /** fuse_in_header (7.0). */
    public static final StructLayout FUSE_IN_HEADER = MemoryLayout.structLayout(
            JAVA_INT.withName("len"),
            JAVA_INT.withName("opcode"),
            JAVA_LONG.withName("unique"),
            JAVA_LONG.withName("nodeid"),
            JAVA_INT.withName("uid"),
            JAVA_INT.withName("gid"),
            JAVA_INT.withName("pid"),
            JAVA_SHORT.withName("total_extlen"),
            JAVA_SHORT.withName("padding")).withName("fuse_in_header");

    /** fuse_out_header (7.0). */
    public static final StructLayout FUSE_OUT_HEADER = MemoryLayout.structLayout(
            JAVA_INT.withName("len"),
            JAVA_INT.withName("error"),
            JAVA_LONG.withName("unique")).withName("fuse_out_header");

    /** fuse_attr (7.9). */
    public static final StructLayout FUSE_ATTR = MemoryLayout.structLayout(
            JAVA_LONG.withName("ino"),
            JAVA_LONG.withName("size"),
            JAVA_LONG.withName("blocks"),
            JAVA_LONG.withName("atime"),
            JAVA_LONG.withName("mtime"),
            JAVA_LONG.withName("ctime"),
            JAVA_INT.withName("atimensec"),
            JAVA_INT.withName("mtimensec"),
            JAVA_INT.withName("ctimensec"),
            JAVA_INT.withName("mode"),
            JAVA_INT.withName("nlink"),
            JAVA_INT.withName("uid"),
            JAVA_INT.withName("gid"),
            JAVA_INT.withName("rdev"),
            JAVA_INT.withName("blksize"),
            JAVA_INT.withName("flags")).withName("fuse_attr");

    /** fuse_entry_out (7.9). */
    public static final StructLayout FUSE_ENTRY_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("nodeid"),
            JAVA_LONG.withName("generation"),
            JAVA_LONG.withName("entry_valid"),
            JAVA_LONG.withName("attr_valid"),
            JAVA_INT.withName("entry_valid_nsec"),
            JAVA_INT.withName("attr_valid_nsec"),
            FUSE_ATTR.withName("attr")).withName("fuse_entry_out");

    /** fuse_attr_out (7.9). */
    public static final StructLayout FUSE_ATTR_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("attr_valid"),
            JAVA_INT.withName("attr_valid_nsec"),
            JAVA_INT.withName("dummy"),
            FUSE_ATTR.withName("attr")).withName("fuse_attr_out");

    /** fuse_forget_in (7.0). */
    public static final StructLayout FUSE_FORGET_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("nlookup")).withName("fuse_forget_in");

    /** fuse_forget_one (7.16). */
    public static final StructLayout FUSE_FORGET_ONE = MemoryLayout.structLayout(
            JAVA_LONG.withName("nodeid"),
            JAVA_LONG.withName("nlookup")).withName("fuse_forget_one");

    /** fuse_batch_forget_in (7.16). */
    public static final StructLayout FUSE_BATCH_FORGET_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("count"),
            JAVA_INT.withName("dummy")).withName("fuse_batch_forget_in");

    /** fuse_getattr_in (7.9). */
    public static final StructLayout FUSE_GETATTR_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("getattr_flags"),
            JAVA_INT.withName("dummy"),
            JAVA_LONG.withName("fh")).withName("fuse_getattr_in");

    /** fuse_setattr_in (7.23). */
    public static final StructLayout FUSE_SETATTR_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("valid"),
            JAVA_INT.withName("padding"),
            JAVA_LONG.withName("fh"),
            JAVA_LONG.withName("size"),
            JAVA_LONG.withName("lock_owner"),
            JAVA_LONG.withName("atime"),
            JAVA_LONG.withName("mtime"),
            JAVA_LONG.withName("ctime"),
            JAVA_INT.withName("atimensec"),
            JAVA_INT.withName("mtimensec"),
            JAVA_INT.withName("ctimensec"),
            JAVA_INT.withName("mode"),
            JAVA_INT.withName("unused4"),
            JAVA_INT.withName("uid"),
            JAVA_INT.withName("gid"),
            JAVA_INT.withName("unused5")).withName("fuse_setattr_in");

    /** fuse_mknod_in (7.12). */
    public static final StructLayout FUSE_MKNOD_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("mode"),
            JAVA_INT.withName("rdev"),
            JAVA_INT.withName("umask"),
            JAVA_INT.withName("padding")).withName("fuse_mknod_in");

    /** fuse_mkdir_in (7.12). */
    public static final StructLayout FUSE_MKDIR_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("mode"),
            JAVA_INT.withName("umask")).withName("fuse_mkdir_in");

    /** fuse_rename_in (7.0). */
    public static final StructLayout FUSE_RENAME_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("newdir")).withName("fuse_rename_in");

    /** fuse_rename2_in (7.23). */
    public static final StructLayout FUSE_RENAME2_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("newdir"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("padding")).withName("fuse_rename2_in");

    /** fuse_link_in (7.0). */
    public static final StructLayout FUSE_LINK_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("oldnodeid")).withName("fuse_link_in");

    /** fuse_open_in (7.0). */
    public static final StructLayout FUSE_OPEN_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("open_flags")).withName("fuse_open_in");

    /** fuse_create_in (7.12). */
    public static final StructLayout FUSE_CREATE_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("mode"),
            JAVA_INT.withName("umask"),
            JAVA_INT.withName("open_flags")).withName("fuse_create_in");

    /** fuse_open_out (7.40). */
    public static final StructLayout FUSE_OPEN_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_INT.withName("open_flags"),
            JAVA_INT.withName("backing_id")).withName("fuse_open_out");

    /** fuse_release_in (7.8). */
    public static final StructLayout FUSE_RELEASE_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("release_flags"),
            JAVA_LONG.withName("lock_owner")).withName("fuse_release_in");

    /** fuse_flush_in (7.7). */
    public static final StructLayout FUSE_FLUSH_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_INT.withName("unused"),
            JAVA_INT.withName("padding"),
            JAVA_LONG.withName("lock_owner")).withName("fuse_flush_in");

    /** fuse_read_in (7.9). */
    public static final StructLayout FUSE_READ_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_LONG.withName("offset"),
            JAVA_INT.withName("size"),
            JAVA_INT.withName("read_flags"),
            JAVA_LONG.withName("lock_owner"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("padding")).withName("fuse_read_in");

    /** fuse_write_in (7.9). */
    public static final StructLayout FUSE_WRITE_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_LONG.withName("offset"),
            JAVA_INT.withName("size"),
            JAVA_INT.withName("write_flags"),
            JAVA_LONG.withName("lock_owner"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("padding")).withName("fuse_write_in");

    /** fuse_write_out (7.0). */
    public static final StructLayout FUSE_WRITE_OUT = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("padding")).withName("fuse_write_out");

    /** fuse_kstatfs (7.0). */
    public static final StructLayout FUSE_KSTATFS = MemoryLayout.structLayout(
            JAVA_LONG.withName("blocks"),
            JAVA_LONG.withName("bfree"),
            JAVA_LONG.withName("bavail"),
            JAVA_LONG.withName("files"),
            JAVA_LONG.withName("ffree"),
            JAVA_INT.withName("bsize"),
            JAVA_INT.withName("namelen"),
            JAVA_INT.withName("frsize"),
            JAVA_INT.withName("padding"),
            pad("spare", 24)).withName("fuse_kstatfs");

    /** fuse_fsync_in (7.0). */
    public static final StructLayout FUSE_FSYNC_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_INT.withName("fsync_flags"),
            JAVA_INT.withName("padding")).withName("fuse_fsync_in");

    /** fuse_setxattr_in (7.33). */
    public static final StructLayout FUSE_SETXATTR_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("setxattr_flags"),
            JAVA_INT.withName("padding")).withName("fuse_setxattr_in");

    /** fuse_getxattr_in (7.0). */
    public static final StructLayout FUSE_GETXATTR_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("padding")).withName("fuse_getxattr_in");

    /** fuse_getxattr_out (7.0). */
    public static final StructLayout FUSE_GETXATTR_OUT = MemoryLayout.structLayout(
            JAVA_INT.withName("size"),
            JAVA_INT.withName("padding")).withName("fuse_getxattr_out");

    /** fuse_file_lock (7.0). */
    public static final StructLayout FUSE_FILE_LOCK = MemoryLayout.structLayout(
            JAVA_LONG.withName("start"),
            JAVA_LONG.withName("end"),
            JAVA_INT.withName("type"),
            JAVA_INT.withName("pid")).withName("fuse_file_lock");

    /** fuse_lk_in (7.9). */
    public static final StructLayout FUSE_LK_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_LONG.withName("owner"),
            FUSE_FILE_LOCK.withName("lk"),
            JAVA_INT.withName("lk_flags"),
            JAVA_INT.withName("padding")).withName("fuse_lk_in");

    /** fuse_lk_out (7.0). */
    public static final StructLayout FUSE_LK_OUT = MemoryLayout.structLayout(
            FUSE_FILE_LOCK.withName("lk")).withName("fuse_lk_out");

    /** fuse_access_in (7.0). */
    public static final StructLayout FUSE_ACCESS_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("mask"),
            JAVA_INT.withName("padding")).withName("fuse_access_in");

    /** fuse_init_in (7.36). */
    public static final StructLayout FUSE_INIT_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("major"),
            JAVA_INT.withName("minor"),
            JAVA_INT.withName("max_readahead"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("flags2"),
            pad("unused", 44)).withName("fuse_init_in");

    /** fuse_init_out (7.43). */
    public static final StructLayout FUSE_INIT_OUT = MemoryLayout.structLayout(
            JAVA_INT.withName("major"),
            JAVA_INT.withName("minor"),
            JAVA_INT.withName("max_readahead"),
            JAVA_INT.withName("flags"),
            JAVA_SHORT.withName("max_background"),
            JAVA_SHORT.withName("congestion_threshold"),
            JAVA_INT.withName("max_write"),
            JAVA_INT.withName("time_gran"),
            JAVA_SHORT.withName("max_pages"),
            JAVA_SHORT.withName("map_alignment"),
            JAVA_INT.withName("flags2"),
            JAVA_INT.withName("max_stack_depth"),
            JAVA_SHORT.withName("request_timeout"),
            pad("unused", 22)).withName("fuse_init_out");

    /** fuse_interrupt_in (7.0). */
    public static final StructLayout FUSE_INTERRUPT_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("unique")).withName("fuse_interrupt_in");

    /** fuse_bmap_in (7.0). */
    public static final StructLayout FUSE_BMAP_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("block"),
            JAVA_INT.withName("blocksize"),
            JAVA_INT.withName("padding")).withName("fuse_bmap_in");

    /** fuse_bmap_out (7.0). */
    public static final StructLayout FUSE_BMAP_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("block")).withName("fuse_bmap_out");

    /** fuse_ioctl_in (7.11). */
    public static final StructLayout FUSE_IOCTL_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("cmd"),
            JAVA_LONG.withName("arg"),
            JAVA_INT.withName("in_size"),
            JAVA_INT.withName("out_size")).withName("fuse_ioctl_in");

    /** fuse_ioctl_out (7.11). */
    public static final StructLayout FUSE_IOCTL_OUT = MemoryLayout.structLayout(
            JAVA_INT.withName("result"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("in_iovs"),
            JAVA_INT.withName("out_iovs")).withName("fuse_ioctl_out");

    /** fuse_poll_in (7.11). */
    public static final StructLayout FUSE_POLL_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_LONG.withName("kh"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("events")).withName("fuse_poll_in");

    /** fuse_poll_out (7.11). */
    public static final StructLayout FUSE_POLL_OUT = MemoryLayout.structLayout(
            JAVA_INT.withName("revents"),
            JAVA_INT.withName("padding")).withName("fuse_poll_out");

    /** fuse_fallocate_in (7.19). */
    public static final StructLayout FUSE_FALLOCATE_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_LONG.withName("offset"),
            JAVA_LONG.withName("length"),
            JAVA_INT.withName("mode"),
            JAVA_INT.withName("padding")).withName("fuse_fallocate_in");

    /** fuse_lseek_in (7.24). */
    public static final StructLayout FUSE_LSEEK_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh"),
            JAVA_LONG.withName("offset"),
            JAVA_INT.withName("whence"),
            JAVA_INT.withName("padding")).withName("fuse_lseek_in");

    /** fuse_lseek_out (7.24). */
    public static final StructLayout FUSE_LSEEK_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("offset")).withName("fuse_lseek_out");

    /** fuse_copy_file_range_in (7.28). */
    public static final StructLayout FUSE_COPY_FILE_RANGE_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("fh_in"),
            JAVA_LONG.withName("off_in"),
            JAVA_LONG.withName("nodeid_out"),
            JAVA_LONG.withName("fh_out"),
            JAVA_LONG.withName("off_out"),
            JAVA_LONG.withName("len"),
            JAVA_LONG.withName("flags")).withName("fuse_copy_file_range_in");

    /** fuse_copy_file_range_out (7.45). */
    public static final StructLayout FUSE_COPY_FILE_RANGE_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("bytes_copied")).withName("fuse_copy_file_range_out");

    /** fuse_syncfs_in (7.34). */
    public static final StructLayout FUSE_SYNCFS_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("padding")).withName("fuse_syncfs_in");

    /** fuse_statx_in (7.39). */
    public static final StructLayout FUSE_STATX_IN = MemoryLayout.structLayout(
            JAVA_INT.withName("getattr_flags"),
            JAVA_INT.withName("reserved"),
            JAVA_LONG.withName("fh"),
            JAVA_INT.withName("sx_flags"),
            JAVA_INT.withName("sx_mask")).withName("fuse_statx_in");

    /** fuse_sx_time (7.39). */
    public static final StructLayout FUSE_SX_TIME = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"),
            JAVA_INT.withName("tv_nsec"),
            JAVA_INT.withName("reserved")).withName("fuse_sx_time");

    /** fuse_statx (7.39). */
    public static final StructLayout FUSE_STATX = MemoryLayout.structLayout(
            JAVA_INT.withName("mask"),
            JAVA_INT.withName("blksize"),
            JAVA_LONG.withName("attributes"),
            JAVA_INT.withName("nlink"),
            JAVA_INT.withName("uid"),
            JAVA_INT.withName("gid"),
            JAVA_SHORT.withName("mode"),
            JAVA_SHORT.withName("spare0"),
            JAVA_LONG.withName("ino"),
            JAVA_LONG.withName("size"),
            JAVA_LONG.withName("blocks"),
            JAVA_LONG.withName("attributes_mask"),
            FUSE_SX_TIME.withName("atime"),
            FUSE_SX_TIME.withName("btime"),
            FUSE_SX_TIME.withName("ctime"),
            FUSE_SX_TIME.withName("mtime"),
            JAVA_INT.withName("rdev_major"),
            JAVA_INT.withName("rdev_minor"),
            JAVA_INT.withName("dev_major"),
            JAVA_INT.withName("dev_minor"),
            pad("spare2", 112)).withName("fuse_statx");

    /** fuse_statx_out (7.39). */
    public static final StructLayout FUSE_STATX_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("attr_valid"),
            JAVA_INT.withName("attr_valid_nsec"),
            JAVA_INT.withName("flags"),
            pad("spare", 16),
            FUSE_STATX.withName("stat")).withName("fuse_statx_out");

    /** fuse_dirent (7.0). */
    public static final StructLayout FUSE_DIRENT = MemoryLayout.structLayout(
            JAVA_LONG.withName("ino"),
            JAVA_LONG.withName("off"),
            JAVA_INT.withName("namelen"),
            JAVA_INT.withName("type")).withName("fuse_dirent");

    /** fuse_notify_poll_wakeup_out (7.11). */
    public static final StructLayout FUSE_NOTIFY_POLL_WAKEUP_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("kh")).withName("fuse_notify_poll_wakeup_out");

    /** fuse_notify_inval_inode_out (7.12). */
    public static final StructLayout FUSE_NOTIFY_INVAL_INODE_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("ino"),
            JAVA_LONG.withName("off"),
            JAVA_LONG.withName("len")).withName("fuse_notify_inval_inode_out");

    /** fuse_notify_inval_entry_out (7.12). */
    public static final StructLayout FUSE_NOTIFY_INVAL_ENTRY_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("parent"),
            JAVA_INT.withName("namelen"),
            JAVA_INT.withName("flags")).withName("fuse_notify_inval_entry_out");

    /** fuse_notify_delete_out (7.18). */
    public static final StructLayout FUSE_NOTIFY_DELETE_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("parent"),
            JAVA_LONG.withName("child"),
            JAVA_INT.withName("namelen"),
            JAVA_INT.withName("padding")).withName("fuse_notify_delete_out");

    /** fuse_notify_store_out (7.15). */
    public static final StructLayout FUSE_NOTIFY_STORE_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("nodeid"),
            JAVA_LONG.withName("offset"),
            JAVA_INT.withName("size"),
            JAVA_INT.withName("padding")).withName("fuse_notify_store_out");

    /** fuse_notify_retrieve_out (7.15). */
    public static final StructLayout FUSE_NOTIFY_RETRIEVE_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("notify_unique"),
            JAVA_LONG.withName("nodeid"),
            JAVA_LONG.withName("offset"),
            JAVA_INT.withName("size"),
            JAVA_INT.withName("padding")).withName("fuse_notify_retrieve_out");

    /** fuse_notify_retrieve_in (7.15). */
    public static final StructLayout FUSE_NOTIFY_RETRIEVE_IN = MemoryLayout.structLayout(
            JAVA_LONG.withName("dummy1"),
            JAVA_LONG.withName("offset"),
            JAVA_INT.withName("size"),
            JAVA_INT.withName("dummy2"),
            JAVA_LONG.withName("dummy3"),
            JAVA_LONG.withName("dummy4")).withName("fuse_notify_retrieve_in");

    /** fuse_backing_map (7.40). */
    public static final StructLayout FUSE_BACKING_MAP = MemoryLayout.structLayout(
            JAVA_INT.withName("fd"),
            JAVA_INT.withName("flags"),
            JAVA_LONG.withName("padding")).withName("fuse_backing_map");

    /** fuse_uring_ent_in_out (7.42). */
    public static final StructLayout FUSE_URING_ENT_IN_OUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("flags"),
            JAVA_LONG.withName("commit_id"),
            JAVA_INT.withName("payload_sz"),
            JAVA_INT.withName("padding"),
            JAVA_LONG.withName("reserved")).withName("fuse_uring_ent_in_out");

    /** fuse_uring_req_header (7.42). */
    public static final StructLayout FUSE_URING_REQ_HEADER = MemoryLayout.structLayout(
            pad("in_out", 128),
            pad("op_in", 128),
            FUSE_URING_ENT_IN_OUT.withName("ring_ent_in_out")).withName("fuse_uring_req_header");

    /** fuse_uring_cmd_req (7.42). */
    public static final StructLayout FUSE_URING_CMD_REQ = MemoryLayout.structLayout(
            JAVA_LONG.withName("flags"),
            JAVA_LONG.withName("commit_id"),
            JAVA_SHORT.withName("qid"),
            pad("padding", 6)).withName("fuse_uring_cmd_req");

    /** Offset of {@code field} in {@code layout}. */
    static long off(StructLayout layout, String field) {
        return layout.byteOffset(groupElement(field));
    }
}
