package dev.ringfuse.bench;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;

/**
 * One JMH result for one configuration in one round ({@code round} -1: the single-round matrix).
 *
 * @param qd effective queue depth: in-flight operations per ring (uring), per benchmark thread (virtual threads),
 *           or the number of blocking threads (FileChannel, RandomAccessFile)
 */
record Row(String engine, String op, int size, boolean direct, int qd, int threads, int round, double opsPerSec) {

    static Row of(String engine, int threads, int round, RunResult r) {
        BenchmarkParams p = r.getParams();
        String qd = p.getParam("qd");
        String direct = p.getParam("direct");
        return new Row(engine, p.getParam("op"), Integer.parseInt(p.getParam("size")),
                Boolean.parseBoolean(direct), qd == null ? threads : Integer.parseInt(qd), threads, round,
                r.getPrimaryResult().getScore());
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
