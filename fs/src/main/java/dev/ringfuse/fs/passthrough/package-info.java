/**
 * The passthrough filesystem: {@link dev.ringfuse.fs.passthrough.PassthroughFs} mirrors a source directory
 * with fd-relative system calls (openat2 with RESOLVE_BENEATH for every name), the caller's credentials
 * for new files, and kernel passthrough of reads and writes when available. See {@code fs/DESIGN.md}.
 */
package dev.ringfuse.fs.passthrough;
