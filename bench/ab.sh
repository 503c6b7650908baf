#!/usr/bin/env bash
# Before/after in one run: two ringfuse checkouts (each with its own ./ringfuse), the harness's fio jobs
# (bench/fio/jobs.py: j1, j2, j3-read, j3-write, j4) on memfs over /dev/fuse and io_uring and on
# passthrough with kernel passthrough off, the two builds interleaved repetition by repetition so that the
# load of a shared machine falls on both alike. Prints medians per build and the B/A ratio.
# Usage: bench/ab.sh DIR_A DIR_B [--reps N] [--runtime S] [--configs "memfs-dev memfs-uring passthrough-off"]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 DIR_A DIR_B [--reps N] [--runtime S] [--configs LIST]" >&2; exit 2; }
A=$(cd "$1" && pwd); B=$(cd "$2" && pwd); shift 2
reps=3; runtime=5; configs="memfs-dev memfs-uring passthrough-off"
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
command -v fio >/dev/null || { echo "needs fio (apt-get install fio)" >&2; exit 2; }
echo 1 > /sys/module/fuse/parameters/enable_uring 2>/dev/null || true
work=$(mktemp -d /tmp/ringfuse-ab-XXXXXX)
mnt=$work/mnt; src=$(mktemp -d /dev/shm/ringfuse-ab-src-XXXXXX); mkdir -p "$mnt"
server=""
cleanup() {
  [ -n "$server" ] && kill -TERM "$server" 2>/dev/null && wait "$server" 2>/dev/null || true
  grep -qs " $mnt " /proc/self/mounts && umount -l "$mnt" || true
  rm -rf "$work" "$src"
}
trap cleanup EXIT
"$A/ringfuse" --version >/dev/null; "$B/ringfuse" --version >/dev/null # build outside the timings

J1="--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=1 --size=16M --time_based --runtime=$runtime"
J2="--rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=32 --numjobs=2 --size=16M --time_based --runtime=$runtime"
J3R="--rw=read --bs=1M --ioengine=psync --size=128M --invalidate=1 --loops=3"
J3W="--rw=write --bs=1M --ioengine=psync --size=128M --end_fsync=1 --fallocate=none"
J4="--rw=randwrite --bs=4k --direct=1 --ioengine=libaio --iodepth=1 --size=16M --time_based --runtime=$runtime"
jobs="j1 j2 j3-read j3-write j4"

mount_fs() { # $1 home, $2 config
  local home=$1
  case $2 in
    memfs-dev) "$home/ringfuse" mount memfs "$mnt" --transport dev >"$work/server.log" 2>&1 & ;;
    memfs-uring) "$home/ringfuse" mount memfs "$mnt" --transport uring >"$work/server.log" 2>&1 & ;;
    passthrough-off) rm -rf "${src:?}"/*; "$home/ringfuse" mount passthrough "$src" "$mnt" --passthrough off >"$work/server.log" 2>&1 & ;;
  esac
  server=$!
  for _ in $(seq 600); do grep -qs " $mnt " /proc/self/mounts && return 0; sleep 0.1; done
  echo "mount failed: $(cat "$work/server.log")" >&2; exit 1
}
unmount_fs() { kill -TERM "$server"; wait "$server" 2>/dev/null || true; server=""; }

value() { # fio json -> IOPS (randoms) or MiB/s (sequentials) of the side that moved
  python3 -c 'import json,sys
j=json.load(open(sys.argv[1])); side=sys.argv[2]; d=j["jobs"][0][side]
print(d["iops"] if sys.argv[3]=="iops" else d["bw_bytes"]/1048576)' "$@"
}

run_job() { # $1 job -> prints the value
  local args side metric
  case $1 in
    j1) args=$J1; side=read; metric=iops ;;
    j2) args=$J2; side=read; metric=iops ;;
    j3-read) args=$J3R; side=read; metric=mibps ;;
    j3-write) args=$J3W; side=write; metric=mibps; rm -f "$mnt"/j3-write.* ;;
    j4) args=$J4; side=write; metric=iops ;;
  esac
  # shellcheck disable=SC2086
  fio --name="$1" --directory="$mnt" $args --group_reporting --output-format=json --output="$work/out.json" >/dev/null
  value "$work/out.json" "$side" "$metric"
}

declare -A vals
for rep in $(seq "$reps"); do
  for cfg in $configs; do
    for side in A B; do
      home=$A; [ $side = B ] && home=$B
      mount_fs "$home" "$cfg"
      for j in $jobs; do vals[$cfg/$j/$side]+="$(run_job "$j") "; done
      unmount_fs
    done
  done
  echo "repetition $rep done" >&2
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.1f", m}'; }
echo "| config | job | A ($A) | B ($B) | B/A |"
echo "|---|---|---|---|---|"
for cfg in $configs; do
  for j in $jobs; do
    a=$(echo "${vals[$cfg/$j/A]}" | median); b=$(echo "${vals[$cfg/$j/B]}" | median)
    echo "| $cfg | $j | $a (${vals[$cfg/$j/A]% }) | $b (${vals[$cfg/$j/B]% }) | $(python3 -c "print(f'{$b/$a:.3f}')") |"
  done
done
