#!/usr/bin/env bash
# bench/volume.sh: fio through ext4 on a loop device (direct-io) on the ringfuse volume, against the same
# ext4 on a loop device directly on the image file. Prints a markdown table (medians of REPS runs) for
# docs/bench/volume.md. Root only.
#
#   bench/volume.sh                  # image 1 GiB on /dev/shm, 3 repetitions, 5 s per job
#   REPS=5 RUNTIME=10 CONFIGS="kernel pt-on" bench/volume.sh
#
# Configurations: kernel = loop on the image itself; pt-on = volume with kernel passthrough; pt-off = volume
# served through io_uring (async replies from the ring); pt-off-sync = the same, replying on the FUSE thread;
# pt-off-inline = served on the FUSE thread's own ring (image as a registered file, no thread hand-over).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPS=${REPS:-3}
RUNTIME=${RUNTIME:-5}
SIZE=${SIZE:-1G}
CONFIGS=${CONFIGS:-"kernel pt-on pt-off pt-off-sync pt-off-inline"}
TRANSPORT=${TRANSPORT:-auto}
WORK=${WORK:-/dev/shm/ringfuse-bench-volume}
IMG=$WORK/disk.img MNT=$WORK/fuse EXT=$WORK/ext4 OUT=$WORK/results
[ "$(id -u)" = 0 ] || { echo "bench/volume.sh: needs root (losetup, mount)" >&2; exit 1; }

SERVER= LOOP=
cleanup() {
  mountpoint -q "$EXT" && umount "$EXT" || true
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  LOOP=
  if [ -n "$SERVER" ]; then
    "$HERE/ringfuse" unmount "$MNT" >/dev/null 2>&1 || umount -l "$MNT" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    SERVER=
  fi
}
trap cleanup EXIT

# attach <config>: mounts the ext4 of the image through the path <config> names, at $EXT
attach() {
  local file=$IMG
  case $1 in
    kernel) ;;
    pt-on|pt-off|pt-off-sync|pt-off-inline)
      local pt=${1#pt-} io=async
      case $pt in *-*) io=${pt#*-}; pt=${pt%%-*} ;; esac
      "$HERE/ringfuse" mount volume "$IMG" "$MNT" --passthrough "$pt" --io "$io" --transport "$TRANSPORT" \
        > "$WORK/server-$1.log" 2>&1 &
      SERVER=$!
      for _ in $(seq 200); do [ -e "$MNT/volume" ] && break; sleep 0.1; done
      [ -e "$MNT/volume" ] || { cat "$WORK/server-$1.log" >&2; exit 1; }
      file=$MNT/volume ;;
    *) echo "unknown config $1" >&2; exit 1 ;;
  esac
  LOOP=$(losetup --find --show --direct-io=on "$file")
  [ "$(losetup -l -n -O DIO "$LOOP" | tr -d ' ')" = 1 ] || { echo "direct-io did not take on $LOOP" >&2; exit 1; }
  mount -t ext4 "$LOOP" "$EXT"
}

JOBS=(
  "randread-4k-qd1   --rw=randread  --bs=4k --iodepth=1"
  "randread-4k-qd32  --rw=randread  --bs=4k --iodepth=32"
  "randwrite-4k-qd1  --rw=randwrite --bs=4k --iodepth=1"
  "randwrite-4k-qd32 --rw=randwrite --bs=4k --iodepth=32"
  "read-1m-qd4       --rw=read      --bs=1M --iodepth=4"
  "write-1m-qd4      --rw=write     --bs=1M --iodepth=4"
)

mkdir -p "$WORK" "$MNT" "$EXT" "$OUT"
rm -f "$OUT"/*.json
"$HERE/ringfuse" --help >/dev/null            # builds the CLI before anything is timed
if [ ! -f "$IMG" ]; then
  truncate -s "$SIZE" "$IMG"
  mkfs.ext4 -q -F -E nodiscard "$IMG"
  attach kernel
  fio --name=layout --filename="$EXT/fio.dat" --size=512M --rw=write --bs=1M --direct=1 --ioengine=libaio \
      --iodepth=4 --end_fsync=1 > /dev/null
  cleanup
fi

for rep in $(seq "$REPS"); do
  for cfg in $CONFIGS; do
    attach "$cfg"
    echo "rep $rep $cfg: load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/load.txt" >&2
    for job in "${JOBS[@]}"; do
      set -- $job
      name=$1; shift
      fio --name="$name" --filename="$EXT/fio.dat" --size=512M --direct=1 --ioengine=libaio --time_based \
          --runtime="$RUNTIME" --ramp_time=1 --norandommap --randrepeat=0 "$@" --output-format=json \
          > "$OUT/$cfg.$name.$rep.json"
    done
    cleanup
  done
done

python3 - "$OUT" "$CONFIGS" "$REPS" <<'PY'
import json, os, statistics, sys
out, configs, reps = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
jobs = ["randread-4k-qd1", "randread-4k-qd32", "randwrite-4k-qd1", "randwrite-4k-qd32", "read-1m-qd4", "write-1m-qd4"]
def value(cfg, job, rep):
    j = json.load(open(os.path.join(out, f"{cfg}.{job}.{rep}.json")))["jobs"][0]
    side = j["read"] if "read" in job.split("-")[0] and "write" not in job else j["write"]
    return side["bw_bytes"] / 2**20 if "1m" in job else side["iops"]
rows = {}
for job in jobs:
    for cfg in configs:
        v = [value(cfg, job, r) for r in range(1, reps + 1)]
        rows[(job, cfg)] = (statistics.median(v), min(v), max(v))
base = "kernel" if "kernel" in configs else configs[0]
print("| job | unit | " + " | ".join(configs) + " |")
print("|---|---|" + "---|" * len(configs))
for job in jobs:
    unit = "MiB/s" if "1m" in job else "IOPS"
    cells = []
    for cfg in configs:
        med, lo, hi = rows[(job, cfg)]
        ratio = "" if cfg == base else f" ({med / rows[(job, base)][0]:.2f}x)"
        cells.append(f"{med:,.0f}{ratio} [{lo:,.0f}-{hi:,.0f}]")
    print(f"| {job} | {unit} | " + " | ".join(cells) + " |")
PY
