#!/usr/bin/env bash
# tree-cpu.sh REV [ROUNDS] [FILES]: thread CPU time of the B-tree work of creating and unlinking FILES files in one
# directory (per file: put of its inode, of a dirent bucket, of the directory's inode; then the deletes and the
# directory's put), this tree's pool against git revision REV's, in alternated JVMs, on a memory device. No
# FUSE, no device I/O: only what the tree code costs. Needs a built tree (mvn -o -pl pool -am test-compile).
set -euo pipefail
REV=${1:?usage: tree-cpu.sh REV [ROUNDS] [FILES]}
ROUNDS=${2:-3}
FILES=${3:-30000}
HERE=$(cd "$(dirname "$0")/.." && pwd)
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
JAVAC=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/javac
DEPS=$HERE/core/target/classes:$HERE/uring/target/classes:$HOME/.m2/repository/io/airlift/aircompressor/2.0.3/aircompressor-2.0.3.jar
WORK=$(mktemp -d /var/tmp/tree-cpu.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/base"
git -C "$HERE" archive "$REV" pool/src/main/java | tar -x -C "$WORK/base"
"$JAVAC" -nowarn -d "$WORK/base/classes" -cp "$DEPS" $(find "$WORK/base/pool/src/main/java" -name '*.java' ! -name module-info.java)
declare -A CP=([base]="$WORK/base/classes:$DEPS" [new]="$HERE/pool/target/classes:$DEPS")
cat > "$WORK/TreeBench.java" <<'JAVA'
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.tree.BTree;
import dev.ringfuse.pool.tree.Key;
import dev.ringfuse.pool.txg.Pool;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;

public class TreeBench {
    static Key dirent(long ino) {
        return new Key(1, 32, (Long.rotateLeft(ino * 0x9E3779B97F4A7C15L, 17) & 0x3FFFFFFFFFFFFF00L) | 0x100);
    }

    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        var mx = ManagementFactory.getThreadMXBean();
        Pool p = Pool.create("tb", List.<BlockDevice>of(new MemoryDevice("m", 1L << 30)));
        BTree t = p.createDataset("tb/ds", Map.of("compression", "off")).tree();
        byte[] inode = new byte[112], dirent = new byte[30];
        for (int round = 0; round < 6; round++) {
            long c0 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                t.put(new Key(1000L + i, 16, 0), inode);
                t.put(dirent(1000L + i), dirent);
                t.put(new Key(1, 16, 0), inode);
            }
            long c1 = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                t.delete(dirent(1000L + i));
                t.delete(new Key(1000L + i, 16, 0));
                t.put(new Key(1, 16, 0), inode);
            }
            long c2 = mx.getCurrentThreadCpuTime();
            if (round >= 2) System.out.printf("%s create-like %.2f unlink-like %.2f%n", a[1], (c1 - c0) / 1e3 / n, (c2 - c1) / 1e3 / n);
            p.commit();
        }
    }
}
JAVA
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); µs of thread CPU per file, rounds 3-6 of each JVM"
for _ in $(seq "$ROUNDS"); do
  for b in base new; do "$JAVA" --enable-native-access=ALL-UNNAMED -cp "${CP[$b]}" "$WORK/TreeBench.java" "$FILES" "$b"; done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
