#!/usr/bin/env python3
"""`ringfuse bench fio`: the same fio jobs against ringfuse and its peers, server after server, in one run.

    harness.py [--quick] [--only NAME[,NAME...]] [--out DIR] [--reps N] [--runtime S] [--calm-wait S]

Writes results.md, results.json and PNG charts into --out (docs/bench for a full run, target/bench-fio-quick
for --quick so that a smoke run never overwrites the published results). Needs root (mounts, drop_caches).
"""
import argparse
import atexit
import datetime
import fnmatch
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jobs  # noqa: E402
import peers  # noqa: E402
import report  # noqa: E402
from system import Cleanup, Spinners, find_jdk, log, run, start_server, stop_server, wait_for_calm  # noqa: E402


class Commands:
    """The exact commands of the run, once each (by job), for the report."""

    def __init__(self):
        self.by_key = {}

    def add(self, key, cmd):
        # the per-run directory differs per peer and run: show it as <dir>
        self.by_key.setdefault(key, re.sub(r"/tmp/ringfuse-bench-fio-\d+/\S*/data", "<dir>", cmd))


class Ctx:
    def __init__(self, args):
        self.home = os.environ.get("RINGFUSE_HOME") or os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        self.quick = args.quick
        jdk = find_jdk()
        if jdk is None:
            sys.exit("ringfuse bench fio: no JDK 22 or newer found (JAVA_HOME, /usr/lib/jvm, PATH): the Java "
                     "peers and ringfuse need one")
        # the Maven builds of the Java peers and the ringfuse script use the same JDK as the servers
        os.environ["JAVA_HOME"] = jdk
        os.environ["PATH"] = os.path.join(jdk, "bin") + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
        self.java = os.path.join(jdk, "bin", "java")
        self.bin = os.path.join(self.home, "bench", "target", "fio-bin")
        os.makedirs(self.bin, exist_ok=True)
        self.work = f"/tmp/ringfuse-bench-fio-{os.getpid()}"  # absolute: every server wants absolute paths
        self.commands = []  # build commands
        self.release_hooks = {}  # backing directory -> what to stop before it is removed


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ringfuse bench fio")
    p.add_argument("--quick", action="store_true", help="smoke run: 1 repetition, 1 s runtimes, 1,000 files")
    p.add_argument("--only", help="comma-separated peer names or globs (e.g. 'kernel-*,ringfuse-*')")
    p.add_argument("--out", help="output directory (default docs/bench, or target/bench-fio-quick with --quick)")
    p.add_argument("--reps", type=int, help="rounds per job: each round runs every peer once, in a rotated "
                   "order (default 3; 1 with --quick)")
    p.add_argument("--runtime", type=int, help="seconds per time-based job (default 3; 1 with --quick)")
    p.add_argument("--files", type=int, help="files of the metadata job (default 10000; 1000 with --quick)")
    p.add_argument("--calm-wait", type=int, help="seconds to wait for an idle machine before each round "
                   "(default 15; 3 with --quick)")
    p.add_argument("--list", action="store_true", help="list the peers and exit")
    a = p.parse_args(argv)
    a.reps = a.reps or (1 if a.quick else 3)
    a.runtime = a.runtime or (1 if a.quick else 3)
    a.files = a.files or (1000 if a.quick else 10000)
    a.loops = 1 if a.quick else 4
    a.warmup = 1 if a.quick else 8
    a.calm_wait = a.calm_wait if a.calm_wait is not None else (3 if a.quick else 15)
    return a


def selected(all_peers, only):
    if not only:
        return all_peers
    pats = [s.strip() for s in only.split(",") if s.strip()]
    chosen = [p for p in all_peers if any(fnmatch.fnmatch(p.name, pat) or p.name.startswith(pat) for pat in pats)]
    if not chosen:
        sys.exit(f"ringfuse bench fio: --only {only} matches none of: {', '.join(x.name for x in all_peers)}")
    return chosen


def summarize(values):
    v = [x for x in values if x is not None]
    if not v:
        return None
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}


class Live:
    """One peer while the run holds it: its record, server process, mount point and data directory."""

    def __init__(self, peer, rec):
        self.peer, self.rec = peer, rec
        self.proc = self.mnt = self.backing = self.target = self.data = None

    @property
    def pid(self):
        return self.proc.pid if self.proc else None

    def alive(self):
        if self.proc is not None and self.proc.poll() is not None:
            self.rec["errors"].append(f"server exited during the run (exit {self.proc.returncode})")
            return False
        return True


def prepare(ctx, args, peer, builds, cmds):
    """Builds and mounts one peer, lays out the data files and warms it up; returns a Live, or None when
    the peer is skipped or failed (its record says why and is appended to ctx.results either way)."""
    rec = {"name": peer.name, "label": peer.label, "transport": peer.transport, "language": peer.language,
           "jobs": {}, "errors": [], "notes": [], "rounds": {}}
    ctx.results.append(rec)
    if peer.available:
        try:
            reason = peer.available(builds)
        except peers.BuildError as e:
            reason = f"build failed: {e}"
        if reason:
            rec["skipped"] = reason
            return None
    live = Live(peer, rec)
    live.ctx, live.proc_list = ctx, ctx.cleanup.procs
    root = os.path.join(ctx.work, peer.name)
    live.mnt, live.backing = os.path.join(root, "mnt"), os.path.join(ctx.tmpfs, peer.name + "-backing")
    os.makedirs(live.mnt)
    os.makedirs(live.backing)
    argv = env_extra = None
    if peer._start is not None:
        try:
            argv, env_extra, version = peer.command(ctx, builds, live.mnt, live.backing)
        except peers.BuildError as e:
            rec["build_error"] = str(e)
            log(f"{peer.name}: BUILD FAILED, skipping: {e.args[0].splitlines()[0]}")
            return None
        rec["version"] = version
        rec["server_command"] = " ".join(argv)
    else:
        rec["version"] = f"Linux {platform.release()}"
        rec["server_command"] = "(none: fio runs on a tmpfs directory)"
    try:
        if peer._start is not None:
            live.proc = start_server(ctx.cleanup, argv, live.mnt, os.path.join(ctx.logs, peer.name + ".log"), env_extra)
        live.target = live.mnt if peer._start is not None else live.backing
        live.data = os.path.join(live.target, "data")
        os.makedirs(live.data)
        # warm-up, not recorded: lets JIT-compiled servers reach steady state before the first figure
        # (every peer gets it, so the C and Go servers are treated alike)
        jobs.prepare(live.data, args.warmup, ctx.logs, cmds)
    except (RuntimeError, OSError) as e:
        rec["errors"].append(str(e))
        log(f"{peer.name}: FAILED before measuring: {e}")
        release(live)
        return None
    return live


def release(live):
    """Stops the peer's server (it unmounts on SIGTERM; the harness unmounts what is left) and frees its data."""
    if live.proc is not None:
        note = stop_server(live.proc, live.mnt)
        if note:
            live.rec["notes"].append(note)
        if live.proc in live.proc_list:
            live.proc_list.remove(live.proc)
    for hook in live.ctx.release_hooks.pop(live.backing, []):   # e.g. the database server of a sql peer
        try:
            hook()
        except (OSError, subprocess.SubprocessError) as e:
            live.rec["notes"].append(f"release hook failed: {e}")
    shutil.rmtree(live.backing, ignore_errors=True)


def rotated(items, k):
    """The peers in round k: shifted by k, so that no peer always runs first (or right after the same one)."""
    if not items:
        return []
    k %= len(items)
    return items[k:] + items[:k]


def run_rounds(ctx, args, lives, meta_bin, cmds, job_list=None, metadata=True):
    """Every job, then the metadata job, in rounds: each round runs every live peer once, in a rotated
    order, so that a change in the machine's load hits all peers alike instead of whichever ran then.
    Round i of one peer and round i of another ran minutes apart at most: their ratio is the paired one
    report.py checks for agreement."""
    for job in jobs.JOBS if job_list is None else job_list:
        for k in range(args.reps):
            ctx.idle_checks.append(dict(wait_for_calm(args.calm_wait), round=f"{job.key} {k + 1}"))
            for live in rotated([lv for lv in lives if lv.alive()], k):
                rec = live.rec
                try:
                    if job.awake:
                        with Spinners():
                            r = jobs.run_fio(job, live.data, args.runtime, args.loops, ctx.logs, live.pid, cmds)
                    else:
                        r = jobs.run_fio(job, live.data, args.runtime, args.loops, ctx.logs, live.pid, cmds)
                except RuntimeError as e:
                    rec["errors"].append(f"{job.key} round {k + 1}: {e}")
                    log(f"{live.peer.name}: {job.key} round {k + 1} FAILED: {e}")
                    r = None
                rec["rounds"].setdefault(job.key, []).append(r["value"] if r else None)
                if r:
                    rec["jobs"].setdefault(job.key, {"reps": []})["reps"].append(r)
        for live in lives:
            j = live.rec["jobs"].get(job.key)
            if j:
                j["value"] = summarize([r["value"] for r in j["reps"]])
                j["cpu_us_per_io"] = summarize([r["cpu_us_per_io"] for r in j["reps"]])
                s = j["value"]
                log(f"{live.peer.name}: {job.key} median {s['median']:.0f} {job.metric} "
                    f"(min {s['min']:.0f}, max {s['max']:.0f}, spread {spread(s):.0%})")
                for lat in ("sync_p50_us", "sync_p99_us"):
                    got = [r[lat] for r in j["reps"] if r.get(lat) is not None]
                    if got:
                        j[lat] = summarize(got)
    if not metadata:
        return
    metas = {live.peer.name: [] for live in lives}
    for k in range(args.reps):
        ctx.idle_checks.append(dict(wait_for_calm(args.calm_wait), round=f"metadata {k + 1}"))
        for live in rotated([lv for lv in lives if lv.alive()], k):
            try:
                m = jobs.run_metadata(meta_bin, os.path.join(live.target, f"meta-{k}"), args.files, live.pid, cmds)
            except RuntimeError as e:
                live.rec["errors"].append(f"metadata round {k + 1}: {e}")
                log(f"{live.peer.name}: metadata round {k + 1} FAILED: {e}")
                m = None
            metas[live.peer.name].append(m)
            for ph in jobs.METADATA_PHASES:
                live.rec["rounds"].setdefault("meta:" + ph, []).append(m["phases"].get(ph) if m else None)
    for live in lives:
        meta = [m for m in metas[live.peer.name] if m]
        if meta:
            rec = live.rec
            rec["metadata"] = {ph: summarize([m["phases"].get(ph) for m in meta]) for ph in jobs.METADATA_PHASES}
            rec["metadata_cpu_us_per_op"] = summarize([m["cpu_us_per_op"] for m in meta])
            log(f"{live.peer.name}: metadata " + ", ".join(
                f"{ph} {rec['metadata'][ph]['median']:.0f}/s (spread {spread(rec['metadata'][ph]):.0%})"
                for ph in jobs.METADATA_PHASES if rec["metadata"][ph]))


def spread(s):
    """(max - min) / median of a summary: how much the rounds disagree about one figure."""
    return (s["max"] - s["min"]) / s["median"] if s and s["median"] else 0.0


def machine_info(ctx):
    def first(cmd):
        try:
            r = run(cmd, timeout=30)
            return (r.stdout or r.stderr).strip().splitlines()[0]
        except (OSError, subprocess.TimeoutExpired, IndexError):
            return "?"
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = f.readline().split()[1]
    return {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "kernel": platform.release(), "cpu": cpu, "cpus": os.cpu_count(),
            "memory_gib": round(int(mem) / (1 << 20), 1), "fio": first(["fio", "--version"]),
            "java": first([ctx.java, "-version"]), "gcc": first(["gcc", "--version"]),
            "go": first(["go", "version"]), "os": first(["sh", "-c", ". /etc/os-release; echo $PRETTY_NAME"]),
            "enable_uring": open("/sys/module/fuse/parameters/enable_uring").read().strip()
            if os.path.exists("/sys/module/fuse/parameters/enable_uring") else "absent"}


def main(argv):
    args = parse_args(argv)
    all_peers = peers.all_peers()
    if args.list:
        for p in all_peers:
            print(f"{p.name:28} {p.label}")
        return 0
    if os.geteuid() != 0:
        sys.exit("ringfuse bench fio: run as root (it mounts filesystems and drops caches)")
    ctx = Ctx(args)
    chosen = selected(all_peers, args.only)
    out = os.path.abspath(args.out or os.path.join(ctx.home, "target/bench-fio-quick" if args.quick else "docs/bench"))
    os.makedirs(out, exist_ok=True)
    ctx.cleanup = Cleanup()
    atexit.register(ctx.cleanup.undo)
    # SIGTERM/SIGHUP end the run like Ctrl-C: unwind through the finally blocks, then atexit unmounts
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    started = time.monotonic()
    os.makedirs(ctx.work)
    ctx.logs = os.path.join(ctx.work, "logs")
    os.makedirs(ctx.logs)
    # one tmpfs for the kernel peer, the passthrough peers' backing directories and go-fuse memfs's data
    ctx.tmpfs = os.path.join(ctx.work, "tmpfs")
    os.makedirs(ctx.tmpfs)
    # every peer's files live at once (about 320 MiB each): room for all of them; a sql peer's database keeps
    # what it wrote (SQLite reuses freed pages only, PostgreSQL keeps dead rows and up to 1 GiB of WAL), so
    # 2 GiB more each (a run with --only memfs-dev and both sql peers got ENOSPC in a 2 GiB tmpfs)
    sql_peers = sum(1 for p in chosen if "sql" in p.name)
    size_g = max(2, (len(chosen) * 400 >> 10) + 1) + 2 * sql_peers
    r = run(["mount", "-t", "tmpfs", "-o", f"size={size_g}g", "ringfuse-bench", ctx.tmpfs], timeout=30)
    if r.returncode != 0:
        sys.exit(f"ringfuse bench fio: cannot mount a tmpfs: {r.stderr.strip()}")
    ctx.cleanup.add_mount(ctx.tmpfs)
    if os.path.exists("/sys/module/fuse/parameters/enable_uring") and os.access(
            "/sys/module/fuse/parameters/enable_uring", os.W_OK):
        with open("/sys/module/fuse/parameters/enable_uring", "w") as f:
            f.write("1")  # FUSE-over-io_uring must be on before the mounts that use it
    if shutil.which("fio") is None:
        peers.apt_install("fio")
    meta_bin = os.path.join(ctx.bin, "metadata")
    src = os.path.join(ctx.home, "bench", "native", "metadata.c")
    r = run(["gcc", "-O2", "-Wall", "-o", meta_bin, src], timeout=120)
    if r.returncode != 0:
        sys.exit(f"ringfuse bench fio: cannot compile {src}: {r.stderr.strip()}")
    ctx.commands.append(f"gcc -O2 -Wall -o metadata bench/native/metadata.c")
    builds = peers.Builds(ctx)
    cmds = Commands()
    ctx.results = []
    ctx.idle_checks = []
    log(f"{len(chosen)} peers, {args.reps} rounds, runtime {args.runtime}s, {args.files} files; out {out}")
    lives = []
    try:
        # every peer is mounted for the whole run, so that each job can alternate between them in rounds
        for peer in chosen:
            log(f"--- {peer.name}: build, mount, lay out, warm up")
            live = prepare(ctx, args, peer, builds, cmds)
            if live:
                lives.append(live)
        run_rounds(ctx, args, lives, meta_bin, cmds)
    except KeyboardInterrupt:
        log("interrupted: stopping servers and unmounting")
        ctx.cleanup.undo()
        return 130
    finally:
        for live in lives:
            release(live)
        ctx.cleanup.undo()
        shutil.rmtree(ctx.work, ignore_errors=True)
    results = ctx.results
    run_info = {"machine": machine_info(ctx), "args": vars(args), "duration_s": round(time.monotonic() - started),
                "build_commands": ctx.commands, "idle_checks": ctx.idle_checks, "job_commands": cmds.by_key, "quick": args.quick}
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"run": run_info, "peers": results}, f, indent=1)
    report.write(out, run_info, results)
    log(f"done in {run_info['duration_s']}s: {os.path.join(out, 'results.md')}")
    failed = [r["name"] for r in results if r.get("build_error") or r.get("errors")]
    if failed:
        log(f"peers with build failures or errors (see results.md): {', '.join(failed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
