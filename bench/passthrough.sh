#!/usr/bin/env bash
# fio on the passthrough filesystem over tmpfs, kernel passthrough on and off, next to the same jobs on
# the tmpfs directly, in one run. Medians of N runs (default 3); prints a markdown table of the medians and
# the ratios to tmpfs. Needs root and fio. Usage: bench/passthrough.sh [runs] [transport]
set -euo pipefail
RUNS=${1:-3}
TRANSPORT=${2:-dev}
HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /tmp/ringfuse-ptbench-XXXXXX)
SRC=$WORK/src MNT=$WORK/mnt
mkdir -p "$SRC" "$MNT"
mount -t tmpfs -o size=1g ringfuse-bench "$SRC"
pid=
cleanup() {
  [ -z "$pid" ] || { kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; }
  grep -qs " $MNT " /proc/self/mounts && umount -l "$MNT"
  umount -l "$SRC" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# name | fio arguments (the jobs of docs/bench/passthrough.md)
JOBS=(
  "randread 4k QD1|--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=1 --size=16M --runtime=10 --time_based"
  "randread 4k QD32x2|--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=32 --numjobs=2 --group_reporting --size=16M --runtime=10 --time_based"
  "seq read 1M (buffered)|--rw=read --bs=1M --ioengine=psync --invalidate=1 --size=256M --runtime=10 --time_based"
  "seq write 1M|--rw=write --bs=1M --ioengine=psync --end_fsync=1 --size=256M"
)

run_job() { # dir args -> "iops MiB/s"
  local dir=$1; shift
  fio --name=job --directory="$dir" "$@" --output-format=json 2>/dev/null | python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"]
iops = sum(x["read"]["iops"] + x["write"]["iops"] for x in j)
bw = sum(x["read"]["bw_bytes"] + x["write"]["bw_bytes"] for x in j) / 2**20
print("%.0f %.1f" % (iops, bw))'
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

mount_pt() { # kernel passthrough mode
  "$HERE/ringfuse" mount passthrough "$SRC" "$MNT" --passthrough "$1" --transport "$TRANSPORT" >"$WORK/server-$1.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 240); do grep -q "mounted at" "$WORK/server-$1.log" && return; sleep 0.5; done
  cat "$WORK/server-$1.log"; exit 1
}
unmount_pt() { kill -TERM "$pid"; wait "$pid" || true; pid=; }

declare -A RES
measure() { # label dir
  local label=$1 dir=$2 j name args r
  for j in "${JOBS[@]}"; do
    name=${j%%|*} args=${j#*|}
    local iops=() bws=()
    for _ in $(seq 1 "$RUNS"); do
      rm -f "$dir"/job.*
      read -r i b < <(run_job "$dir" $args)
      iops+=("$i"); bws+=("$b")
    done
    RES["$label|$name|iops"]=$(printf '%s\n' "${iops[@]}" | median)
    RES["$label|$name|bw"]=$(printf '%s\n' "${bws[@]}" | median)
    echo "  $label / $name: ${RES["$label|$name|iops"]} IOPS, ${RES["$label|$name|bw"]} MiB/s (runs: ${iops[*]})" >&2
  done
  rm -f "$dir"/job.*
}

"$HERE/ringfuse" --help >/dev/null 2>&1 # build first: a build during the runs would skew them
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(uname -r), transport $TRANSPORT, $RUNS runs" >&2
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$SRC/direct"
measure tmpfs "$SRC/direct"
mount_pt on;  mkdir -p "$MNT/on";  grep -q "kernel passthrough on" "$WORK/server-on.log" || echo "WARNING: kernel passthrough did not come on" >&2
measure on "$MNT/on";  unmount_pt
mount_pt off; mkdir -p "$MNT/off"
measure off "$MNT/off"; unmount_pt
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

echo "| job | tmpfs | passthrough, kernel passthrough on | ratio | passthrough, kernel passthrough off | ratio |"
echo "|---|---|---|---|---|---|"
for j in "${JOBS[@]}"; do
  name=${j%%|*}
  case $name in randread*) k=iops unit=" IOPS" ;; *) k=bw unit=" MiB/s" ;; esac
  t=${RES["tmpfs|$name|$k"]} on=${RES["on|$name|$k"]} off=${RES["off|$name|$k"]}
  echo "| $name | $t$unit | $on$unit | $(python3 -c "print('%.2fx' % ($on / $t))") | $off$unit | $(python3 -c "print('%.2fx' % ($off / $t))") |"
done
echo
echo "load average (1/5/15 min) before: $LOAD_BEFORE, after: $LOAD_AFTER; $(nproc) CPUs; Linux $(uname -r); transport $TRANSPORT; medians of $RUNS runs"
