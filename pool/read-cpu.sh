#!/usr/bin/env bash
# read-cpu.sh REV [ROUNDS]: server CPU time per read of a mounted pool dataset, this tree's pool against the
# pool of git revision REV, side by side (rounds interleaved, same image, same file), for fio random reads of
# 4 KiB and 128 KiB with O_DIRECT (every read reaches the server; the file fits the server's block cache, so
# what is measured is the read path, not the disk). CPU time is utime+stime of the server process from
# /proc/PID/stat over the measured fio run, divided by the reads fio completed. Needs root, fio, python3 and
# a built tree (mvn -o -pl pool -am test-compile). Timing depends on the load; the ratio between the two
# builds in one run is what the figures in pool/DESIGN.md quote.
set -euo pipefail
REV=${1:?usage: read-cpu.sh REV [ROUNDS]}
ROUNDS=${2:-3}
HERE=$(cd "$(dirname "$0")/.." && pwd)
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
JAVAC=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/javac
DEPS=$HERE/core/target/classes:$HERE/uring/target/classes:$HOME/.m2/repository/io/airlift/aircompressor/2.0.3/aircompressor-2.0.3.jar
WORK=$(mktemp -d /var/tmp/read-cpu.XXXXXX) # on disk: /tmp may be memory
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

# the other revision's pool, compiled against this tree's core and uring (their APIs are what both use)
git -C "$HERE" archive "$REV" pool/src/main/java | tar -x -C "$WORK/base"
"$JAVAC" -nowarn -d "$WORK/base/classes" -cp "$DEPS" \
  $(find "$WORK/base/pool/src/main/java" -name '*.java' ! -name module-info.java) \
  "$HERE/pool/src/test/java/dev/ringfuse/pool/fs/PoolServerMain.java"
declare -A CP=([base]="$WORK/base/classes:$DEPS" [new]="$HERE/pool/target/classes:$HERE/pool/target/test-classes:$DEPS")

truncate -s 1G "$IMG"
cat > "$WORK/Prep.java" <<'EOF'
import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.UringBlockDevice;
import dev.ringfuse.pool.txg.Pool;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

public class Prep {
    public static void main(String[] a) throws Exception {
        Pool p = Pool.create("rc", List.<BlockDevice>of(UringBlockDevice.open(Path.of(a[0]))));
        p.createDataset("rc/ds", Map.of("compression", "off", "recordsize", "128K"));
        p.close();
    }
}
EOF
"$JAVA" --enable-native-access=ALL-UNNAMED -cp "${CP[new]}" "$WORK/Prep.java" "$IMG"

serve() {
  "$JAVA" --enable-native-access=ALL-UNNAMED -Xmx2g -Dpool.cache.bytes=$((512 << 20)) -cp "${CP[$1]}" dev.ringfuse.pool.fs.PoolServerMain "$IMG" rc/ds "$MNT" \
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
ticks() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
HZ=$(getconf CLK_TCK)

serve new
dd if=/dev/urandom of="$MNT/file" bs=1M count=256 conv=fsync status=none
stop

fio_run() { # bs seconds json
  fio --name=r --filename="$MNT/file" --rw=randread --bs="$1" --direct=1 --ioengine=psync --runtime="$2" --time_based \
    --output-format=json > "$3"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-5s %-6s %10s %10s %12s\n' round build bs reads cpu_ms us_per_read
for r in $(seq "$ROUNDS"); do
  for b in base new; do
    serve "$b"
    dd if="$MNT/file" of=/dev/null bs=1M iflag=direct status=none # every block into the server's cache
    for bs in 4k 128k; do
      fio_run "$bs" 5 /dev/null # JIT warm-up
      t0=$(ticks)
      fio_run "$bs" 20 "$WORK/fio.json"
      t1=$(ticks)
      ios=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0]["read"]["total_ios"])' "$WORK/fio.json")
      ms=$(( (t1 - t0) * 1000 / HZ ))
      printf '%-5s %-5s %-6s %10d %10d %12.2f\n' "$r" "$b" "$bs" "$ios" "$ms" "$(echo "$ms * 1000 / $ios" | bc -l)"
    done
    stop
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
