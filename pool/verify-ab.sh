#!/usr/bin/env bash
# verify-ab.sh [ROUNDS] [VARIANT...]: `pool verify` of a pool-off dataset holding 2 GiB of random data (an 8 GiB
# sparse image, O_DIRECT) under each VARIANT, beside the device's own O_DIRECT sequential read of a dense 2 GiB file
# in the same directory (fio, 1 MiB requests, queue depth 8), in every round, the order rotated per round. A VARIANT is
# RINGFUSE_JAVA_OPTS for the verify (e.g. -Dpool.read.merge.bytes=0); "" is the default. Images go in $DIR (default
# /var/tmp). Prints MiB/s per run. Needs root, fio and a built tree. Written for pool/DESIGN.md's merged reads (session 15).
set -euo pipefail
ROUNDS=${1:-3}; shift || true
VARIANTS=("$@"); [ ${#VARIANTS[@]} -eq 0 ] && VARIANTS=("")
HERE=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${DIR:-/var/tmp}/verify-ab.XXXXXX")
export RINGFUSE_POOLS=$W/pools
mkdir -p "$W/pm"
cleanup() {
  if grep -q " $W/pm " /proc/mounts; then "$HERE/ringfuse" unmount "$W/pm" >/dev/null || umount -l "$W/pm"; fi
  rm -rf "$W"
}
trap cleanup EXIT
"$HERE/ringfuse" pool create vab "$W/p.img" --size 8G >/dev/null
"$HERE/ringfuse" fs create vab/ds -o compression=off >/dev/null
"$HERE/ringfuse" mount pool vab/ds "$W/pm" >"$W/server.log" 2>&1 &
for _ in $(seq 100); do grep -q " $W/pm " /proc/mounts && break; sleep 0.2; done
fio --name=fill --filename="$W/pm/f" --size=2048M --rw=write --bs=1M --ioengine=psync --end_fsync=1 >/dev/null
"$HERE/ringfuse" unmount "$W/pm" >/dev/null; wait
fio --name=dense --filename="$W/dense" --size=2048M --rw=write --bs=1M --direct=1 --ioengine=libaio --iodepth=8 \
  --end_fsync=1 >/dev/null
runs=(device "${VARIANTS[@]}")
for r in $(seq "$ROUNDS"); do
  n=${#runs[@]}
  for k in $(seq 0 $((n - 1))); do
    v=${runs[$(((k + r) % n))]}
    if [ "$v" = device ]; then
      bw=$(fio --name=devread --filename="$W/dense" --size=2048M --rw=read --bs=1M --direct=1 --ioengine=libaio \
        --iodepth=8 --output-format=json | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["jobs"][0]["read"]["bw_bytes"]/1048576))')
      echo "round $r device $bw MiB/s"
    else
      out=$(RINGFUSE_JAVA_OPTS="$v" /usr/bin/time -f "cpu %U user %S sys" -o "$W/time" "$HERE/ringfuse" pool verify vab \
        | tr "\r" "\n" | grep "verified pool")
      echo "round $r verify[$v] $out; $(cat "$W/time")"
    fi
  done
done
