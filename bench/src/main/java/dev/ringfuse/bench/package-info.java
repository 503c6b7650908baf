/**
 * JMH benchmarks of the io_uring binding against the JDK's file APIs, following JUring's methodology: random
 * aligned offsets in a pre-written file, several benchmark threads, queue depths 1/32/256, sizes 512 B to 64 KiB,
 * reads and writes, page cache and O_DIRECT. Each engine keeps its queue depth in flight in steady state and one
 * JMH invocation is one completed operation, so ops/s compare directly. {@link dev.ringfuse.bench.UringBench} runs
 * them programmatically and prints the table.
 */
package dev.ringfuse.bench;
