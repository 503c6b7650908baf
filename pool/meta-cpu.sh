#!/usr/bin/env bash
# meta-cpu.sh REV [ROUNDS] [FILES]: server CPU time per metadata operation of a mounted pool dataset, this tree's
# pool against the pool of git revision REV, side by side (rounds interleaved, a fresh image each time), for
# bench/native/metadata.c (create+write 1 KiB+close, ls -l after drop_caches, stat after drop_caches, unlink).
# CPU time is utime+stime of the server process from /proc/PID/stat, sampled as each phase's line comes out,
# divided by the phase's operations (a phase's figure includes the FORGETs of the drop_caches before it).
# RECORDSIZE=4K (environment) sets the dataset's recordsize (default 128K, the pool's default).
# Needs root, gcc, python3 and a built tree (mvn -o -pl pool -am test-compile). Timing depends on the load;
# the ratio between the two builds in one run is what pool/DESIGN.md quotes.
set -euo pipefail
REV=${1:?usage: meta-cpu.sh REV [ROUNDS] [FILES]}
ROUNDS=${2:-3}
FILES=${3:-20000}
HERE=$(cd "$(dirname "$0")/.." && pwd)
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
JAVAC=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/javac
DEPS=$HERE/core/target/classes:$HERE/uring/target/classes:$HOME/.m2/repository/io/airlift/aircompressor/2.0.3/aircompressor-2.0.3.jar
WORK=$(mktemp -d /var/tmp/meta-cpu.XXXXXX) # on disk: /tmp may be memory
MNT=$WORK/mnt
IMG=$WORK/p.img
PID=
cleanup() {
  if grep -q " $MNT " /proc/mounts; then fusermount3 -u "$MNT" || umount -l "$MNT"; fi
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$MNT" "$WORK/base"
gcc -O2 -o "$WORK/metadata" "$HERE/bench/native/metadata.c"

# the other revision's pool, compiled against this tree's core and uring (their APIs are what both use)
git -C "$HERE" archive "$REV" pool/src/main/java | tar -x -C "$WORK/base"
"$JAVAC" -nowarn -d "$WORK/base/classes" -cp "$DEPS" \
  $(find "$WORK/base/pool/src/main/java" -name '*.java' ! -name module-info.java) \
  "$HERE/pool/src/test/java/dev/ringfuse/pool/fs/PoolServerMain.java"
declare -A CP=([base]="$WORK/base/classes:$DEPS" [new]="$HERE/pool/target/classes:$HERE/pool/target/test-classes:$DEPS")

cat > "$WORK/Prep.java" <<'JAVA'
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

public class Prep {
    public static void main(String[] a) throws Exception {
        Pool p = Pool.create("mc", List.<BlockDevice>of(UringBlockDevice.open(Path.of(a[0]))));
        p.createDataset("mc/ds", Map.of("compression", "off", "recordsize", a[1]));
        p.close();
    }
}
JAVA

serve() {
  rm -f "$IMG"; truncate -s 1G "$IMG"
  "$JAVA" --enable-native-access=ALL-UNNAMED -cp "${CP[new]}" "$WORK/Prep.java" "$IMG" "${RECORDSIZE:-128K}"
  "$JAVA" --enable-native-access=ALL-UNNAMED -Xmx1g -cp "${CP[$1]}" dev.ringfuse.pool.fs.PoolServerMain "$IMG" mc/ds "$MNT" \
    > "$WORK/server.out" 2>&1 &
  PID=$!
  for _ in $(seq 600); do grep -q READY "$WORK/server.out" && return 0; sleep 0.1; done
  cat "$WORK/server.out" >&2
  return 1
}
stop() {
  fusermount3 -u "$MNT"
  wait "$PID" || true
  PID=
}

# runs the job in a fresh directory, printing per phase: ops, seconds, server CPU ms and µs per op
phases() { # round build files
  python3 - "$PID" "$WORK/metadata" "$MNT/d$RANDOM" "$3" "$1" "$2" <<'PY'
import os, subprocess, sys
pid, prog, d, n, rnd, build = sys.argv[1:]
hz = os.sysconf("SC_CLK_TCK")
def ticks():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
os.mkdir(d)
p = subprocess.Popen([prog, d, n], stdout=subprocess.PIPE, text=True)
t = ticks()
for line in p.stdout:
    phase, ops, secs, rate = line.split()
    now = ticks()
    ms = (now - t) * 1000 / hz
    print(f"{rnd:<5} {build:<5} {phase:<7} {int(ops):8d} {float(secs):8.3f} {int(rate):9d} {ms:9.0f} {ms * 1000 / int(ops):8.2f}", flush=True)
    t = now
if p.wait() != 0: sys.exit("metadata failed")
PY
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-5s %-7s %8s %8s %9s %9s %8s\n' round build phase ops seconds ops/s cpu_ms us/op
for r in $(seq "$ROUNDS"); do
  for b in base new; do
    serve "$b"
    phases warm "$b" 3000 > /dev/null # JIT warm-up
    phases "$r" "$b" "$FILES"
    stop
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
