package dev.ringfuse.bench;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;

/**
 * One JMH result for one configuration in one round ({@code round} -1: the single-round matrix).
 *
 * @param qd effective queue depth: in-flight operations per ring (uring), per benchmark thread (virtual threads),
 *           or the number of blocking threads (FileChannel, RandomAccessFile)
 * @param cpuNsPerOp process CPU per operation (all threads, io-wq workers included), ns
 */
record Row(String engine, String op, int size, boolean direct, int qd, int threads, int round, double opsPerSec,
           double cpuNsPerOp) {

    static Row of(String engine, int threads, int round, RunResult r) {
        BenchmarkParams p = r.getParams();
        String qd = p.getParam("qd");
        String direct = p.getParam("direct");
        return new Row(engine, p.getParam("op"), Integer.parseInt(p.getParam("size")),
                Boolean.parseBoolean(direct), qd == null ? threads : Integer.parseInt(qd), threads, round,
                r.getPrimaryResult().getScore(), cpuPerOp(r));
    }

    /** Process CPU per operation in ns ({@link CpuCounters}), NaN if the benchmark did not record it. */
    private static double cpuPerOp(RunResult r) {
        var cpu = r.getSecondaryResults().get("cpuNs");
        var ops = r.getSecondaryResults().get("ops");
        return cpu == null || ops == null || ops.getScore() == 0 ? Double.NaN : cpu.getScore() / ops.getScore();
    }

    /** The configuration, without the round and the score. */
    String key() {
        return engine + "/" + op + "/" + size + "/" + direct + "/" + qd + "/" + threads;
    }

    /** Same workload (op, size, cache mode), any depth. */
    boolean sameWorkload(Row o) {
        return op.equals(o.op) && size == o.size && direct == o.direct;
    }
}
