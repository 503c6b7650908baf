#!/usr/bin/env bash
# read-ceiling.sh [ROUNDS]: where a sequential read's time goes on this machine. A 2 GiB random file on btrfs (loop
# device with direct I/O over an 8 GiB sparse image), on a pool-off dataset (an 8 GiB sparse image, O_DIRECT) and on
# memfs (in the server's memory: the FUSE read path with no storage under it), all in $DIR (default /var/tmp), read
# with `dd bs=8k` after drop_caches, the three alternated per round. Prints MB/s, the server's utime and stime
# (clock ticks) and the whole machine's busy CPU time over the read from /proc/stat (seconds of all CPUs, and as a share of
# the CPUs over the read: 100 % means none was idle). Needs root and a built tree. Written for
# docs/bench/pool.md (session 16).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd); ROUNDS=${1:-3}
W=$(mktemp -d "${DIR:-/var/tmp}/rceil.XXXXXX"); export RINGFUSE_POOLS=$W/pools
mkdir -p "$W/b" "$W/p" "$W/m"
DEV=
cleanup() {
  for m in "$W/m" "$W/p"; do grep -q " $m " /proc/mounts && { "$HERE/ringfuse" unmount "$m" >/dev/null || umount -l "$m"; }; done
  wait
  umount "$W/b" 2>/dev/null || true
  [ -n "$DEV" ] && losetup -d "$DEV" 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
TICK=$(getconf CLK_TCK); NCPU=$(nproc)
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; } # user nice system irq softirq, in ticks
truncate -s 8G "$W/b.img"
DEV=$(losetup --find --show --direct-io=on "$W/b.img")
mkfs.btrfs -f -q "$DEV" >/dev/null
mount -o noatime "$DEV" "$W/b"
"$HERE/ringfuse" pool create rc "$W/p.img" --size 8G >/dev/null
"$HERE/ringfuse" fs create rc/ds -o compression=off >/dev/null
"$HERE/ringfuse" mount memfs "$W/m" >"$W/m.log" 2>&1 &
"$HERE/ringfuse" mount pool rc/ds "$W/p" >"$W/p.log" 2>&1 &
for _ in $(seq 100); do grep -q " $W/p " /proc/mounts && grep -q " $W/m " /proc/mounts && break; sleep 0.2; done
dd if=/dev/urandom of="$W/src" bs=1M count=2048 status=none
for t in b p m; do dd if="$W/src" of="$W/$t/f" bs=1M conv=fsync status=none; done
rm -f "$W/src"
pidof() { pgrep -f "mount $([ "$1" = m ] && echo memfs || echo pool).* $W/$1" | tail -1; }
for r in $(seq "$ROUNDS"); do
  for t in b p m; do
    sync; echo 3 > /proc/sys/vm/drop_caches
    pid=; [ "$t" != b ] && pid=$(pidof "$t")
    s0=$([ -n "$pid" ] && awk '{print $14, $15}' "/proc/$pid/stat" || echo "0 0"); m0=$(busy); t0=$(date +%s.%N)
    rate=$(dd if="$W/$t/f" of=/dev/null bs=8k 2>&1 | tail -1 | awk '{print $(NF-1), $NF}')
    t1=$(date +%s.%N); m1=$(busy); s1=$([ -n "$pid" ] && awk '{print $14, $15}' "/proc/$pid/stat" || echo "0 0")
    read -r u0 k0 <<<"$s0"; read -r u1 k1 <<<"$s1"
    name=$(case $t in b) echo btrfs;; p) echo pool-off;; m) echo memfs;; esac)
    echo "round $r $name $rate server utime $((u1-u0)) stime $((k1-k0)) ticks, machine busy $(awk -v d=$((m1-m0)) -v t="$TICK" -v a="$t0" -v z="$t1" -v n="$NCPU" 'BEGIN{e=z-a; printf "%.2f CPU-s in %.2f s (%.0f %% of %d CPUs)", d/t, e, 100*d/t/e/n, n}')"
  done
done
