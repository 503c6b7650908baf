#!/bin/bash
# restat-cpu.sh: repeated stat(2) of 10,000 names the kernel holds (no drop_caches), on a pool dataset mounted with
# -o entry_timeout=1,attr_timeout=1 and with the default (an hour), alternated, two rounds: stat/s and the server
# CPU per stat (utime+stime of the server JVM). Needs root, python3 and the CLI (./ringfuse builds it).
set -e
HERE=$(cd "$(dirname "$0")/.." && pwd); RF=$HERE/ringfuse
W=$(mktemp -d /var/tmp/restat-cpu.XXXXXX); export RINGFUSE_POOLS=$W/pools
trap 'grep -qs " $W/mnt " /proc/mounts && umount -l "$W/mnt"; "$RF" pool destroy rs >/dev/null 2>&1 || true; rm -rf "$W"' EXIT
mkdir -p "$W/mnt"
$RF pool create rs $W/p.img --size 1G >/dev/null; $RF fs create rs/ds -o compression=off >/dev/null
run() { # label opts
  $RF mount pool rs/ds $W/mnt $2 > $W/server.log 2>&1 & local pid=$!
  for i in $(seq 600); do grep -qs " $W/mnt " /proc/mounts && break; sleep 0.1; done
  python3 - $W/mnt "$1" $pid <<'PY'
import os, sys, time
d, label, pid = sys.argv[1], sys.argv[2], sys.argv[3]
hz = os.sysconf("SC_CLK_TCK")
def ticks():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split(); return int(f[11]) + int(f[12])
sub = os.path.join(d, "s" + str(time.time_ns())); os.mkdir(sub)
names = [os.path.join(sub, f"f{i:06d}") for i in range(10000)]
for n in names: os.close(os.open(n, os.O_CREAT | os.O_WRONLY, 0o644))
for n in names: os.stat(n)
time.sleep(1.5)  # past a 1 s timeout
for rep in range(2):
    t0, c0 = time.perf_counter(), ticks()
    for n in names: os.stat(n)
    dt, cpu = time.perf_counter() - t0, (ticks() - c0) * 1e6 / hz
    print(f"{label:<22} pass {rep+1}: {len(names)/dt:9.0f} stat/s, server CPU {cpu/len(names):6.2f} us/stat", flush=True)
    time.sleep(1.5)
for n in names: os.unlink(n)
os.rmdir(sub)
PY
  fusermount3 -u $W/mnt; wait $pid || true
}
for r in 1 2; do
  run "timeouts 1 s" "-o entry_timeout=1,attr_timeout=1"
  run "timeouts 1 h (default)" ""
done

