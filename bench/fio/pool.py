#!/usr/bin/env python3
"""`ringfuse bench pool`: the pool against ext4, xfs and btrfs on the same storage (issue 10, point 10).

    pool.py [--quick] [--only NAMES] [--out DIR] [--dir DIR] [--size N] [--reps N] [--bonnie-size MIB]
            [--bonnie-files K] [--no-bonnie] [--no-fio] [--no-verify] [--jfr DIR]

Every peer gets its own sparse image of the same size in one directory (one disk): the kernel filesystems
on a loop device with direct I/O over it, the pool datasets (compression off and lz4) with `ringfuse pool
create` on it. Then bonnie++ (driven phase by phase, page cache dropped before each phase that reads),
the fio jobs and the metadata program of `bench fio`, all in rounds (every peer once per round, rotated),
and `pool verify` against the device's O_DIRECT sequential read bandwidth. Writes pool.md, pool.json and
pool.png into --out (docs/bench; target/bench-pool-quick with --quick). Needs root.
"""
import argparse
import atexit
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bonnie  # noqa: E402
import harness  # noqa: E402
import jobs  # noqa: E402
import peers  # noqa: E402
import pool_peers  # noqa: E402
import pool_report  # noqa: E402
from system import Cleanup, find_jdk, log, run, start_server, stop_server, wait_for_calm  # noqa: E402


class PoolCleanup(Cleanup):
    """Cleanup plus actions after the unmounts (losetup -d, removing images), run newest first."""

    def __init__(self):
        super().__init__()
        self.after = []

    def later(self, fn):
        self.after.append(fn)

    def undo(self):
        super().undo()
        while self.after:
            fn = self.after.pop()
            try:
                fn()
            except (OSError, subprocess.SubprocessError) as e:
                log(f"cleanup step failed: {e}")


def size_arg(text):
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    t = text.strip().lower().removesuffix("ib").removesuffix("b")
    if t and t[-1] in units:
        return int(float(t[:-1]) * units[t[-1]])
    return int(t)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="ringfuse bench pool")
    p.add_argument("--quick", action="store_true", help="smoke run: 1 GiB images, bonnie++ 128 MiB / 1K files, "
                   "1 round, 1 s fio jobs")
    p.add_argument("--only", help="comma-separated peers: " + ",".join(x.name for x in pool_peers.PEERS))
    p.add_argument("--out", help="output directory (default docs/bench; target/bench-pool-quick with --quick)")
    p.add_argument("--dir", default="/var/tmp", help="where the images go (one disk for all; default /var/tmp)")
    p.add_argument("--size", type=size_arg, help="image size per peer (default 8G; 1G with --quick)")
    p.add_argument("--reps", type=int, help="rounds (default 3; 1 with --quick)")
    p.add_argument("--runtime", type=int, help="seconds per time-based fio job (default 3; 1 with --quick)")
    p.add_argument("--files", type=int, help="files of the metadata job (default 10000; 1000 with --quick)")
    p.add_argument("--bonnie-size", type=int, help="bonnie++ file size in MiB (default 2048; 128 with --quick)")
    p.add_argument("--bonnie-files", type=int, help="bonnie++ -n: thousands of files (default 16; 1 with --quick)")
    p.add_argument("--verify-size", type=int, help="MiB written into each pool before `pool verify` and of the "
                   "dense file read for the device bandwidth (default 2048; 128 with --quick)")
    p.add_argument("--no-bonnie", action="store_true")
    p.add_argument("--no-fio", action="store_true")
    p.add_argument("--no-verify", action="store_true")
    p.add_argument("--jobs", help="comma-separated fio jobs and `metadata` (default: all): "
                   + ",".join(j.key for j in jobs.JOBS + jobs.FSYNC_JOBS) + ",metadata")
    p.add_argument("--jfr", help="record a JFR file of every pool server into this directory, and write "
                   "where each bonnie++ phase spends the server's CPU there (a profiling run: not for figures)")
    p.add_argument("--calm-wait", type=int, help="seconds to wait for an idle machine before each round "
                   "(default 15; 3 with --quick)")
    a = p.parse_args(argv)
    q = a.quick
    a.size = a.size or (1 << 30 if q else 8 << 30)
    a.reps = a.reps or (1 if q else 3)
    a.runtime = a.runtime or (1 if q else 3)
    a.files = a.files or (1000 if q else 10000)
    a.bonnie_size = a.bonnie_size or (128 if q else 2048)
    a.bonnie_files = a.bonnie_files or (1 if q else 16)
    a.verify_size = a.verify_size or (128 if q else 2048)
    a.calm_wait = a.calm_wait if a.calm_wait is not None else (3 if q else 15)
    a.loops = 1 if q else 4
    a.warmup = 1 if q else 8
    known = [j.key for j in jobs.JOBS + jobs.FSYNC_JOBS] + ["metadata"]
    a.job_keys = [k.strip() for k in a.jobs.split(",") if k.strip()] if a.jobs else known
    bad = [k for k in a.job_keys if k not in known]
    if bad:
        p.error(f"unknown job(s) {', '.join(bad)}; known: {', '.join(known)}")
    return a


class Run:
    """What the run holds: paths, the CLI, the cleanup, the records."""

    def __init__(self, args):
        self.home = os.environ.get("RINGFUSE_HOME") or os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        self.ringfuse = os.path.join(self.home, "ringfuse")
        self.args_dir = args.dir
        self.work = os.path.join(os.path.abspath(args.dir), f"ringfuse-bench-pool-{os.getpid()}")
        self.logs = os.path.join(self.work, "logs")
        self.env = dict(os.environ, RINGFUSE_POOLS=os.path.join(self.work, "pools"))
        self.cleanup = PoolCleanup()
        self.setup_commands = []
        self.idle_checks = []
        self.results = []


def prepare(rn, args, peer, cmds):
    """Image, filesystem or pool, mount (server), fio layout and warm-up; returns a harness.Live or None."""
    rec = {"name": peer.name, "label": peer.label, "kind": peer.kind, "transport": peer.kind,
           "jobs": {}, "errors": [], "notes": [], "rounds": {}, "bonnie": [], "compare": peer.compare}
    rn.results.append(rec)
    live = harness.Live(peer, rec)
    live.ctx, live.proc_list = rn, rn.cleanup.procs
    root = os.path.join(rn.work, peer.name)
    live.mnt = os.path.join(root, "mnt")
    live.backing = root
    os.makedirs(live.mnt)
    image = os.path.join(root, "image")
    rn.cleanup.later(lambda: os.path.exists(image) and os.unlink(image))
    live.image = image
    try:
        if peer.kind == "kernel":
            pool_peers.make_image(image, args.size)
            _, rec["version"] = pool_peers.setup_kernel(peer, image, live.mnt, rn.cleanup, rn.setup_commands)
            rec["server_command"] = "(kernel)"
        else:
            if peer.kind == "memfs":
                argv = pool_peers.memfs_server_argv(rn.ringfuse, live.mnt, rn.setup_commands)
            else:
                live.dataset = pool_peers.setup_pool(peer, image, args.size, rn.ringfuse, rn.env, rn.setup_commands)
                jfr = os.path.join(os.path.abspath(args.jfr), peer.name + ".jfr") if args.jfr else None
                argv = pool_peers.pool_server_argv(rn.ringfuse, live.dataset, live.mnt, jfr, peer.mount_opts)
            log_path = os.path.join(rn.logs, peer.name + ".log")
            live.proc = start_server(rn.cleanup, argv, live.mnt, log_path, {"RINGFUSE_POOLS": rn.env["RINGFUSE_POOLS"]})
            rec["server_command"] = " ".join(argv).replace(rn.work, "<work>")
            rec["transport"] = pool_peers.transport_of(log_path) or "?"
            rec["version"] = f"ringfuse {git_head(rn.home)}"
            live.stats = pool_peers.stats_socket(live.mnt)
        live.target = live.mnt
        live.data = os.path.join(live.mnt, "data")
        os.makedirs(live.data)
        if not args.no_fio:
            jobs.prepare(live.data, args.warmup, rn.logs, cmds, keys=set(args.job_keys))
    except (RuntimeError, OSError, pool_peers.PeerError, subprocess.SubprocessError) as e:
        rec["errors"].append(str(e))
        log(f"{peer.name}: FAILED before measuring: {e}")
        return None
    return live


def keep_server_logs(rn, lives):
    """The tail of the log of every pool server that failed, into its record (the logs go with the work
    directory); the transport each server reported (it prints it just after the mount appears)."""
    for live in lives:
        if live.peer.kind != "kernel" and live.rec.get("transport") in (None, "?"):
            live.rec["transport"] = pool_peers.transport_of(os.path.join(rn.logs, live.peer.name + ".log")) or "?"
        if live.peer.kind == "kernel" or not (live.rec["errors"] or (live.proc and live.proc.poll() not in (None, 0))):
            continue
        try:
            with open(os.path.join(rn.logs, live.peer.name + ".log")) as f:
                live.rec["notes"].append("server log: " + " / ".join(f.read().strip().splitlines()[-12:]))
        except OSError:
            pass


def git_head(home):
    try:
        return run(["git", "-C", home, "rev-parse", "--short", "HEAD"], timeout=30).stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def run_bonnie(rn, args, lives):
    """bonnie++ in rounds, every peer once per round in a rotated order."""
    for k in range(args.reps):
        rn.idle_checks.append(dict(wait_for_calm(args.calm_wait), round=f"bonnie {k + 1}"))
        for live in harness.rotated([lv for lv in lives if lv.alive()], k):
            d = os.path.join(live.mnt, f"bonnie-{k}")
            os.makedirs(d)
            stats = getattr(live, "stats", None)
            log(f"{live.peer.name}: bonnie++ round {k + 1}")
            try:
                r = bonnie.run(d, args.bonnie_size, args.bonnie_files, live.peer.name, live.pid,
                               (lambda s=stats: pool_peers.read_stats(s)) if stats else None,
                               timeout=3600, log_path=os.path.join(rn.logs, f"bonnie-{live.peer.name}-{k}.log"))
                live.rec["bonnie"].append(r)
                rn.bonnie_command = r["command"].replace(d, "<mnt>/bonnie-N").replace(live.peer.name, "PEER")
            except RuntimeError as e:
                live.rec["errors"].append(f"bonnie++ round {k + 1}: {e}")
                log(f"{live.peer.name}: bonnie++ round {k + 1} FAILED: {e}")
                live.rec["bonnie"].append(None)
            shutil.rmtree(d, ignore_errors=True)


def summarize_bonnie(lives):
    """Medians of the rounds done so far (also after an interrupted run)."""
    for live in lives:
        rs = [r for r in live.rec["bonnie"] if r]
        live.rec["bonnie_summary"] = {m: harness.summarize([r["figures"].get(m) for r in rs])
                                      for m in bonnie.METRICS}
        for m in bonnie.METRICS:
            live.rec["rounds"]["bonnie:" + m] = [r["figures"].get(m) if r else None for r in live.rec["bonnie"]]


def run_verify(rn, args, lives):
    """Fills each pool with `verify_size` MiB of random data, stops its server (which commits), times
    `pool verify`; the device's O_DIRECT read bandwidth is measured before and after, beside the images."""
    pools = [lv for lv in lives if lv.peer.kind == "pool" and lv.alive()]
    if not pools:
        return None
    dense = os.path.join(rn.work, "dense")
    rn.cleanup.later(lambda: os.path.exists(dense) and os.unlink(dense))
    out = {"device_before": pool_peers.device_read(dense, args.verify_size, rn.logs)}
    os.unlink(dense)
    for live in pools:
        fill = ["fio", "--name=fill", f"--filename={os.path.join(live.mnt, 'verify-fill')}",
                f"--size={args.verify_size}M", "--rw=write", "--bs=1M", "--ioengine=psync", "--end_fsync=1",
                "--fallocate=none", "--output-format=terse"]
        out["fill_command"] = " ".join(fill).replace(live.mnt, "<mnt>")
        try:
            pool_peers.checked(fill, timeout=3600)
            note = stop_server(live.proc, live.mnt)
            if note:
                live.rec["notes"].append(note)
            if live.proc in rn.cleanup.procs:
                rn.cleanup.procs.remove(live.proc)
            live.proc = None
            bonnie.drop_caches(3)
            live.rec["verify"] = pool_peers.verify(rn.ringfuse, live.peer, rn.env, timeout=3600)
            log(f"{live.peer.name}: {live.rec['verify']['output'].splitlines()[0]}")
        except (pool_peers.PeerError, RuntimeError, OSError) as e:
            live.rec["errors"].append(f"verify: {e}")
            log(f"{live.peer.name}: verify FAILED: {e}")
    out["device_after"] = pool_peers.device_read(dense, args.verify_size, rn.logs)
    os.unlink(dense)
    return out


def machine(rn):
    info = harness.machine_info(type("C", (), {"java": os.path.join(find_jdk() or "/usr", "bin", "java")})())
    info["bonnie"] = run(["dpkg-query", "-W", "-f=${Version}", "bonnie++"], timeout=30).stdout.strip()
    df = run(["df", "--output=source,fstype", os.path.abspath(rn.args_dir)], timeout=30).stdout.strip().splitlines()
    info["images_on"] = df[-1] if df else "?"
    return info


def main(argv):
    args = parse_args(argv)
    if os.geteuid() != 0:
        sys.exit("ringfuse bench pool: run as root (loop devices, mounts, drop_caches)")
    known = {p.name: p for p in pool_peers.PEERS}
    chosen = [p for p in pool_peers.PEERS if p.default]
    if args.only:
        names = [s.strip() for s in args.only.split(",") if s.strip()]
        bad = [n for n in names if n not in known]
        if bad:
            sys.exit(f"ringfuse bench pool: unknown peer(s) {', '.join(bad)}; known: {', '.join(known)}")
        chosen = [known[n] for n in names]
    jdk = find_jdk()
    if jdk is None:
        sys.exit("ringfuse bench pool: no JDK 22 or newer found (JAVA_HOME, /usr/lib/jvm, PATH)")
    os.environ["JAVA_HOME"] = jdk
    os.environ["PATH"] = os.path.join(jdk, "bin") + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
    rn = Run(args)
    out = os.path.abspath(args.out or os.path.join(rn.home, "target/bench-pool-quick" if args.quick else "docs/bench"))
    os.makedirs(out, exist_ok=True)
    if args.jfr:
        os.makedirs(args.jfr, exist_ok=True)
    try:
        peers.apt_install("bonnie++", "fio", "xfsprogs", "btrfs-progs", "e2fsprogs")
    except peers.BuildError as e:
        sys.exit(f"ringfuse bench pool: {e}")
    atexit.register(rn.cleanup.undo)
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    started = time.monotonic()
    os.makedirs(rn.logs)
    rn.cleanup.later(lambda: shutil.rmtree(rn.work, ignore_errors=True))
    if os.access("/sys/module/fuse/parameters/enable_uring", os.W_OK):
        with open("/sys/module/fuse/parameters/enable_uring", "w") as f:
            f.write("1")
    cmds = harness.Commands()
    lives = []
    verify = None
    interrupted = False
    try:
        if any(p.kind != "kernel" for p in chosen):
            log("building the CLI if needed (./ringfuse pool list)")
            pool_peers.checked([rn.ringfuse, "pool", "list"], timeout=1800, env=rn.env, what="building ringfuse")
        meta_bin = os.path.join(rn.work, "metadata")
        pool_peers.checked(["gcc", "-O2", "-Wall", "-o", meta_bin, os.path.join(rn.home, "bench/native/metadata.c")],
                           timeout=120)
        log(f"{len(chosen)} peers, images of {args.size >> 20} MiB in {rn.work}, {args.reps} rounds; out {out}")
        for peer in chosen:
            log(f"--- {peer.name}: image, mkfs/create, mount" + ("" if args.no_fio else ", fio layout, warm-up"))
            live = prepare(rn, args, peer, cmds)
            if live:
                lives.append(live)
        if not args.no_bonnie:
            try:
                run_bonnie(rn, args, lives)
            finally:
                summarize_bonnie(lives)
        if not args.no_fio:
            job_list = [j for j in jobs.JOBS + jobs.FSYNC_JOBS if j.key in args.job_keys]
            harness.run_rounds(rn, args, lives, meta_bin, cmds, job_list, "metadata" in args.job_keys)
        if not args.no_verify:
            verify = run_verify(rn, args, lives)
    except KeyboardInterrupt:
        # what was measured so far is still written (marked interrupted), after the cleanup
        log("interrupted: stopping servers, unmounting, removing loop devices and images")
        interrupted = True
    finally:
        keep_server_logs(rn, lives)
        rn.cleanup.undo()
    info = {"machine": machine(rn), "args": vars(args), "duration_s": round(time.monotonic() - started),
            "setup_commands": rn.setup_commands, "job_commands": cmds.by_key, "idle_checks": rn.idle_checks,
            "bonnie_command": getattr(rn, "bonnie_command", None), "verify": verify, "quick": args.quick,
            "ringfuse": git_head(rn.home), "interrupted": interrupted}
    with open(os.path.join(out, "pool.json"), "w") as f:
        json.dump({"run": info, "peers": rn.results}, f, indent=1)
    pool_report.write(out, info, rn.results)
    if args.jfr:
        import pool_profile
        for r in rn.results:
            jfr = os.path.join(os.path.abspath(args.jfr), r["name"] + ".jfr")
            if r["kind"] == "pool" and os.path.exists(jfr):
                text = pool_profile.profile(jfr, [b for b in r["bonnie"] if b])
                with open(os.path.join(args.jfr, r["name"] + "-profile.txt"), "w") as f:
                    f.write(text)
                log(f"{r['name']}: profile in {os.path.join(args.jfr, r['name'] + '-profile.txt')}")
    log(f"{'INTERRUPTED, partial results' if interrupted else 'done'} in {info['duration_s']}s: "
        f"{os.path.join(out, 'pool.md')}")
    failed = [r["name"] for r in rn.results if r.get("errors")]
    if failed:
        log(f"peers with errors (see pool.md): {', '.join(failed)}")
    return 130 if interrupted else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
