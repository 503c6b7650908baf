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
from system import Cleanup, Spinners, log, mounted, run, stop_process, unmount, wait_for_calm  # noqa: E402


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
        self.java = os.path.join(os.environ.get("JAVA_HOME", "/usr"), "bin", "java")
        self.bin = os.path.join(self.home, "bench", "target", "fio-bin")
        os.makedirs(self.bin, exist_ok=True)
        self.work = f"/tmp/ringfuse-bench-fio-{os.getpid()}"  # absolute: every server wants absolute paths
        self.commands = []  # build commands


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ringfuse bench fio")
    p.add_argument("--quick", action="store_true", help="smoke run: 1 repetition, 1 s runtimes, 1,000 files")
    p.add_argument("--only", help="comma-separated peer names or globs (e.g. 'kernel-*,ringfuse-*')")
    p.add_argument("--out", help="output directory (default docs/bench, or target/bench-fio-quick with --quick)")
    p.add_argument("--reps", type=int, help="repetitions per job (default 3; 1 with --quick)")
    p.add_argument("--runtime", type=int, help="seconds per time-based job (default 3; 1 with --quick)")
    p.add_argument("--files", type=int, help="files of the metadata job (default 10000; 1000 with --quick)")
    p.add_argument("--calm-wait", type=int, help="seconds to wait for an idle machine before each server "
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


def start_server(ctx, cleanup, argv, env_extra, mnt, log_path, timeout=120):
    """Starts a server in its own session and waits until `mnt` is mounted; returns the Popen."""
    env = dict(os.environ, **(env_extra or {}))
    logf = open(log_path, "w")
    proc = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
                            start_new_session=True)
    cleanup.add_proc(proc)
    cleanup.add_mount(mnt)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if mounted(mnt):
            return proc
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    stop_process(proc)
    with open(log_path) as f:
        tail = "".join(f.readlines()[-15:])
    raise RuntimeError(f"did not mount within {timeout}s (exit {proc.poll()}):\n{tail}")


def stop_server(proc, mnt):
    """SIGTERM (each server unmounts on it); anything left mounted is unmounted and reported."""
    stop_process(proc)
    if mounted(mnt):
        unmount(mnt)
        return "left mounted after SIGTERM: unmounted by the harness"
    return None


def summarize(values):
    v = [x for x in values if x is not None]
    if not v:
        return None
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}


def measure(ctx, args, peer, builds, meta_bin, cmds):
    """Runs every job against one peer; returns its result record (errors are recorded, not raised)."""
    rec = {"name": peer.name, "label": peer.label, "transport": peer.transport, "language": peer.language,
           "jobs": {}, "errors": [], "notes": []}
    if peer.available:
        try:
            reason = peer.available(builds)
        except peers.BuildError as e:
            reason = f"build failed: {e}"
        if reason:
            rec["skipped"] = reason
            return rec
    root = os.path.join(ctx.work, peer.name)
    mnt, backing = os.path.join(root, "mnt"), os.path.join(ctx.tmpfs, peer.name + "-backing")
    os.makedirs(mnt)
    os.makedirs(backing)
    cleanup = ctx.cleanup
    proc = None
    if peer._start is not None:
        try:
            argv, env_extra, version = peer.command(ctx, builds, mnt, backing)
        except peers.BuildError as e:
            rec["build_error"] = str(e)
            log(f"{peer.name}: BUILD FAILED, skipping: {e.args[0].splitlines()[0]}")
            return rec
        rec["version"] = version
        rec["server_command"] = " ".join(argv)
    else:
        rec["version"] = f"Linux {platform.release()}"
        rec["server_command"] = "(none: fio runs on a tmpfs directory)"
    rec["idle"] = wait_for_calm(args.calm_wait)
    log(f"{peer.name}: machine {'idle' if rec['idle']['calm'] else 'BUSY'} "
        f"(load1 {rec['idle']['load1']}, cpu busy {rec['idle']['busy']:.0%}, waited {rec['idle']['waited_s']}s)")
    try:
        if proc is None and peer._start is not None:
            proc = start_server(ctx, cleanup, argv, env_extra, mnt, os.path.join(ctx.logs, peer.name + ".log"))
        target = mnt if peer._start is not None else backing
        pid = proc.pid if proc else None
        data = os.path.join(target, "data")
        os.makedirs(data)
        for job in jobs.JOBS:
            if job.fresh_file:
                continue
            if job.key.endswith("-awake"):
                continue
            jobs.layout(job, data, cmds)
        # warm-up, not recorded: lets JIT-compiled servers reach steady state before the first figure
        # (every peer gets it, so the C and Go servers are treated alike)
        jobs.warm_up(data, args.warmup, ctx.logs, cmds)
        for job in jobs.JOBS:
            reps = []
            try:
                for _ in range(args.reps):
                    if job.awake:
                        with Spinners():
                            reps.append(jobs.run_fio(job, data, args.runtime, args.loops, ctx.logs, pid, cmds))
                    else:
                        reps.append(jobs.run_fio(job, data, args.runtime, args.loops, ctx.logs, pid, cmds))
            except RuntimeError as e:
                rec["errors"].append(f"{job.key}: {e}")
                log(f"{peer.name}: {job.key} FAILED: {e}")
            if reps:
                rec["jobs"][job.key] = {"reps": reps, "value": summarize([r["value"] for r in reps]),
                                        "cpu_us_per_io": summarize([r["cpu_us_per_io"] for r in reps])}
                s = rec["jobs"][job.key]["value"]
                log(f"{peer.name}: {job.key} median {s['median']:.0f} {job.metric} (min {s['min']:.0f}, max {s['max']:.0f})")
        meta = []
        try:
            for i in range(args.reps):
                meta.append(jobs.run_metadata(meta_bin, os.path.join(target, f"meta-{i}"), args.files, pid, cmds))
        except RuntimeError as e:
            rec["errors"].append(f"metadata: {e}")
            log(f"{peer.name}: metadata FAILED: {e}")
        if meta:
            rec["metadata"] = {ph: summarize([m["phases"].get(ph) for m in meta]) for ph in jobs.METADATA_PHASES}
            rec["metadata_cpu_us_per_op"] = summarize([m["cpu_us_per_op"] for m in meta])
            log(f"{peer.name}: metadata " + ", ".join(
                f"{ph} {rec['metadata'][ph]['median']:.0f}/s" for ph in jobs.METADATA_PHASES if rec["metadata"][ph]))
        if proc is not None and proc.poll() is not None:
            rec["errors"].append(f"server exited during the run (exit {proc.returncode})")
    except (RuntimeError, OSError) as e:
        rec["errors"].append(str(e))
        log(f"{peer.name}: FAILED: {e}")
    finally:
        if proc is not None:
            note = stop_server(proc, mnt)
            if note:
                rec["notes"].append(note)
            ctx.cleanup.procs.remove(proc)
        shutil.rmtree(backing, ignore_errors=True)
    return rec


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
    r = run(["mount", "-t", "tmpfs", "-o", "size=2g", "ringfuse-bench", ctx.tmpfs], timeout=30)
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
    results = []
    log(f"{len(chosen)} peers, {args.reps} repetitions, runtime {args.runtime}s, {args.files} files; out {out}")
    try:
        for peer in chosen:
            log(f"--- {peer.name}")
            results.append(measure(ctx, args, peer, builds, meta_bin, cmds))
    except KeyboardInterrupt:
        log("interrupted: stopping servers and unmounting")
        ctx.cleanup.undo()
        return 130
    finally:
        ctx.cleanup.undo()
        shutil.rmtree(ctx.work, ignore_errors=True)
    run_info = {"machine": machine_info(ctx), "args": vars(args), "duration_s": round(time.monotonic() - started),
                "build_commands": ctx.commands, "job_commands": cmds.by_key, "quick": args.quick}
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
