#!/usr/bin/env bash
# write-ceiling.sh [ROUNDS]: the FUSE ceiling of 8 KiB write(2)s: `dd bs=8k` of 1 GiB (conv=fsync) into memfs
# (nothing stored) and into a pool-off dataset (an 8 GiB sparse image in /var/tmp), both mounted at once over the
# default transport, alternated per round; prints MB/s and the server's utime+stime (clock ticks). Needs root and a
# built tree. Written for docs/bench/pool.md (session 15): the pool's write-through block write is at this ceiling.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd); ROUNDS=${1:-3}
W=$(mktemp -d /var/tmp/w8k.XXXXXX); export RINGFUSE_POOLS=$W/pools
mkdir -p $W/m $W/p
cleanup(){ for m in $W/m $W/p; do grep -q " $m " /proc/mounts && { $HERE/ringfuse unmount $m >/dev/null || umount -l $m; }; done; wait; rm -rf $W; }
trap cleanup EXIT
$HERE/ringfuse pool create w8 $W/p.img --size 8G >/dev/null
$HERE/ringfuse fs create w8/ds -o compression=off >/dev/null
$HERE/ringfuse mount memfs $W/m >$W/m.log 2>&1 &
$HERE/ringfuse mount pool w8/ds $W/p ${POOLOPT:+-o $POOLOPT} >$W/p.log 2>&1 &
for _ in $(seq 100); do grep -q " $W/p " /proc/mounts && grep -q " $W/m " /proc/mounts && break; sleep 0.2; done
for r in $(seq $ROUNDS); do
  for t in m p; do
    rm -f $W/$t/f; sync
    pid=$(pgrep -f "mount $([ $t = m ] && echo memfs || echo pool).* $W/$t" | tail -1)
    c0=$(awk '{print $14+$15}' /proc/$pid/stat)
    rate=$(dd if=/dev/zero of=$W/$t/f bs=8k count=131072 conv=fsync 2>&1 | tail -1 | awk '{print $(NF-1), $NF}')
    c1=$(awk '{print $14+$15}' /proc/$pid/stat)
    echo "round $r $t $rate cpu $((c1-c0)) ticks"
  done
done
