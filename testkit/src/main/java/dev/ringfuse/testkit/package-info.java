/**
 * Testing mounted filesystems.
 *
 * <ul>
 *   <li>{@link dev.ringfuse.testkit.FuseMount}: a JUnit 5 extension that mounts a ringfuse filesystem in a
 *       fresh temp directory, gives each test a fresh subdirectory and a hard timeout, and always unmounts
 *       (forcing it if close hangs).</li>
 *   <li>{@link dev.ringfuse.testkit.MountedFsKit}: the same tools without JUnit: mount points, mount table,
 *       abort and detach of a hung FUSE connection, bounded close.</li>
 *   <li>{@link dev.ringfuse.testkit.PosixScenarios}: the POSIX scenario suite; subclass it for your
 *       filesystem. The scenarios live in interfaces by area ({@code Posix*Scenarios}) that it combines.</li>
 *   <li>{@link dev.ringfuse.testkit.CoherenceStress}: a multi-process data-coherence stress (locked byte
 *       regions sharing pages, O_SYNC, O_DIRECT and aio writers, buffered/mmap/O_DIRECT readers) that fails
 *       on any byte read back that differs from what was written.</li>
 * </ul>
 *
 * <p>The suite needs Linux, root (it switches users with setpriv and creates device nodes), python3 and
 * util-linux for the child processes, and optionally fio.
 */
package dev.ringfuse.testkit;
