#!/usr/bin/env bash
# Compares ringfuse's transports on memfs, side by side in one run: fio 4k randread (direct, libaio) at
# QD1 and QD32 x 2 jobs, and the metadata benchmark (create / ls -l / stat / unlink of N files).
# Usage: bench/transports.sh [--reps N] [--files N] [--runtime S] [--variants "dev uring ..."]
# A variant is a transport, optionally with extra -o options after a colon: "uring:uring_spin=50".
# Prints a markdown table of medians (min-max) and the uring/dev ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
reps=3; files=10000; runtime=10; variants="dev uring"
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) reps=$2; shift 2 ;;
    --files) files=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --variants) variants=$2; shift 2 ;;
    *) echo "usage: $0 [--reps N] [--files N] [--runtime S] [--variants LIST]" >&2; exit 2 ;;
  esac
done
command -v fio >/dev/null || { echo "needs fio (apt-get install fio)" >&2; exit 2; }
work=$(mktemp -d /tmp/ringfuse-bench-XXXXXX)
gcc -O2 -o "$work/metadata" "$here/bench/native/metadata.c"
echo 1 > /sys/module/fuse/parameters/enable_uring 2>/dev/null || true
server=""; mnt=""
cleanup() {
  [ -n "$server" ] && kill -TERM "$server" 2>/dev/null && wait "$server" 2>/dev/null
  [ -n "$mnt" ] && grep -qs " $mnt " /proc/self/mounts && umount -l "$mnt"
  rm -rf "$work"
}
trap cleanup EXIT
"$here/ringfuse" --version >/dev/null # build once, outside the timings

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.0f %.0f %.0f", m, a[1], a[NR]}'; }
iops() { # fio json on stdin -> read iops
  python3 -c 'import json,sys; j=json.load(sys.stdin); print(int(sum(x["read"]["iops"] for x in j["jobs"])))'
}

declare -A result
for v in $variants; do
  transport=${v%%:*}; extra=""
  [ "$v" != "$transport" ] && extra="-o ${v#*:}"
  mnt=$work/mnt-${v//[:=,]/_}; mkdir -p "$mnt"
  # shellcheck disable=SC2086
  "$here/ringfuse" mount memfs "$mnt" --transport "$transport" $extra >"$work/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 120); do grep -q "mounted at" "$work/server.log" && break; sleep 0.5; done
  grep -q "mounted at" "$work/server.log" || { cat "$work/server.log"; exit 1; }
  fio --name=lay --directory="$mnt" --filename=data --size=16M --rw=write --bs=1M --create_only=0 >/dev/null
  for r in $(seq 1 "$reps"); do
    uptime | sed 's/.*load average/load/' >>"$work/load.txt"
    fio --name=qd1 --directory="$mnt" --filename=data --rw=randread --bs=4k --direct=1 --ioengine=libaio \
      --iodepth=1 --size=16M --runtime="$runtime" --time_based --output-format=json | iops >>"$work/$v.qd1"
    fio --name=qd32 --directory="$mnt" --filename=data --rw=randread --bs=4k --direct=1 --ioengine=libaio \
      --iodepth=32 --numjobs=2 --group_reporting --size=16M --runtime="$runtime" --time_based \
      --output-format=json | iops >>"$work/$v.qd32"
    mkdir "$mnt/md$r"
    "$work/metadata" "$mnt/md$r" "$files" >"$work/md.out"
    rmdir "$mnt/md$r"
    for phase in create ls-l stat unlink; do awk -v p=$phase '$1==p {print $4}' "$work/md.out" >>"$work/$v.$phase"; done
  done
  kill -TERM "$server"; wait "$server" || true; server=""
  for k in qd1 qd32 create ls-l stat unlink; do result[$v.$k]=$(median <"$work/$v.$k"); done
done

echo "| variant | 4k randread QD1 IOPS | 4k randread QD32x2 IOPS | create/s | ls -l entries/s | stat/s | unlink/s |"
echo "|---|---|---|---|---|---|---|"
for v in $variants; do
  row="| $v"
  for k in qd1 qd32 create ls-l stat unlink; do set -- ${result[$v.$k]}; row="$row | $1 ($2-$3)"; done
  echo "$row |"
done
base=${variants%% *}
for v in $variants; do
  [ "$v" = "$base" ] && continue
  row="ratio $v/$base:"
  for k in qd1 qd32 create ls-l stat unlink; do
    set -- ${result[$v.$k]}; a=$1; set -- ${result[$base.$k]}
    row="$row $k $(awk -v a="$a" -v b="$1" 'BEGIN {printf "%.2fx", a/b}')"
  done
  echo "$row"
done
echo "load during the run: $(sort -u "$work/load.txt" | tr '\n' ' ')"
