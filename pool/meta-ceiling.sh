#!/usr/bin/env bash
# meta-ceiling.sh [ROUNDS] [FILES]: bench/native/metadata.c on btrfs (loop device with direct I/O over a sparse
# image), a pool dataset (compression=off, `ringfuse mount pool`) and memfs (`ringfuse mount memfs`), in rotated
# rounds in one run, with the server CPU per operation of the two FUSE servers (utime+stime of the server JVM,
# sampled as each phase's line comes out; a phase includes the FORGETs of the drop_caches before it). memfs
# keeps everything in a HashMap: what it reaches is the ceiling of any FUSE server on this kernel and machine.
# MOUNT_OPTS (environment) is added to both mounts, e.g. MOUNT_OPTS="-o spin=0": without it a serving thread
# polls up to 50 µs after each reply, which counts as the server's CPU.
# Needs root, gcc, mkfs.btrfs, python3 and the built CLI (./ringfuse builds it). Compare within a run only.
set -euo pipefail
ROUNDS=${1:-3}
FILES=${2:-10000}
HERE=$(cd "$(dirname "$0")/.." && pwd)
RF=$HERE/ringfuse
WORK=$(mktemp -d /var/tmp/meta-ceiling.XXXXXX)
export RINGFUSE_POOLS=$WORK/pools
PID=; LOOP=
cleanup() {
  for m in "$WORK"/mnt-*; do grep -q " $m " /proc/mounts && { fusermount3 -u "$m" 2>/dev/null || umount -l "$m"; }; done
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null || true
  "$RF" pool destroy mc >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
gcc -O2 -o "$WORK/metadata" "$HERE/bench/native/metadata.c"
mkdir -p "$WORK/mnt-btrfs" "$WORK/mnt-pool" "$WORK/mnt-memfs"
truncate -s 2G "$WORK/btrfs.img"
LOOP=$(losetup --find --show --direct-io=on "$WORK/btrfs.img")
mkfs.btrfs -f -q "$LOOP"
mount -o noatime "$LOOP" "$WORK/mnt-btrfs"
"$RF" pool create mc "$WORK/pool.img" --size 2G >/dev/null
"$RF" fs create mc/ds -o compression=off >/dev/null

serve() { # fs: start its server in the background, wait for the mount
  local m=$WORK/mnt-$1
  # shellcheck disable=SC2086 # MOUNT_OPTS is split on purpose
  if [ "$1" = pool ]; then "$RF" mount pool mc/ds "$m" ${MOUNT_OPTS:-} > "$WORK/server.log" 2>&1 &
  else "$RF" mount memfs "$m" ${MOUNT_OPTS:-} > "$WORK/server.log" 2>&1 & fi
  PID=$!
  for _ in $(seq 600); do grep -qs " $m " /proc/mounts && break; sleep 0.1; done
  # the JVM serving the mount: the script's java child
  JPID=$(pgrep -P "$PID" java || echo "$PID")
}
stop() {
  fusermount3 -u "$WORK/mnt-$1"
  wait "$PID" || true
  PID=
}

phases() { # round fs dir pid(or 0)
  python3 - "$4" "$WORK/metadata" "$3" "$FILES" "$1" "$2" <<'PY'
import os, subprocess, sys
pid, prog, d, n, rnd, fs = sys.argv[1:]
hz = os.sysconf("SC_CLK_TCK")
def ticks():
    if pid == "0": return 0
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
os.mkdir(d)
if rnd == "warm": n = str(min(int(n), 2000))
p = subprocess.Popen([prog, d, n], stdout=subprocess.PIPE, text=True)
t = ticks()
for line in p.stdout:
    phase, ops, secs, rate = line.split()
    now = ticks()
    ms = (now - t) * 1000 / hz
    cpu = f"{ms:9.0f} {ms * 1000 / int(ops):8.2f}" if pid != "0" else f"{'-':>9} {'-':>8}"
    if rnd != "warm": print(f"{rnd:<5} {fs:<6} {phase:<7} {int(ops):8d} {float(secs):8.3f} {int(rate):9d} {cpu}", flush=True)
    t = now
if p.wait() != 0: sys.exit("metadata failed")
PY
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-6s %-7s %8s %8s %9s %9s %8s\n' round fs phase ops seconds ops/s cpu_ms us/op
order=(btrfs pool memfs)
for r in $(seq "$ROUNDS"); do
  for fs in "${order[@]}"; do
    if [ "$fs" = btrfs ]; then
      phases "$r" btrfs "$WORK/mnt-btrfs/d$r" 0
    else
      serve "$fs"
      phases warm "$fs" "$WORK/mnt-$fs/w$r" "$JPID"
      phases "$r" "$fs" "$WORK/mnt-$fs/d$r" "$JPID"
      stop "$fs"
    fi
  done
  order=("${order[@]:1}" "${order[0]}") # rotate
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
