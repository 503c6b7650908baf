#!/usr/bin/env python3
"""Why the adaptive polling default stays low at QD1: memfs mounted on each transport with the default
polling, with the mount-scope candidate (-Dringfuse.spin.scope=mount), with polling unbounded
(-Dringfuse.spin.share=-1) and without polling (-o spin=0), fio j1 (4k randread
O_DIRECT libaio QD1) on each in rotated rounds, and beside each figure the server CPU per operation and what
the polling policy did meanwhile: the difference of each serving thread's `spin.*` counters (`ringfuse stats`)
before and after the run.

    spin_diag.py [--runtime S] [--reps N] [--transports uring,dev] [--variants default,mount,unbounded,nospin]
                 [--busy] [--awake] [--idle S] [--home DIR]

--busy adds j2 (QD32 x 2 jobs), the case polling must not make worse; --awake adds j1 with both CPUs kept
awake by two nice-19 loops (the figure idle QD1 is compared with; `--loops idle:N` runs N SCHED_IDLE loops
instead, `--loops qos` holds a 0 µs CPU latency request on /dev/cpu_dma_latency instead); --idle measures each
mount's CPU at rest. Beside each figure, `idle-poll` is the CPU time all CPUs spent polling in the kernel's idle
loop (cpuidle state 0) per operation: what a CPU latency request costs, charged to no process.
Counter columns (per thread, then `all`): req requests served; polls (a poll that found a request already
there is none); catch% polls that brought a request; poll/req polls per request; us/poll mean poll length;
pollns/req and servns/req nanoseconds polled and served per request (the policy compares these); win windows
of 32 requests; half/dbl budget halvings and doublings; pause pauses started and paused windows; fresh
rests that restarted polling at the full budget; idleS sleeps without a poll because no request came within
idleAfter; pauseS sleeps because polling was paused; budget the budget at the end (us, 0 while paused).
"""
import argparse
import os
import shutil
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jobs  # noqa: E402
from harness import Commands  # noqa: E402
from system import Cleanup, LatencyRequest, Spinners, cpu_seconds, loadavg, start_server  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VARIANTS = {
    "default": ([], {}),
    "unbounded": ([], {"RINGFUSE_JAVA_OPTS": "-Dringfuse.spin.share=-1"}),
    "nospin": (["-o", "spin=0"], {}),
    # the candidate: every serving thread decides on the whole mount's polls (AdaptiveSpin.MOUNT_SCOPE)
    "mount": ([], {"RINGFUSE_JAVA_OPTS": "-Dringfuse.spin.scope=mount"}),
    # /dev/fuse with a poller per CPU instead of one per two CPUs, bounded and unbounded
    "p2": ([], {"RINGFUSE_JAVA_OPTS": "-Dringfuse.dev.pollers=2"}),
    "p2unb": ([], {"RINGFUSE_JAVA_OPTS": "-Dringfuse.dev.pollers=2 -Dringfuse.spin.share=-1"}),
    # io_uring without the keep-awake threads (KeepAwake), polling as by default
    "nokeep": ([], {"RINGFUSE_JAVA_OPTS": "-Dringfuse.keepAwake=0"}),
    # /dev/fuse with at most 2 / 4 reader threads instead of autoThreads() (8 on 2 CPUs)
    "t2": (["--threads", "2"], {}),
    "t4": (["--threads", "4"], {}),
    # io_uring with one keep-awake thread instead of one per CPU
    "keep1": ([], {"RINGFUSE_JAVA_OPTS": "-Dringfuse.keepAwake=1"}),
    # no CPU latency request (LatencyHint) while a stream is hot
    "nohint": ([], {"RINGFUSE_JAVA_OPTS": "-Dringfuse.latencyHint=off"}),
}
COUNTERS = ["polls", "catches", "polled_ns", "served_ns", "requests", "windows", "halvings", "doublings", "pauses",
            "paused_windows", "fresh_starts", "idle_sleeps", "paused_sleeps", "budget_ns"]


def idle_polled_us():
    """Microseconds all CPUs have spent in cpuidle's polling state (state0, POLL) since boot: CPU time a
    latency hint costs that no process is charged for."""
    total = 0
    for cpu in sorted(os.listdir("/sys/devices/system/cpu")):
        f = f"/sys/devices/system/cpu/{cpu}/cpuidle/state0/time"
        if cpu.startswith("cpu") and cpu[3:].isdigit() and os.path.exists(f):
            with open(f) as fh:
                total += int(fh.read())
    return total


def stats_socket(mnt):
    """The statistics socket of the mount at `mnt` (root's servers: /run/ringfuse/stats/MAJOR-MINOR.sock)."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split(" ")
            if fields[4] == mnt:
                major, minor = fields[2].split(":")
                return f"/run/ringfuse/stats/{major}-{minor}.sock"
    raise RuntimeError(f"{mnt} is not mounted")


def spin_counters(sock_path):
    """{thread: {counter: value}} from the `spin...` lines of a snapshot (`all` for the sum line)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(sock_path)
    data = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    s.close()
    out = {}
    for line in data.decode().splitlines():
        key, _, rest = line.partition(" ")
        if key != "spin" and not key.startswith("spin."):
            continue
        f = rest.split(" ")
        out["all" if key == "spin" else key[5:]] = {f[i]: int(f[i + 1]) for i in range(0, len(f) - 1, 2)}
    return out


def delta(after, before):
    d = {}
    for thread, c in after.items():
        b = before.get(thread, {})
        d[thread] = {k: (v if k == "budget_ns" else v - b.get(k, 0)) for k, v in c.items()}
    return d


def counter_rows(d):
    rows = []
    for thread in sorted(d, key=lambda t: (t == "all", len(t), t)):
        c = d[thread]
        req, polls = c.get("requests", 0), c.get("polls", 0)
        if thread != "all" and req == 0 and polls == 0:
            continue  # a reader that served nothing in this run
        per = lambda k: c.get(k, 0) / req if req else 0.0  # noqa: E731
        rows.append(f"  {thread:>4} req {req:>8} polls {polls:>8} catch% {100 * c.get('catches', 0) / polls if polls else 0:5.1f}"
                    f" poll/req {polls / req if req else 0:4.2f} us/poll {c.get('polled_ns', 0) / polls / 1000 if polls else 0:6.2f}"
                    f" pollns/req {per('polled_ns'):7.0f} servns/req {per('served_ns'):7.0f} win {c.get('windows', 0):>6}"
                    f" half {c.get('halvings', 0):>4} dbl {c.get('doublings', 0):>4} pause {c.get('pauses', 0):>4}"
                    f"/{c.get('paused_windows', 0):<5} fresh {c.get('fresh_starts', 0):>4} idleS {c.get('idle_sleeps', 0):>7}"
                    f" pauseS {c.get('paused_sleeps', 0):>7}"
                    + (f" budget {c['budget_ns'] / 1000:.0f}us" if "budget_ns" in c else ""))
    return rows


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--runtime", type=int, default=10)
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--transports", default="uring,dev")
    p.add_argument("--variants", default="default,mount,unbounded,nospin")
    p.add_argument("--busy", action="store_true", help="also j2, QD32 x 2 jobs")
    p.add_argument("--awake", action="store_true", help="also j1 with both CPUs kept awake")
    p.add_argument("--loops", default="", help="the awake condition's loops, e.g. idle:1 (SCHED_IDLE, one loop)")
    p.add_argument("--idle", type=int, default=0, help="seconds of each mount's CPU at rest, at the end")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--home", default=HERE, help="the checkout whose ./ringfuse serves")
    a = p.parse_args(argv)
    work = f"/tmp/ringfuse-spindiag-{os.getpid()}"
    os.makedirs(work)
    cleanup = Cleanup()
    with open("/sys/module/fuse/parameters/enable_uring", "w") as f:
        f.write("1")
    keys = ["j1"] + (["j1-awake"] if a.awake else []) + (["j2"] if a.busy else [])
    fio_jobs = [j for j in jobs.JOBS if j.key in keys]
    cmds = Commands()
    vs = [{"name": f"{v}-{t}", "variant": v, "transport": t}
          for t in a.transports.split(",") for v in a.variants.split(",")]
    print(f"started at {time.strftime('%H:%M:%S', time.gmtime())} UTC, load {loadavg()}", flush=True)
    try:
        for v in vs:
            opts, env = VARIANTS[v["variant"]]
            v["mnt"] = os.path.join(work, v["name"], "mnt")
            os.makedirs(v["mnt"])
            argv = [os.path.join(a.home, "ringfuse"), "mount", "memfs", v["mnt"], "--transport", v["transport"]] + opts
            v["proc"] = start_server(cleanup, argv, v["mnt"], os.path.join(work, v["name"] + ".log"), env, timeout=300)
            v["data"] = os.path.join(v["mnt"], "data")
            os.makedirs(v["data"])
            jobs.prepare(v["data"], a.warmup, work, cmds, keys)
            v["sock"] = stats_socket(v["mnt"])
            v["res"] = {}
        print(f"mounted and warmed up at {time.strftime('%H:%M:%S', time.gmtime())} UTC; measuring "
              f"{len(fio_jobs) * a.reps * len(vs)} x {a.runtime} s", flush=True)
        for j in fio_jobs:
            for k in range(a.reps):
                for v in vs[k % len(vs):] + vs[:k % len(vs)]:
                    before = spin_counters(v["sock"])
                    polled0 = idle_polled_us()
                    if j.awake:
                        kind, _, n = a.loops.partition(":")
                        with (LatencyRequest() if kind == "qos" else Spinners(int(n or 2), sched_idle=kind == "idle")):
                            r = jobs.run_fio(j, v["data"], a.runtime, 1, work, v["proc"].pid, cmds)
                    else:
                        r = jobs.run_fio(j, v["data"], a.runtime, 1, work, v["proc"].pid, cmds)
                    polled = idle_polled_us() - polled0
                    d = delta(spin_counters(v["sock"]), before)
                    ops = r["value"] * a.runtime
                    v["res"].setdefault(j.key, []).append((r["value"], r["cpu_us_per_io"], d, polled / ops if ops else 0))
        print(f"measured by {time.strftime('%H:%M:%S', time.gmtime())} UTC, load {loadavg()}")
        for j in fio_jobs:
            print(f"\n== {j.title}, {a.runtime} s x {a.reps} round(s); IOPS (server CPU µs per op) and the polling counters"
                  " of the round with the median IOPS")
            base = {}
            for v in vs:
                rs = v["res"][j.key]
                med = statistics.median(x[0] for x in rs)
                row = min(rs, key=lambda x: abs(x[0] - med))
                cpu = statistics.median(x[1] for x in rs if x[1] is not None) if any(x[1] for x in rs) else float("nan")
                ratio = ""
                if v["variant"] == "default":
                    base[v["transport"]] = med
                elif v["transport"] in base and base[v["transport"]]:
                    ratio = f"  {med / base[v['transport']]:.2f}x default"
                idle_poll = statistics.median(x[3] for x in rs)
                print(f"{v['name']:<18} {med:>10,.0f} IOPS ({min(x[0] for x in rs):,.0f}–{max(x[0] for x in rs):,.0f})"
                      f"  {cpu:6.2f} µs/op  idle-poll {idle_poll:5.2f} µs/op{ratio}")
                for line in counter_rows(row[2]):
                    print(line)
        if a.idle:
            time.sleep(1)
            before = {v["name"]: cpu_seconds(v["proc"].pid) for v in vs}
            time.sleep(a.idle)
            for v in vs:
                used = cpu_seconds(v["proc"].pid) - before[v["name"]]
                print(f"idle {v['name']}: {used * 1000:.0f} ms of CPU in {a.idle} s (whole server process)")
        print("\ncommands:")
        for key, cmd in cmds.by_key.items():
            print(f"  {key}: {cmd}")
    finally:
        cleanup.undo()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
