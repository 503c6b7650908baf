#!/usr/bin/env bash
# passthrough-off-ab.sh OTHER_BUILD [ROUNDS]: passthrough with kernel passthrough off over a tmpfs source, fio 4 KiB
# random O_DIRECT reads (or writes) for 5 s against one mount at a time, OTHER_BUILD (a directory holding another
# build's ringfuse-cli.jar and lib/, copied from cli/target before a change) then this tree, alternated per round;
# prints IOPS, the server's CPU per operation (utime+stime from /proc) and its io-wq worker threads. Environment:
# T=dev|uring (transport, default dev), QD and NJ (iodepth and jobs: 1 and 1 is the harness's j1, 32 and 2 its
# j2), RW=randread|randwrite (default randread; randwrite at QD 1 is the harness's j4). Root.
set -euo pipefail
OTHER=${1:?usage: passthrough-off-ab.sh OTHER_BUILD [ROUNDS]}
ROUNDS=${2:-3}
HERE=$(cd "$(dirname "$0")/.." && pwd)
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
P=$(mktemp -d /tmp/passthrough-ab.XXXXXX)
mkdir -p "$P/b" "$P/m"
mount -t tmpfs tmpfs "$P/b"
cleanup() {
  if grep -q " $P/m " /proc/mounts; then "$HERE/ringfuse" unmount "$P/m" >/dev/null || umount -l "$P/m"; fi
  umount "$P/b" 2>/dev/null || true
  rm -rf "$P"
}
trap cleanup EXIT
for r in $(seq "$ROUNDS"); do
  for b in other this; do
    if [ $b = other ]; then
      "$JAVA" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -cp "$OTHER/ringfuse-cli.jar:$OTHER/lib/*" \
        dev.ringfuse.cli.Main mount passthrough "$P/b" "$P/m" --passthrough off --transport "${T:-dev}" >"$P/log" 2>&1 &
    else
      "$HERE/ringfuse" mount passthrough "$P/b" "$P/m" --passthrough off --transport "${T:-dev}" >"$P/log" 2>&1 &
    fi
    for _ in $(seq 100); do grep -q " $P/m " /proc/mounts && break; sleep 0.2; done
    pid=$(pgrep -f "Main mount passthrough $P/b" | head -1)
    fio --name=j1 --directory="$P/m" --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=1 --size=16M \
      --runtime=2 --time_based --output-format=terse >/dev/null # lays the file out, warms the JIT
    c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
    iops=$(fio --name=j1 --directory="$P/m" --rw="${RW:-randread}" --bs=4k --direct=1 --ioengine=libaio --iodepth="${QD:-1}" \
      --numjobs="${NJ:-1}" --group_reporting --size=16M --runtime=5 --time_based --output-format=json \
      | python3 -c "import json,sys; j = json.load(sys.stdin)['jobs'][0]; print(int(j['read']['iops'] + j['write']['iops']))")
    c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
    workers=$(cat /proc/"$pid"/task/*/comm 2>/dev/null | grep -c iou-wrk || true)
    echo "round $r $b: $iops IOPS, $(echo "($c1 - $c0) * 1000000 / $(getconf CLK_TCK) / ($iops * 5)" | bc -l | cut -c1-5) µs CPU/op, io-wq workers $workers"
    "$HERE/ringfuse" unmount "$P/m" >/dev/null; wait
  done
done
