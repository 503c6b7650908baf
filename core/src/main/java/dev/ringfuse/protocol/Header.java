package dev.ringfuse.protocol;

/** fuse_in_header, decoded. {@code opcode} is the raw number (an unknown one is kept for the ENOSYS reply). */
public record Header(int len, int opcode, long unique, long nodeid, int uid, int gid, int pid, int extLen) {
}
