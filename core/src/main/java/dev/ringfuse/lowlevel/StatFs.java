package dev.ringfuse.lowlevel;

/** Filesystem statistics for statfs(2): counts in blocks of {@code frsize} bytes, and inodes. */
public record StatFs(long blocks, long bfree, long bavail, long files, long ffree, int bsize, int namelen,
                     int frsize) {
}
