#!/usr/bin/env bash
# What observability costs, side by side in one run: fio 4k randread (direct, libaio) on memfs at QD1 and
# QD32 x 2 jobs, variants interleaved rep by rep (the machine may be shared: interleaving spreads its load
# over all of them). Variants: "base" (a ringfuse checkout given with --base, e.g. the commit before the
# change), "off" (this checkout, no recording), "jfr" (this checkout, mount --jfr with every dev.ringfuse
# event on). Prints medians (min-max) and ratios to the first variant.
# Usage: bench/observe.sh [--base DIR] [--home DIR] [--reps N] [--runtime S] [--transport dev|uring]
# --home: the checkout to measure (default: this one; give a copy to keep editing this one meanwhile).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
base=""; reps=3; runtime=8; transport=uring
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --home) here=$(cd "$2" && pwd); shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --transport) transport=$2; shift 2 ;;
    *) echo "usage: $0 [--base DIR] [--home DIR] [--reps N] [--runtime S] [--transport dev|uring]" >&2; exit 2 ;;
  esac
done
command -v fio >/dev/null || { echo "needs fio (apt-get install fio)" >&2; exit 2; }
work=$(mktemp -d /tmp/ringfuse-observe-XXXXXX)
echo 1 > /sys/module/fuse/parameters/enable_uring 2>/dev/null || true
server=""; mnt=""
cleanup() {
  [ -n "$server" ] && kill -TERM "$server" 2>/dev/null && wait "$server" 2>/dev/null
  for m in "$work"/mnt-*; do grep -qs " $m " /proc/self/mounts && umount -l "$m"; done
  rm -rf "$work"
}
trap cleanup EXIT
variants="off jfr"
[ -n "$base" ] && variants="base off jfr" && "$base/ringfuse" --version >/dev/null
"$here/ringfuse" --version >/dev/null # build once, outside the timings

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.0f %.0f %.0f\n", m, a[1], a[NR]}'; }
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; } # clock ticks (1/100 s) of user + system time
iops() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(int(sum(x["read"]["iops"] for x in j["jobs"])))'; }

for r in $(seq 1 "$reps"); do
  for v in $variants; do
    home=$here; args=()
    [ "$v" = base ] && home=$base
    [ "$v" = jfr ] && args=(--jfr "$work/$r.jfr")
    mnt=$work/mnt-$v; mkdir -p "$mnt"
    "$home/ringfuse" mount memfs "$mnt" --transport "$transport" "${args[@]}" >"$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 1 120); do grep -q "mounted at" "$work/server.log" && break; sleep 0.5; done
    grep -q "mounted at" "$work/server.log" || { cat "$work/server.log"; exit 1; }
    fio --name=lay --directory="$mnt" --filename=data --size=16M --rw=write --bs=1M >/dev/null
    uptime | sed 's/.*load average/load/' >>"$work/load.txt"
    # IOPS, and the server's CPU time per request (utime+stime from /proc: steadier than IOPS on a loaded machine)
    c0=$(cpu "$server")
    fio --name=qd1 --directory="$mnt" --filename=data --rw=randread --bs=4k --direct=1 --ioengine=libaio \
      --iodepth=1 --size=16M --runtime="$runtime" --time_based --output-format=json | iops >"$work/n"
    c1=$(cpu "$server"); n=$(cat "$work/n"); echo "$n" >>"$work/$v.qd1"
    echo "($c1 - $c0) * 10000 / ($n * $runtime)" | bc -l >>"$work/$v.qd1cpu"
    fio --name=qd32 --directory="$mnt" --filename=data --rw=randread --bs=4k --direct=1 --ioengine=libaio \
      --iodepth=32 --numjobs=2 --group_reporting --size=16M --runtime="$runtime" --time_based \
      --output-format=json | iops >"$work/n"
    c2=$(cpu "$server"); n=$(cat "$work/n"); echo "$n" >>"$work/$v.qd32"
    echo "($c2 - $c1) * 10000 / ($n * $runtime)" | bc -l >>"$work/$v.qd32cpu"
    kill -TERM "$server"; wait "$server" || true; server=""
    [ "$v" = jfr ] && ls -l "$work/$r.jfr" | awk '{print "recording: " $5 " bytes"}' >>"$work/jfr.txt"
  done
done
echo "transport $transport, $reps reps x ${runtime}s, variants interleaved; $(nproc) CPUs; load during the run:"
sort "$work/load.txt" | sed -n '1p;$p' | sed 's/^/  /'
first=${variants%% *}
fmt() { awk '{printf "%.2f\n", $1}'; }
printf '\n| variant | QD1 IOPS | ratio | QD32x2 IOPS | ratio | QD1 server CPU us/req | ratio | QD32 server CPU us/req | ratio |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
read -r f1 _ _ < <(median <"$work/$first.qd1"); read -r f32 _ _ < <(median <"$work/$first.qd32")
read -r c1 _ _ < <(awk '{print $1*100}' "$work/$first.qd1cpu" | median); read -r c32 _ _ < <(awk '{print $1*100}' "$work/$first.qd32cpu" | median)
for v in $variants; do
  read -r m1 l1 h1 < <(median <"$work/$v.qd1"); read -r m32 l32 h32 < <(median <"$work/$v.qd32")
  # CPU per request in hundredths of a microsecond, so the integer median keeps two decimals
  read -r u1 v1 w1 < <(awk '{print $1*100}' "$work/$v.qd1cpu" | median); read -r u32 v32 w32 < <(awk '{print $1*100}' "$work/$v.qd32cpu" | median)
  printf '| %s | %s (%s-%s) | %.3f | %s (%s-%s) | %.3f | %.2f (%.2f-%.2f) | %.3f | %.2f (%.2f-%.2f) | %.3f |\n' "$v" "$m1" "$l1" "$h1" "$(echo "$m1/$f1" | bc -l)" \
    "$m32" "$l32" "$h32" "$(echo "$m32/$f32" | bc -l)" "$(echo "$u1/100" | bc -l)" "$(echo "$v1/100" | bc -l)" "$(echo "$w1/100" | bc -l)" \
    "$(echo "$u1/$c1" | bc -l)" "$(echo "$u32/100" | bc -l)" "$(echo "$v32/100" | bc -l)" "$(echo "$w32/100" | bc -l)" "$(echo "$u32/$c32" | bc -l)"
done
[ -f "$work/jfr.txt" ] && sort -u "$work/jfr.txt" | tail -1
