#!/usr/bin/env python3
"""Kernel passthrough against the kernel itself, side by side in one run (issue 14, point 4).

fio on a tmpfs directly, through ringfuse passthrough with kernel passthrough on, and through go-fuse's
loopback example (which registers backing files too: FUSE_PASSTHROUGH, when root), in alternating rounds.
With kernel passthrough no read reaches a server, so for each job it prints the figure, the ratio to the
tmpfs figure of the same round, fio's own CPU time per I/O (user + system: where the kernel's extra work
shows) and each server's CPU time during the job (≈ 0 proves the data bypassed it).

Usage (root): python3 bench/fio/kernel_passthrough.py [rounds] [seconds] [--go-loopback BIN]
(RINGFUSE_CLI="java ... dev.ringfuse.cli.Main" runs a built CLI instead of the ringfuse script.)
"""
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JOBS = [  # the harness's j1, j2 and j3-read (bench/fio/jobs.py), time-based
    ("j1 randread 4k QD1", ["--rw=randread", "--bs=4k", "--direct=1", "--ioengine=libaio", "--iodepth=1", "--size=16M"], "iops"),
    ("j2 randread 4k QD32x2", ["--rw=randread", "--bs=4k", "--direct=1", "--ioengine=libaio", "--iodepth=32",
                               "--numjobs=2", "--size=16M"], "iops"),
    ("j3 seq read 1M", ["--rw=read", "--bs=1M", "--ioengine=psync", "--size=128M", "--invalidate=1"], "mibps"),
]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fio(directory, name, args, seconds):
    argv = ["fio", f"--name={name}", f"--directory={directory}", *args, f"--runtime={seconds}", "--time_based",
            "--group_reporting", "--output-format=json"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 120)
    if r.returncode != 0:
        raise RuntimeError(f"fio in {directory}: {r.stderr.strip()[-300:]}")
    job = json.loads(r.stdout[r.stdout.index("{"):])["jobs"][0]
    side = job["read"]
    ios = side["total_ios"]
    # usr_cpu/sys_cpu: percent of one CPU over the runtime, summed over the group's jobs
    cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000
    return side["iops"], side["bw_bytes"] / (1 << 20), ios, cpu


def wait_mounted(mnt, proc, log):
    for _ in range(240):
        with open("/proc/self/mounts") as f:
            if any(line.split()[1] == mnt for line in f):
                return
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    with open(log) as f:
        sys.exit(f"{mnt} did not mount:\n{f.read()[-2000:]}")


def main(argv):
    # a SIGTERM (e.g. from timeout(1)) still unmounts and stops the servers in the finally below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    rounds = int(argv[0]) if argv and not argv[0].startswith("--") else 3
    seconds = int(argv[1]) if len(argv) > 1 and not argv[1].startswith("--") else 5
    go_bin = argv[argv.index("--go-loopback") + 1] if "--go-loopback" in argv else None
    work = tempfile.mkdtemp(prefix="ringfuse-ptcap-")
    tmpfs = os.path.join(work, "tmpfs")
    os.makedirs(tmpfs)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2g", "ringfuse-ptcap", tmpfs], check=True)
    procs, mounts = [], []
    try:
        peers = {"kernel-tmpfs": (os.path.join(tmpfs, "kernel"), None)}
        # RINGFUSE_CLI: the command that runs the CLI, when not the ringfuse script (which rebuilds first)
        cli = os.environ.get("RINGFUSE_CLI", os.path.join(HOME, "ringfuse")).split()
        starts = [("ringfuse-passthrough", [*cli, "mount", "passthrough", "{src}", "{mnt}", "--passthrough", "on"])]
        if go_bin:
            starts.append(("go-fuse-loopback", [go_bin, "-q", "{mnt}", "{src}"]))
        os.makedirs(peers["kernel-tmpfs"][0])
        for name, argv_t in starts:
            src, mnt = os.path.join(tmpfs, name + "-src"), os.path.join(work, name)
            os.makedirs(src)
            os.makedirs(mnt)
            log = os.path.join(work, name + ".log")
            cmd = [a.format(src=src, mnt=mnt) for a in argv_t]
            p = subprocess.Popen(cmd, stdout=open(log, "w"), stderr=subprocess.STDOUT)
            procs.append(p)
            wait_mounted(mnt, p, log)
            mounts.append(mnt)
            peers[name] = (mnt, p.pid)
        for _, (d, _) in peers.items():  # lay out the files before timing
            for label, args, _ in JOBS:
                subprocess.run(["fio", f"--name={label.split()[0]}", f"--directory={d}", *args, "--create_only=1",
                                "--output-format=terse"], check=True, capture_output=True, timeout=300)
        results = {}  # (job, peer) -> list of (value, ratio, fio cpu us/io, server cpu s)
        print(f"load average before: {open('/proc/loadavg').read().strip()}")
        for rnd in range(rounds):
            for label, args, metric in JOBS:
                base = None
                for name, (d, pid) in peers.items():
                    before = cpu_seconds(pid) if pid else None
                    iops, mibps, ios, cpu = fio(d, label.split()[0], args, seconds)
                    server = round(cpu_seconds(pid) - before, 2) if pid else None
                    value = iops if metric == "iops" else mibps
                    base = value if name == "kernel-tmpfs" else base
                    results.setdefault((label, name), []).append((value, value / base, cpu * 1e6 / ios, server))
                    print(f"round {rnd + 1} {label:24s} {name:22s} {value:12.1f} {metric:5s} {value / base:5.2f}x "
                          f"fio cpu {cpu * 1e6 / ios:6.2f} us/io  server cpu {server} s", flush=True)
        print(f"load average after: {open('/proc/loadavg').read().strip()}")
        print(f"\n| job | peer | median | ratio to tmpfs (median of rounds) | rounds | fio CPU µs/I/O | server CPU s/job |")
        print("|---|---|---|---|---|---|---|")
        for label, _, metric in JOBS:
            for name in peers:
                rs = results[(label, name)]
                print(f"| {label} | {name} | {statistics.median(r[0] for r in rs):.1f} {metric} | "
                      f"{statistics.median(r[1] for r in rs):.2f}x | {' '.join(f'{r[1]:.2f}' for r in rs)} | "
                      f"{statistics.median(r[2] for r in rs):.2f} | "
                      f"{'-' if rs[0][3] is None else statistics.median(r[3] for r in rs)} |")
    finally:
        for p in procs:  # ringfuse unmounts on SIGTERM
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        with open("/proc/self/mounts") as f:
            left = {line.split()[1] for line in f}
        for mnt in mounts:
            if mnt in left:
                subprocess.run(["umount", "-l", mnt])
        subprocess.run(["umount", "-l", tmpfs])
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
