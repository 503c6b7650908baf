#!/usr/bin/env bash
# seqread-cpu.sh [ROUNDS] [OTHER_BUILD]: a 2 GiB incompressible file on a pool-off dataset (an 8 GiB sparse
# image in $DIR, default /var/tmp: on disk, O_DIRECT), read with `dd bs=8k` after drop_caches through a fresh
# server with the default 1 MiB kernel readahead; prints MB/s and the server's utime+stime over the read.
# OTHER_BUILD, if given, is a directory holding another build's ringfuse-cli.jar and lib/ (copy them from
# cli/target before a change): each round then runs that build, then this tree's. Needs root, a built tree.
set -euo pipefail
ROUNDS=${1:-3}
OTHER=${2:-}
HERE=$(cd "$(dirname "$0")/.." && pwd)
JAVA=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java
W=$(mktemp -d "${DIR:-/var/tmp}/seqread.XXXXXX")
export RINGFUSE_POOLS=$W/pools
MNT=$W/mnt
cleanup() {
  if grep -q " $MNT " /proc/mounts; then "$HERE/ringfuse" unmount "$MNT" >/dev/null || umount -l "$MNT"; fi
  pkill -f "Main mount pool seqread/ds" 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$MNT"

serve() { # $1: a build directory, or "" for this tree
  if [ -n "$1" ]; then
    "$JAVA" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
      -cp "$1/ringfuse-cli.jar:$1/lib/*" dev.ringfuse.cli.Main mount pool seqread/ds "$MNT" >"$W/server.log" 2>&1 &
  else
    "$HERE/ringfuse" mount pool seqread/ds "$MNT" >"$W/server.log" 2>&1 &
  fi
  for _ in $(seq 100); do grep -q " $MNT " /proc/mounts && return 0; sleep 0.2; done
  echo "the server did not mount: $(cat "$W/server.log")" >&2; exit 1
}

"$HERE/ringfuse" pool create seqread "$W/p.img" --size 8G >/dev/null
"$HERE/ringfuse" fs create seqread/ds -o compression=off >/dev/null
serve ""
dd if=/dev/urandom of="$MNT/f" bs=1M count=2048 conv=fsync status=none
"$HERE/ringfuse" unmount "$MNT" >/dev/null; wait

for r in $(seq "$ROUNDS"); do
  for build in ${OTHER:+"$OTHER"} ""; do
    serve "$build"
    sync; echo 3 > /proc/sys/vm/drop_caches
    pid=$(pgrep -f "Main mount pool seqread/ds" | head -1)
    c0=$(awk '{print $14+$15}' "/proc/$pid/stat")
    rate=$(dd if="$MNT/f" of=/dev/null bs=8k 2>&1 | tail -1 | awk '{print $(NF-1), $NF}')
    c1=$(awk '{print $14+$15}' "/proc/$pid/stat")
    tick=$(getconf CLK_TCK)
    label="this tree"; [ -n "$build" ] && label="other build"
    printf 'round %s %-12s %s, server CPU %.2f s\n' "$r" "$label" "$rate" \
      "$(echo "($c1 - $c0) / $tick" | bc -l)"
    "$HERE/ringfuse" unmount "$MNT" >/dev/null; wait
  done
done
