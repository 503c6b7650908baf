#!/usr/bin/env bash
# unlink_permissions.sh [ROUNDS] [PEERS...]: the metadata job (bench/native/metadata.c, 10,000 files) on libfuse's
# passthrough_ll (multi-threaded, backing directory on a tmpfs as in `ringfuse bench fio`) without and with
# default_permissions, and on ringfuse memfs (/dev/fuse, io_uring, and /dev/fuse without default_permissions),
# each mounted fresh, peers rotated in every round. Prints each phase's rate. Shows what the kernel's permission
# checks cost an unlink: docs/bench/README.md, "Where an unlink's time goes". Needs root, gcc, libfuse3-dev,
# fuse3, a built tree and enable_uring=1 for the io_uring peer.
set -euo pipefail
ROUNDS=${1:-3}; shift || true
PEERS=("$@"); [ ${#PEERS[@]} -eq 0 ] && PEERS=(pll pll-dp memfs-dev memfs-uring memfs-dev-nodp)
HERE=$(cd "$(dirname "$0")/../.." && pwd)
W=$(mktemp -d /tmp/unlink-perm.XXXXXX); B=$W/backing; M=$W/mnt; mkdir -p "$B" "$M"
cleanup() { umount "$M" 2>/dev/null || true; umount "$B" 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT
mount -t tmpfs -o size=2g tmpfs "$B"
src=/usr/share/doc/libfuse3-dev/examples/passthrough_ll.c
# shellcheck disable=SC2046
gcc -O2 -DHAVE_FALLOCATE -DHAVE_COPY_FILE_RANGE -I "$(dirname $src)" $src -o "$W/passthrough_ll" $(pkg-config --cflags --libs fuse3)
gcc -O2 "$HERE/bench/native/metadata.c" -o "$W/metadata"
for r in $(seq "$ROUNDS"); do
  for i in "${!PEERS[@]}"; do
    p=${PEERS[$(( (i + r - 1) % ${#PEERS[@]} ))]}
    rm -rf "${B:?}"/*
    case $p in
      pll) "$W/passthrough_ll" -f -o "source=$B" "$M" 2>/dev/null & ;;
      pll-dp) "$W/passthrough_ll" -f -o "source=$B,default_permissions" "$M" 2>/dev/null & ;;
      memfs-dev) "$HERE/ringfuse" mount memfs "$M" --transport dev >/dev/null 2>&1 & ;;
      memfs-uring) "$HERE/ringfuse" mount memfs "$M" --transport uring >/dev/null 2>&1 & ;;
      memfs-dev-nodp) "$HERE/ringfuse" mount memfs "$M" --transport dev -o no_default_permissions >/dev/null 2>&1 & ;;
      *) echo "unknown peer $p" >&2; exit 2 ;;
    esac
    for _ in $(seq 200); do grep -q " $M " /proc/mounts && break; sleep 0.1; done
    grep -q " $M " /proc/mounts || { echo "$p did not mount" >&2; exit 1; }
    sleep 1
    mkdir "$M/d"
    echo "round $r $p: $("$W/metadata" "$M/d" 10000 | awk '{printf "%s %s/s  ", $1, $4}')"
    umount "$M"; wait
  done
done
