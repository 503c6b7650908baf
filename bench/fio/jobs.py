"""The jobs (see /work/shared/design/benchmarking.md and bench/DESIGN.md) and how one repetition runs.

Every repetition records the figure, the server's CPU time (utime+stime from /proc/<pid>/stat before and
after) and the exact command, so the report can show all three.
"""
import json
import os
import shlex
import subprocess

from system import cpu_seconds, run

FIO_COMMON = ["--output-format=json", "--group_reporting"]


class Job:
    """One fio job. `metric` is "iops" or "mibps"; `rw` is the fio result side ("read" or "write")."""

    def __init__(self, key, title, args, metric, rw, time_based, awake=False, fresh_file=False, sync_lat=False):
        self.key, self.title, self.args, self.metric, self.rw = key, title, args, metric, rw
        self.time_based, self.awake, self.fresh_file = time_based, awake, fresh_file
        self.sync_lat = sync_lat  # also record fio's fsync/fdatasync latency percentiles

    @property
    def fio_name(self):
        return self.key.removesuffix("-awake")  # the awake variant reads the same files

    def argv(self, directory, runtime, loops, output):
        a = ["fio", f"--name={self.fio_name}", f"--directory={directory}", *self.args]
        if self.time_based:
            a += [f"--runtime={runtime}", "--time_based"]
        elif "--loops" not in " ".join(self.args) and self.rw == "read":
            a += [f"--loops={loops}"]
        return a + FIO_COMMON + [f"--output={output}"]

    def layout_argv(self, directory):
        """Lays out the data files before timing (fio --create_only=1)."""
        return ["fio", f"--name={self.fio_name}", f"--directory={directory}", *self.args, "--create_only=1",
                "--output-format=terse"]


J1 = ["--rw=randread", "--bs=4k", "--direct=1", "--ioengine=libaio", "--iodepth=1", "--size=16M"]
J2 = ["--rw=randread", "--bs=4k", "--direct=1", "--ioengine=libaio", "--iodepth=32", "--numjobs=2", "--size=16M"]
J3R = ["--rw=read", "--bs=1M", "--ioengine=psync", "--size=128M", "--invalidate=1"]
# fallocate=none: glibc would emulate posix_fallocate on servers without it by writing every block first
J3W = ["--rw=write", "--bs=1M", "--ioengine=psync", "--size=128M", "--end_fsync=1", "--fallocate=none"]
J4 = ["--rw=randwrite", "--bs=4k", "--direct=1", "--ioengine=libaio", "--iodepth=1", "--size=16M"]

JOBS = [
    Job("j1", "j1 randread 4k QD1 direct (the jnr-fuse article's job), IOPS", J1, "iops", "read", True),
    Job("j1-awake", "j1 with two nice-19 busy loops (awake CPUs), IOPS", J1, "iops", "read", True, awake=True),
    Job("j2", "j2 randread 4k QD32 x 2 jobs direct, IOPS", J2, "iops", "read", True),
    Job("j3-read", "j3 sequential read 1 MiB buffered (invalidate), MiB/s", J3R, "mibps", "read", False),
    Job("j3-write", "j3 sequential write 1 MiB + fsync, MiB/s", J3W, "mibps", "write", False, fresh_file=True),
    Job("j4", "j4 randwrite 4k QD1 direct, IOPS", J4, "iops", "write", True),
    Job("j4-awake", "j4 with two nice-19 busy loops (awake CPUs), IOPS", J4, "iops", "write", True, awake=True),
]

# Durability on real storage (`bench pool` only: on tmpfs an fsync is free). A 4 KiB write then fdatasync, as
# a database's log appends; a 4 KiB overwrite at random in a written file then fsync, as its page writes.
FSYNC_SEQ = ["--rw=write", "--bs=4k", "--ioengine=sync", "--fdatasync=1", "--size=64M", "--fallocate=none"]
FSYNC_RAND = ["--rw=randwrite", "--bs=4k", "--ioengine=sync", "--fsync=1", "--size=32M", "--overwrite=1",
              "--fallocate=none"]
FSYNC_JOBS = [
    Job("fsync-seq", "4k appends each followed by fdatasync, IOPS", FSYNC_SEQ, "iops", "write", True,
        fresh_file=True, sync_lat=True),
    Job("fsync-rand", "4k random overwrites each followed by fsync, IOPS", FSYNC_RAND, "iops", "write", True,
        fresh_file=True, sync_lat=True),
]

METADATA_PHASES = ["create", "ls-l", "stat", "unlink"]


def fio_job(text):
    """The (group-reported) job of fio's --output-format=json output; fio may print notes before the JSON."""
    return json.loads(text[text.index("{"):])["jobs"][0]


def with_cpu(pid, fn):
    """Runs fn() and returns (its result, CPU seconds the server used meanwhile or None)."""
    before = cpu_seconds(pid) if pid else None
    result = fn()
    after = cpu_seconds(pid) if pid else None
    return result, (round(after - before, 3) if before is not None and after is not None else None)


def run_fio(job, directory, runtime, loops, tmp, pid, commands):
    """One repetition of a fio job; returns a result dict or raises RuntimeError."""
    out = os.path.join(tmp, f"fio-{job.key}.json")
    argv = job.argv(directory, runtime, loops, out)
    if job.fresh_file:
        for f in os.listdir(directory):
            if f.startswith(job.fio_name + "."):
                os.unlink(os.path.join(directory, f))
    limit = (runtime + 60) if job.time_based else 300

    def go():
        return run(argv, timeout=limit)
    try:
        r, cpu = with_cpu(pid, go)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"fio {job.key} timed out after {limit}s")
    commands.add(job.key, shlex.join(argv))
    if r.returncode != 0:
        raise RuntimeError(f"fio {job.key} exit {r.returncode}: {(r.stderr or r.stdout).strip()[-400:]}")
    with open(out) as f:
        whole = fio_job(f.read())
    side = whole[job.rw]
    ios = side["total_ios"]
    value = side["iops"] if job.metric == "iops" else side["bw_bytes"] / (1 << 20)
    result = {"value": value, "cpu_s": cpu, "ios": ios,
              "cpu_us_per_io": round(cpu * 1e6 / ios, 2) if cpu is not None and ios else None}
    if job.sync_lat:
        pct = (whole.get("sync", {}).get("lat_ns") or {}).get("percentile") or {}
        for name, key in (("sync_p50_us", "50.000000"), ("sync_p99_us", "99.000000")):
            if key in pct:
                result[name] = round(pct[key] / 1e3, 1)
    return result


def layout(job, directory, commands):
    argv = job.layout_argv(directory)
    r = run(argv, timeout=300)
    commands.add(job.key + " (layout)", shlex.join(argv))
    if r.returncode != 0:
        raise RuntimeError(f"fio layout {job.key} exit {r.returncode}: {(r.stderr or r.stdout).strip()[-400:]}")


def prepare(directory, warmup_s, tmp, commands, keys=None):
    """Before the first figure: the data files of the jobs that read existing files (all, or those in
    `keys`) laid out, then the warm-up."""
    for job in JOBS:
        if job.fresh_file or job.key.endswith("-awake") or (keys is not None and job.key not in keys):
            continue
        layout(job, directory, commands)
    warm_up(directory, warmup_s, tmp, commands)


def warm_up(directory, seconds, tmp, commands):
    """j2's files read and written at random (QD32, two jobs: the most requests per second, both data
    paths) for a few seconds, result discarded. A JVM server on this loaded 2-CPU machine still runs its
    C2 compiler 3 s in (it took a core from the QD1 jobs); about 8 s of traffic reaches steady state."""
    job = next(j for j in JOBS if j.key == "j2")
    argv = job.argv(directory, seconds, 1, os.path.join(tmp, "fio-warmup.json"))
    argv = [a.replace("--rw=randread", "--rw=randrw") for a in argv]
    commands.add("warm-up (not recorded)", shlex.join(argv))
    try:
        run(argv, timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        raise RuntimeError("warm-up fio timed out")


def run_metadata(binary, directory, files, pid, commands):
    """One repetition of bench/native/metadata.c in a fresh empty directory; ops/s per phase."""
    os.makedirs(directory)
    argv = [binary, directory, str(files)]
    try:
        r, cpu = with_cpu(pid, lambda: run(argv, timeout=600))
    except subprocess.TimeoutExpired:
        raise RuntimeError("metadata timed out after 600s")
    commands.add("metadata", shlex.join([os.path.basename(binary), "<fresh dir>", str(files)]))
    if r.returncode != 0:
        raise RuntimeError(f"metadata exit {r.returncode}: {(r.stderr or r.stdout).strip()[-400:]}")
    phases = {}
    for line in r.stdout.splitlines():
        name, ops, secs, rate = line.split()
        phases[name] = float(rate)
    try:
        os.rmdir(directory)
    except OSError:
        pass
    return {"phases": phases, "cpu_s": cpu,
            "cpu_us_per_op": round(cpu * 1e6 / (4 * files), 2) if cpu is not None else None}
