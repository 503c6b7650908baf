#!/usr/bin/env bash
# seqread-btrfs.sh [ROUNDS] [VARIANT...]: a 2 GiB random file on btrfs (loop device with direct I/O over an 8 GiB
# sparse image) and on a pool-off dataset (an 8 GiB sparse image, O_DIRECT), both in $DIR (default /var/tmp), read
# with `dd bs=8k` after drop_caches, btrfs then each pool VARIANT in every round, a fresh server per read. A VARIANT
# is `-o` options of `mount pool` (e.g. readahead=4M), or J:JAVA_OPTIONS (e.g. J:-Dpool.cache.fresh.bytes=67108864);
# "" is the default. Prints MB/s and the server's utime+stime (clock ticks) over the read. Needs root, a built tree.
set -euo pipefail
ROUNDS=${1:-3}; shift || true
VARIANTS=("$@"); [ ${#VARIANTS[@]} -eq 0 ] && VARIANTS=("")
HERE=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${DIR:-/var/tmp}/seqread-btrfs.XXXXXX")
export RINGFUSE_POOLS=$W/pools
mkdir -p "$W/bm" "$W/pm"
DEV=
cleanup() {
  if grep -q " $W/pm " /proc/mounts; then "$HERE/ringfuse" unmount "$W/pm" >/dev/null || umount -l "$W/pm"; fi
  umount "$W/bm" 2>/dev/null || true
  [ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
serve() { # $1: a variant
  local v=$1
  if [[ "$v" == J:* ]]; then RINGFUSE_JAVA_OPTS="${v#J:}" "$HERE/ringfuse" mount pool sqb/ds "$W/pm" >"$W/server.log" 2>&1 &
  else "$HERE/ringfuse" mount pool sqb/ds "$W/pm" ${v:+-o "$v"} >"$W/server.log" 2>&1 & fi
  for _ in $(seq 100); do grep -q " $W/pm " /proc/mounts && return 0; sleep 0.2; done
  echo "the server did not mount: $(cat "$W/server.log")" >&2; exit 1
}
truncate -s 8G "$W/b.img"
DEV=$(losetup --find --show --direct-io=on "$W/b.img")
mkfs.btrfs -f -q "$DEV" >/dev/null
mount -o noatime "$DEV" "$W/bm"
dd if=/dev/urandom of="$W/bm/f" bs=1M count=2048 conv=fsync status=none
"$HERE/ringfuse" pool create sqb "$W/p.img" --size 8G >/dev/null
"$HERE/ringfuse" fs create sqb/ds -o compression=off >/dev/null
serve ""
dd if=/dev/urandom of="$W/pm/f" bs=1M count=2048 conv=fsync status=none
"$HERE/ringfuse" unmount "$W/pm" >/dev/null; wait
for r in $(seq "$ROUNDS"); do
  sync; echo 3 > /proc/sys/vm/drop_caches
  echo "round $r btrfs $(dd if="$W/bm/f" of=/dev/null bs=8k 2>&1 | tail -1 | awk '{print $(NF-1), $NF}')"
  for v in "${VARIANTS[@]}"; do
    serve "$v"
    sync; echo 3 > /proc/sys/vm/drop_caches
    pid=$(pgrep -f "mount pool sqb/ds" | tail -1)
    c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
    rate=$(dd if="$W/pm/f" of=/dev/null bs=8k 2>&1 | tail -1 | awk '{print $(NF-1), $NF}')
    c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
    echo "round $r pool[$v] $rate, server CPU $((c1 - c0)) ticks"
    "$HERE/ringfuse" unmount "$W/pm" >/dev/null; wait
  done
done
