#!/usr/bin/env bash
# randread-ab.sh [ROUNDS] : random 8 KiB buffered reads by 5 fio jobs (psync, as bonnie++'s five seekers) over a 2 GiB
# random file, after drop_caches, on btrfs (loop device with direct I/O over an 8 GiB sparse image) and on pool
# datasets, each pool with a fresh server before every run (its block cache empty). ITEMS="label:tree:recordsize ..."
# names the pools: a built ringfuse tree each (two trees compare two builds) and the dataset's recordsize; default
# "pool:<this tree>:128K". MOUNTOPTS: more `mount pool` options; BS, JOBS, SECS (8), DIRECT (0), ENGINE, QD: fio's.
# Images go in $DIR (default /var/tmp). Prints IOPS and mean latency per run, all peers once per round. Needs root,
# fio, btrfs-progs. Written for pool/DESIGN.md, "Reads that wait for the device" (session 17).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${1:-2}; ITEMS=${ITEMS:-"pool:$HERE:128K"}
W=$(mktemp -d "${DIR:-/var/tmp}/randread-ab.XXXXXX"); export RINGFUSE_POOLS=$W/pools
mkdir -p "$W/b"; DEV=
declare -A TREE PID
cleanup() {
  for l in "${!TREE[@]}"; do
    grep -q " $W/$l " /proc/mounts && { "${TREE[$l]}/ringfuse" unmount "$W/$l" >/dev/null || umount -l "$W/$l"; }
  done
  sleep 1; umount "$W/b" 2>/dev/null || true; [ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null || true; rm -rf "$W"
}
trap cleanup EXIT
up() {
  # shellcheck disable=SC2086
  "${TREE[$1]}/ringfuse" mount pool "$1/ds" "$W/$1" ${MOUNTOPTS:-} >>"$W/$1.log" 2>&1 & PID[$1]=$!
  for _ in $(seq 150); do grep -q " $W/$1 " /proc/mounts && return; sleep 0.2; done
  echo "mount $1 failed" >&2; cat "$W/$1.log" >&2; exit 1
}
down() { "${TREE[$1]}/ringfuse" unmount "$W/$1" >/dev/null; wait "${PID[$1]}" || true; }
truncate -s 8G "$W/b.img"; DEV=$(losetup --find --show --direct-io=on "$W/b.img")
mkfs.btrfs -f -q "$DEV" >/dev/null; mount -o noatime "$DEV" "$W/b"
T=b
for it in $ITEMS; do
  IFS=: read -r l tr rs <<<"$it"; TREE[$l]=$tr; T="$T $l"
  "$tr/ringfuse" pool create "$l" "$W/$l.img" --size 8G >/dev/null
  "$tr/ringfuse" fs create "$l/ds" -o compression=off,recordsize="$rs" >/dev/null
  mkdir -p "$W/$l"; up "$l"
done
dd if=/dev/urandom of="$W/src" bs=1M count=2048 status=none
for t in $T; do dd if="$W/src" of="$W/$t/f" bs=1M conv=fsync status=none; done
rm -f "$W/src"
for r in $(seq "$ROUNDS"); do
  for t in $T; do
    [ "$t" != b ] && { down "$t"; up "$t"; }
    sync; echo 3 > /proc/sys/vm/drop_caches
    out=$(fio --name=s --filename="$W/$t/f" --rw=randread --bs="${BS:-8k}" --ioengine="${ENGINE:-psync}" \
      --iodepth="${QD:-1}" --direct="${DIRECT:-0}" --numjobs="${JOBS:-5}" --group_reporting --size=2G \
      --runtime="${SECS:-8}" --time_based --invalidate=1 --output-format=terse 2>&1 | tail -1)
    echo "round $r $t: $(awk -F';' '{printf "%s IOPS, mean latency %.0f us", $8, $40}' <<<"$out")"
  done
done
