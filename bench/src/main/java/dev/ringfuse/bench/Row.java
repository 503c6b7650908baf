package dev.ringfuse.bench;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;

/**
 * One measured configuration.
 *
 * @param qd effective queue depth: in-flight operations per ring (uring), per benchmark thread (virtual threads),
 *           or the number of blocking threads (FileChannel, RandomAccessFile)
 */
record Row(String engine, String op, int size, boolean direct, int qd, int threads, double opsPerSec,
           double error) {

    static Row of(String engine, int threads, RunResult r) {
        BenchmarkParams p = r.getParams();
        String qd = p.getParam("qd");
        String direct = p.getParam("direct");
        return new Row(engine, p.getParam("op"), Integer.parseInt(p.getParam("size")),
                Boolean.parseBoolean(direct), qd == null ? threads : Integer.parseInt(qd), threads,
                r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError());
    }

    double mibPerSec() {
        return opsPerSec * size / (1 << 20);
    }

    /** Same workload (op, size, cache mode), any depth. */
    boolean sameWorkload(Row o) {
        return op.equals(o.op) && size == o.size && direct == o.direct;
    }
}
