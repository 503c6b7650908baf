package dev.ringfuse.testkit.internal;

/** The fields of statfs(2). */
public record StatFs(long type, long bsize, long blocks, long bfree, long bavail, long files, long ffree,
                     long namelen, long frsize) {}
