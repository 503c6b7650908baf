#!/usr/bin/env bash
# compress-ab.sh REV [ROUNDS] [COMPRESSION]: this tree's `./ringfuse` against git revision REV's, alternated on one
# dataset (compression=lz4 by default): fio's j3-write (1 MiB writes of a fresh 128 MiB file of fio's default,
# barely compressible data, then fsync) after 64 MiB of warm-up, with the server's CPU time (utime+stime from
# /proc/PID/stat) over the timed run. The A/B behind "Compression: an eighth, and a probe" in pool/DESIGN.md.
# Needs root and fio; builds REV in a temporary clone. The ratio within one run is the figure, not the rates.
set -euo pipefail
REV=${1:?usage: compress-ab.sh REV [ROUNDS] [COMPRESSION]}
ROUNDS=${2:-4}
COMP=${3:-lz4}
HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d /var/tmp/compress-ab.XXXXXX) # on disk: /tmp may be memory
export RINGFUSE_POOLS=$WORK/pools
MNT=$WORK/mnt; IMG=$WORK/p.img; POOL=cab$$; mkdir -p "$MNT"
NEW=$HERE/ringfuse; OLD=$WORK/old/ringfuse
cleanup() {
  "$NEW" unmount "$MNT" >/dev/null 2>&1 || true
  "$NEW" pool destroy "$POOL" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
git clone -q "$HERE" "$WORK/old" && git -C "$WORK/old" checkout -q "$REV"
"$OLD" --version >/dev/null && "$NEW" --version >/dev/null   # builds both before timing anything
"$NEW" pool create "$POOL" "$IMG" --size 4G >/dev/null
"$NEW" fs create "$POOL/ds" -o compression="$COMP" >/dev/null
for round in $(seq "$ROUNDS"); do
  for v in old new; do
    R=$NEW; [ $v = old ] && R=$OLD
    "$R" mount pool "$POOL/ds" "$MNT" >"$WORK/server-$v.log" 2>&1 & pid=$!
    for _ in $(seq 100); do mountpoint -q "$MNT" && break; sleep 0.2; done
    jpid=$(pgrep -f "mount pool $POOL/ds" | tail -1)
    fio --name=warm --directory="$MNT" --rw=write --bs=1M --ioengine=psync --size=64M --end_fsync=1 \
        --fallocate=none --output-format=terse >/dev/null
    rm -f "$MNT"/warm*
    c0=$(awk '{print $14+$15}' "/proc/$jpid/stat")
    bw=$(fio --name=j3 --directory="$MNT" --rw=write --bs=1M --ioengine=psync --size=128M --end_fsync=1 \
        --fallocate=none --output-format=json | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["jobs"][0]["write"]["bw_bytes"]/1048576))')
    c1=$(awk '{print $14+$15}' "/proc/$jpid/stat")
    rm -f "$MNT"/j3*
    echo "round $round $v ($([ $v = old ] && echo "$REV" || echo this tree)): j3-write $bw MiB/s, server CPU $(( (c1 - c0) * 1000 / $(getconf CLK_TCK) )) ms per 128 MiB"
    "$NEW" unmount "$MNT" >/dev/null; wait "$pid" || true
  done
done
