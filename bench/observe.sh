#!/usr/bin/env bash
# What observability costs, side by side in one run: fio 4k randread (direct, libaio) on memfs at QD1 and
# QD32 x 2 jobs. Variants, one mount each, measured in rounds (every variant once per round, the order
# rotated each round, so a change in the machine's load hits all of them alike):
#   base  a ringfuse checkout given with --base (e.g. the commit before the JFR events), not recording
#   off   this checkout, no JFR recording at all
#   rec   this checkout, a JFR recording with the JDK's default profile, where dev.ringfuse.Request and
#         dev.ringfuse.uring.Submit are off (@Enabled(false)): what an always-on production recording costs
#   jfr   this checkout, mount --jfr FILE: the default profile plus every dev.ringfuse event, one per request
#   NAME=[DIR][:OPTS]  the checkout DIR (default: this one), not recording, mounted with -o OPTS if given:
#         bisecting by commit (one clone per commit) or by option (nopoll=:spin=0) in one interleaved run
# Prints per variant the median (min-max) of IOPS and of the server's CPU time per request, the ratio of
# medians to the first variant and the range of the per-round ratios (round i of a variant against round i
# of the first). Takes about (variants x rounds x (2 x runtime + 4)) seconds: 3 x 5 x 16 s = 4 min by
# default. Needs root, fio, FUSE-over-io_uring for --transport uring.
# Usage: bench/observe.sh [--base DIR] [--home DIR] [--rounds N] [--runtime S] [--transport dev|uring]
#                         [--variants "off rec jfr"]
# --home: the checkout to measure (default: this one; give a copy to keep editing this one meanwhile).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
base=""; rounds=5; runtime=6; transport=uring; variants=""
usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base=$2; shift 2 ;;
    --home) here=$(cd "$2" && pwd); shift 2 ;;
    --rounds|--reps) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --transport) transport=$2; shift 2 ;;
    --variants) variants=$2; shift 2 ;;
    *) usage ;;
  esac
done
command -v fio >/dev/null || { echo "needs fio (apt-get install fio)" >&2; exit 2; }
[ -n "$variants" ] || { variants="off rec jfr"; [ -n "$base" ] && variants="base $variants"; }
case " $variants " in *" base "*) [ -n "$base" ] || { echo "variant base needs --base DIR" >&2; exit 2; } ;; esac
work=$(mktemp -d /tmp/ringfuse-observe-XXXXXX)
[ "$transport" = uring ] && { echo 1 > /sys/module/fuse/parameters/enable_uring 2>/dev/null || true; }
server=""
cleanup() {
  [ -n "$server" ] && kill -TERM "$server" 2>/dev/null && wait "$server" 2>/dev/null
  for m in "$work"/mnt-*; do grep -qs " $m " /proc/self/mounts && umount -l "$m"; done
  rm -rf "$work"
}
trap cleanup EXIT
[ -n "$base" ] && "$base/ringfuse" --version >/dev/null
"$here/ringfuse" --version >/dev/null # build once, outside the timings
for v in $variants; do
  case "$v" in *=*) d=${v#*=}; d=${d%%:*}; [ -z "$d" ] || nice -n 5 "$d/ringfuse" --version >/dev/null ;; esac
done
set -- $variants; n=$#
echo "transport $transport; variants: $variants; $rounds rounds x 2 jobs x ${runtime}s: about $(( (n * rounds * (2 * runtime + 4) + 59) / 60 )) min"

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; } # clock ticks (1/100 s) of user + system time
iops() { python3 -c 'import json,sys; j=json.load(sys.stdin); print(int(sum(x["read"]["iops"] for x in j["jobs"])))'; }

# measure V R: mounts variant V, lays out the file, runs QD1 and QD32; one line "V R qd1 qd32 cpu1 cpu32"
# (CPU in microseconds of server time per request) appended to $work/rows
measure() {
  local v=${1%%=*} r=$2 home=$here mnt=$work/mnt-${1%%=*} opts="" c0 c1 c2 n1 n32 spec
  local args=(mount memfs "$mnt" --transport "$transport")
  case "$1" in
    *=*) spec=${1#*=}; [ -n "${spec%%:*}" ] && home=${spec%%:*}
         case "$spec" in *:*) args+=(-o "${spec#*:}") ;; esac ;;
    base) home=$base ;;
    rec) opts="-XX:StartFlightRecording=filename=$work/rec-$r.jfr,settings=default" ;;
    jfr) args+=(--jfr "$work/jfr-$r.jfr") ;;
    off) ;;
    *) echo "unknown variant $v (base, off, rec, jfr)" >&2; exit 2 ;;
  esac
  mkdir -p "$mnt"
  RINGFUSE_JAVA_OPTS=$opts "$home/ringfuse" "${args[@]}" >"$work/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 120); do grep -q "mounted at" "$work/server.log" && break; sleep 0.5; done
  grep -q "mounted at" "$work/server.log" || { cat "$work/server.log"; exit 1; }
  fio --name=lay --directory="$mnt" --filename=data --size=16M --rw=write --bs=1M >/dev/null
  uptime | sed 's/.*load average: //' | cut -d, -f1 >>"$work/load"
  local job=(--directory="$mnt" --filename=data --rw=randread --bs=4k --direct=1 --ioengine=libaio --size=16M
             --runtime="$runtime" --time_based --output-format=json)
  c0=$(cpu "$server")
  n1=$(fio --name=qd1 "${job[@]}" --iodepth=1 | iops)
  c1=$(cpu "$server")
  n32=$(fio --name=qd32 "${job[@]}" --iodepth=32 --numjobs=2 --group_reporting | iops)
  c2=$(cpu "$server")
  kill -TERM "$server"; wait "$server" || true; server=""
  echo "$v $r $n1 $n32 $(echo "($c1 - $c0) * 10000 / ($n1 * $runtime)" | bc -l) $(echo "($c2 - $c1) * 10000 / ($n32 * $runtime)" | bc -l)" >>"$work/rows"
  for f in "$work"/*-"$r".jfr; do [ -f "$f" ] && echo "$(basename "$f" .jfr | cut -d- -f1) $(stat -c %s "$f")" >>"$work/sizes" && rm -f "$f"; done
  return 0
}

for r in $(seq 1 "$rounds"); do
  set -- $variants
  for _ in $(seq 2 "$r"); do set -- "${@:2}" "$1"; done # rotate by one each round
  for v in "$@"; do measure "$v" "$r"; done
done

echo "load average (1 min) during the run: $(sort -n "$work/load" | sed -n '1p;$p' | paste -sd- ); $(nproc) CPUs"
first=${variants%% *}
python3 - "$work/rows" "${first%%=*}" "$work/sizes" <<'EOF'
import statistics, sys, collections, os
rows = [l.split() for l in open(sys.argv[1])]
first = sys.argv[2]
by = collections.OrderedDict()
for v, r, *x in rows:
    by.setdefault(v, {})[int(r)] = [float(a) for a in x]
cols = [("QD1 IOPS", 0, "%.0f"), ("QD32x2 IOPS", 1, "%.0f"), ("QD1 server CPU us/req", 2, "%.2f"),
        ("QD32 server CPU us/req", 3, "%.2f")]
print("\n| variant | " + " | ".join(f"{c} | ratio (rounds)" for c, _, _ in cols) + " |")
print("|---" * (1 + 2 * len(cols)) + "|")
for v, runs in by.items():
    cells = []
    for _, i, fmt in cols:
        xs = [runs[r][i] for r in sorted(runs)]
        med = statistics.median(xs)
        ref = statistics.median(by[first][r][i] for r in by[first])
        per = [runs[r][i] / by[first][r][i] for r in sorted(runs) if r in by[first] and by[first][r][i]]
        cells.append(f"{fmt % med} ({fmt % min(xs)}-{fmt % max(xs)})")
        cells.append(f"{med / ref:.3f} ({min(per):.2f}-{max(per):.2f})" if ref else "-")
    print(f"| {v} | " + " | ".join(cells) + " |")
if os.path.exists(sys.argv[3]):
    sizes = collections.defaultdict(list)
    for l in open(sys.argv[3]):
        k, s = l.split(); sizes[k].append(int(s))
    for k, s in sizes.items():
        print(f"recording size ({k}): median {statistics.median(s) / 1e6:.1f} MB")
print("\nA ratio whose per-round range straddles 1.0 is noise at this load, not a cost.")
EOF
