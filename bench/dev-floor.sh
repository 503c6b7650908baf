#!/usr/bin/env bash
# dev-floor.sh [ROUNDS] [SECONDS]: the floor of the /dev/fuse transport against ringfuse on both transports.
# Mounts, side by side: bench/native/nullfuse.c (a C server answering from one static buffer, no libfuse, no
# filesystem; 2 and 8 threads; null8d: 8 threads answering from the file's own 16 MiB of bytes, as memfs must), ringfuse memfs on /dev/fuse and ringfuse memfs over io_uring; then runs the fio
# harness's j1 (4 KiB random reads, O_DIRECT, libaio, QD1) and j2 (the same at QD32 x 2 jobs) on each, SECONDS
# long (default 5), every mount once per round in a rotated order; and j4 (4 KiB random O_DIRECT writes, libaio,
# QD1; JOBS="j1 j2" leaves it out). Prints IOPS and the server's CPU per request
# (utime+stime from /proc over the job). Needs root, gcc, fio and a built tree; writes 1 to enable_uring.
# Written for docs/bench/transports.md (session 16, "The /dev/fuse floor"; null8d session 17).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-3}; SECS=${2:-5}; JOBS=${JOBS:-j1 j2 j4}
W=$(mktemp -d /tmp/dev-floor.XXXXXX)
NAMES=(null2 null8 null8d memfs-dev memfs-uring)
cleanup() {
  for n in "${NAMES[@]}"; do
    if grep -q " $W/$n " /proc/mounts; then umount "$W/$n" 2>/dev/null || umount -l "$W/$n"; fi
  done
  wait 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
echo 1 > /sys/module/fuse/parameters/enable_uring
gcc -O2 -Wall -pthread -o "$W/nullfuse" "$HERE/bench/native/nullfuse.c"
for n in "${NAMES[@]}"; do mkdir -p "$W/$n"; done
"$W/nullfuse" "$W/null2" 2 & echo $! > "$W/null2.pid"
"$W/nullfuse" "$W/null8" 8 & echo $! > "$W/null8.pid"
NULLFUSE_DATA=1 "$W/nullfuse" "$W/null8d" 8 & echo $! > "$W/null8d.pid"
"$HERE/ringfuse" mount memfs "$W/memfs-dev" --transport dev >"$W/dev.log" 2>&1 & echo $! > "$W/memfs-dev.pid"
"$HERE/ringfuse" mount memfs "$W/memfs-uring" --transport uring >"$W/uring.log" 2>&1 & echo $! > "$W/memfs-uring.pid"
for n in "${NAMES[@]}"; do
  for _ in $(seq 150); do grep -q " $W/$n " /proc/mounts && break; sleep 0.2; done
  grep -q " $W/$n " /proc/mounts || { echo "$n did not mount" >&2; exit 1; }
done
server_pid() { cat "$W/$1.pid"; } # the ringfuse script execs the JVM: $! is the server
job() { # $1 mount, $2 name, $3 iodepth, $4 numjobs, extra args
  local m=$1 name=$2 qd=$3 nj=$4 rw=randread; shift 4
  [ "$name" = j4 ] && rw=randwrite
  fio --name="$name" --directory="$W/$m" --rw=$rw --bs=4k --direct=1 --ioengine=libaio --iodepth="$qd" \
      --numjobs="$nj" --size=16M "$@"
}
for m in memfs-dev memfs-uring; do # the files; nullfuse has every name already
  job "$m" j1 1 1 --create_only=1 >/dev/null; job "$m" j2 32 2 --create_only=1 >/dev/null
  job "$m" j4 1 1 --create_only=1 >/dev/null
done
for m in "${NAMES[@]}"; do job "$m" j2 32 2 --runtime=3 --time_based >/dev/null; done # warm-up (JIT)
declare -A RES
for r in $(seq "$ROUNDS"); do
  mapfile -t order < <(printf '%s\n' "${NAMES[@]}" | awk -v k="$r" '{a[NR]=$0} END{for(i=0;i<NR;i++) print a[(i+k)%NR+1]}')
  for m in "${order[@]}"; do
    for j in $JOBS; do
      pid=$(server_pid "$m")
      c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
      case $j in
        j2) out=$(job "$m" j2 32 2 --runtime="$SECS" --time_based --group_reporting --output-format=json) ;;
        *) out=$(job "$m" "$j" 1 1 --runtime="$SECS" --time_based --group_reporting --output-format=json) ;;
      esac
      dir=read; [ "$j" = j4 ] && dir=write
      c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
      iops=$(python3 -c 'import json,sys; print(round(json.load(sys.stdin)["jobs"][0][sys.argv[1]]["iops"]))' $dir <<<"$out")
      ops=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0][sys.argv[1]]["total_ios"])' $dir <<<"$out")
      us=$(awk -v c=$((c1 - c0)) -v t="$(getconf CLK_TCK)" -v n="$ops" 'BEGIN{printf "%.1f", c / t * 1e6 / n}')
      echo "round $r $m $j ${iops} IOPS, server CPU ${us} us/request"
      RES[$m.$j]+="$iops "
    done
  done
done
echo "medians:"
for j in $JOBS; do
  line="$j"
  for m in "${NAMES[@]}"; do
    med=$(tr ' ' '\n' <<<"${RES[$m.$j]}" | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
    line+=" $m=$med"
  done
  echo "$line"
done
