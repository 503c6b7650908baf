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
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from jobs import J1, J2, J3R, fio_job, with_cpu  # noqa: E402
from system import Cleanup, run, start_server, unmount  # noqa: E402

HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# the harness's j1, j2 and j3-read, all time-based here
JOBS = [("j1 randread 4k QD1", J1, "iops"), ("j2 randread 4k QD32x2", J2, "iops"), ("j3 seq read 1M", J3R, "mibps")]


def fio(directory, name, args, seconds):
    argv = ["fio", f"--name={name}", f"--directory={directory}", *args, f"--runtime={seconds}", "--time_based",
            "--group_reporting", "--output-format=json"]
    r = run(argv, timeout=seconds + 120)
    if r.returncode != 0:
        raise RuntimeError(f"fio in {directory}: {r.stderr.strip()[-300:]}")
    job = fio_job(r.stdout)
    side = job["read"]
    ios = side["total_ios"]
    # usr_cpu/sys_cpu: percent of one CPU over the runtime, summed over the group's jobs
    cpu = (job["usr_cpu"] + job["sys_cpu"]) / 100 * job["job_runtime"] / 1000
    return side["iops"], side["bw_bytes"] / (1 << 20), ios, cpu


def main(argv):
    if "-h" in argv or "--help" in argv:  # anything else starting with -- is taken for a flag of a full run
        print(__doc__.strip())
        return
    # a SIGTERM (e.g. from timeout(1)) still unmounts and stops the servers in the finally below
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))
    rounds = int(argv[0]) if argv and not argv[0].startswith("--") else 3
    seconds = int(argv[1]) if len(argv) > 1 and not argv[1].startswith("--") else 5
    go_bin = argv[argv.index("--go-loopback") + 1] if "--go-loopback" in argv else None
    work = tempfile.mkdtemp(prefix="ringfuse-ptcap-")
    tmpfs = os.path.join(work, "tmpfs")
    os.makedirs(tmpfs)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2g", "ringfuse-ptcap", tmpfs], check=True)
    cleanup = Cleanup()  # the servers and their mounts
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
            try:
                p = start_server(cleanup, [a.format(src=src, mnt=mnt) for a in argv_t], mnt, log)
            except RuntimeError as e:
                sys.exit(f"{mnt} {e}")
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
                    (iops, mibps, ios, cpu), server = with_cpu(pid, lambda: fio(d, label.split()[0], args, seconds))
                    server = round(server, 2) if server is not None else None
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
        cleanup.undo()  # ringfuse unmounts on SIGTERM; what is left is unmounted
        unmount(tmpfs)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1:])
