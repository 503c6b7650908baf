package dev.ringfuse.kernel;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Pins every struct size and the opcode table to fuse_kernel.h 7.45 (sizes checked with gcc). */
class StructsTest {
    @Test
    void structSizesMatchTheHeader() {
        assertEquals(40, Off.SIZEOF_IN_HEADER);
        assertEquals(16, Off.SIZEOF_OUT_HEADER);
        assertEquals(88, Off.SIZEOF_ATTR);
        assertEquals(128, Off.SIZEOF_ENTRY_OUT);
        assertEquals(104, Off.SIZEOF_ATTR_OUT);
        assertEquals(88, Off.SIZEOF_SETATTR_IN);
        assertEquals(16, Off.SIZEOF_GETATTR_IN);
        assertEquals(16, Off.SIZEOF_MKNOD_IN);
        assertEquals(8, Off.SIZEOF_MKDIR_IN);
        assertEquals(16, Off.SIZEOF_RENAME2_IN);
        assertEquals(8, Off.SIZEOF_OPEN_IN);
        assertEquals(16, Off.SIZEOF_OPEN_OUT);
        assertEquals(16, Off.SIZEOF_CREATE_IN);
        assertEquals(40, Off.SIZEOF_READ_IN);
        assertEquals(40, Off.SIZEOF_WRITE_IN);
        assertEquals(8, Off.SIZEOF_WRITE_OUT);
        assertEquals(80, Off.SIZEOF_KSTATFS);
        assertEquals(24, Off.SIZEOF_RELEASE_IN);
        assertEquals(24, Off.SIZEOF_FLUSH_IN);
        assertEquals(16, Off.SIZEOF_FSYNC_IN);
        assertEquals(16, Off.SIZEOF_SETXATTR_IN);
        assertEquals(8, Off.SIZEOF_GETXATTR_IN);
        assertEquals(48, Off.SIZEOF_LK_IN);
        assertEquals(24, Off.SIZEOF_LK_OUT);
        assertEquals(64, Off.SIZEOF_INIT_IN);
        assertEquals(64, Off.SIZEOF_INIT_OUT);
        assertEquals(16, Off.SIZEOF_BMAP_IN);
        assertEquals(32, Off.SIZEOF_IOCTL_IN);
        assertEquals(16, Off.SIZEOF_IOCTL_OUT);
        assertEquals(24, Off.SIZEOF_POLL_IN);
        assertEquals(32, Off.SIZEOF_FALLOCATE_IN);
        assertEquals(24, Off.SIZEOF_LSEEK_IN);
        assertEquals(56, Off.SIZEOF_COPY_FILE_RANGE_IN);
        assertEquals(24, Off.SIZEOF_STATX_IN);
        assertEquals(256, Off.SIZEOF_STATX);
        assertEquals(288, Off.SIZEOF_STATX_OUT);
        assertEquals(24, Off.SIZEOF_DIRENT);
        assertEquals(16, Off.SIZEOF_FORGET_ONE);
        assertEquals(40, Off.SIZEOF_NOTIFY_RETRIEVE_IN);
        assertEquals(16, Off.SIZEOF_BACKING_MAP);
        assertEquals(288, Off.SIZEOF_URING_REQ_HEADER);
        assertEquals(24, Off.SIZEOF_URING_CMD_REQ);
        assertEquals(256, Off.URING_REQ_HEADER_RING_ENT_IN_OUT);
        assertEquals(8, Off.URING_ENT_IN_OUT_COMMIT_ID);
        assertEquals(16, Off.URING_ENT_IN_OUT_PAYLOAD_SZ);
    }

    @Test
    void opcodeTableMatchesTheProtocol() {
        int[][] rows = { // code, op struct size, names
                {1, 0, 1}, {2, 8, 0}, {3, 16, 0}, {4, 88, 0}, {5, 0, 0}, {6, 0, 2}, {8, 16, 1}, {9, 8, 1}, {10, 0, 1},
                {11, 0, 1}, {12, 8, 2}, {13, 8, 1}, {14, 8, 0}, {15, 40, 0}, {16, 40, 0}, {17, 0, 0}, {18, 24, 0},
                {20, 16, 0}, {21, 8, 1}, {22, 8, 1}, {23, 8, 0}, {24, 0, 1}, {25, 24, 0}, {26, 64, 0}, {27, 8, 0},
                {28, 40, 0}, {29, 24, 0}, {30, 16, 0}, {31, 48, 0}, {32, 48, 0}, {33, 48, 0}, {34, 8, 0},
                {35, 16, 1}, {36, 8, 0}, {37, 16, 0}, {38, 0, 0}, {39, 32, 0}, {40, 24, 0}, {41, 40, 0},
                {42, 8, 0}, {43, 32, 0}, {44, 40, 0}, {45, 16, 2}, {46, 24, 0}, {47, 56, 0}, {48, 40, 0},
                {49, 8, 0}, {50, 8, 0}, {51, 16, 1}, {52, 24, 0}, {53, 56, 0}};
        assertEquals(rows.length, Opcode.values().length, "one row per 7.45 opcode");
        for (int[] r : rows) {
            Opcode op = Opcode.of(r[0]);
            assertNotNull(op, "opcode " + r[0]);
            assertEquals(r[1], op.inSize(), op + " op struct size");
            assertEquals(r[2], op.names(), op + " names");
        }
        for (Opcode op : new Opcode[] {Opcode.FORGET, Opcode.BATCH_FORGET, Opcode.NOTIFY_REPLY, Opcode.INTERRUPT}) {
            assertEquals(true, op.noReply(), op + " gets no reply");
        }
    }
}
