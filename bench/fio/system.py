"""Processes, mounts, CPU time and machine load: the parts of the harness that touch the system.

Every server runs in its own session (process group) so that stopping it reaches its children too, and
every mount the harness makes is remembered so that an interrupted run still unmounts (see Cleanup).
"""
import glob
import os
import shutil
import signal
import subprocess
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(f"[bench fio {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def run(cmd, timeout, **kw):
    """Runs a command to completion with a timeout; returns CompletedProcess (text, both streams captured)."""
    return subprocess.run(cmd, timeout=timeout, capture_output=True, text=True, **kw)


def mounted(path):
    """True when `path` is a mount point right now (exact match on /proc/self/mounts)."""
    path = os.path.abspath(path)
    with open("/proc/self/mounts") as f:
        for line in f:
            fields = line.split()
            if len(fields) > 2 and fields[1].replace("\\040", " ") == path:
                return True
    return False


def unmount(path):
    """Unmounts whatever is at `path`, politely first (fusermount -u / umount), lazily as a last resort."""
    for cmd in (["fusermount3", "-u", path], ["fusermount", "-u", path], ["umount", path], ["umount", "-l", path]):
        if not mounted(path):
            return
        try:
            run(cmd, timeout=15)
        except (OSError, subprocess.TimeoutExpired):
            pass


def cpu_seconds(pid):
    """utime + stime of a process (all its threads) from /proc/<pid>/stat, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()  # the command name may hold spaces: cut after ')'
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # fields 14 and 15 of proc(5)


def cpu_busy(seconds=1.0):
    """Fraction of all CPUs busy over a short sample (from /proc/stat)."""
    def snap():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        idle = v[3] + (v[4] if len(v) > 4 else 0)
        return sum(v), idle
    t0, i0 = snap()
    time.sleep(seconds)
    t1, i1 = snap()
    return 1.0 - (i1 - i0) / max(1, t1 - t0)


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def wait_for_calm(max_wait, threshold=0.20):
    """Waits up to max_wait seconds for the CPUs to be mostly idle. Returns a record of what was seen:
    the machine is shared, so the run goes on either way and the record marks it."""
    start = time.monotonic()
    while True:
        busy = cpu_busy(1.0)
        waited = time.monotonic() - start
        if busy < threshold or waited >= max_wait:
            return {"load1": loadavg(), "busy": round(busy, 3), "waited_s": round(waited, 1),
                    "calm": busy < threshold}


class Spinners:
    """Two `nice -n 19` busy loops that keep both vCPUs awake (the "awake" QD1 condition); with
    `sched_idle`, SCHED_IDLE loops instead (what the keep-awake threads do in-process)."""

    def __init__(self, count=2, sched_idle=False):
        self.count = count
        self.prefix = ["chrt", "-i", "0"] if sched_idle else ["nice", "-n", "19"]
        self.procs = []

    def __enter__(self):
        for _ in range(self.count):
            self.procs.append(subprocess.Popen(self.prefix + ["sh", "-c", "while :; do :; done"],
                                               start_new_session=True))
        time.sleep(0.5)
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            stop_process(p, grace=2)
        self.procs = []


class LatencyRequest:
    """Holds a PM QoS request of 0 µs on /dev/cpu_dma_latency (root): idle CPUs poll instead of halting
    while it is open, the kernel's own way of keeping CPUs awake (for comparing with in-process keepers)."""

    def __enter__(self):
        self.fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
        os.write(self.fd, (0).to_bytes(4, "little"))
        return self

    def __exit__(self, *exc):
        os.close(self.fd)


def stop_process(proc, grace=10):
    """SIGTERM to the process group, then SIGKILL after `grace` seconds."""
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


class Cleanup:
    """Remembers servers and mounts; undo() stops and unmounts all of them (also from atexit / signals)."""

    def __init__(self):
        self.procs = []
        self.mounts = []

    def add_proc(self, proc):
        self.procs.append(proc)

    def add_mount(self, path):
        self.mounts.append(path)

    def undo(self):
        for p in reversed(self.procs):
            stop_process(p)
        self.procs = []
        for m in reversed(self.mounts):
            unmount(m)
        self.mounts = []


def start_server(cleanup, argv, mnt, log_path, env_extra=None, timeout=120):
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


def java_major(java):
    """The major version of the `java` binary at `java`, or None."""
    try:
        r = run([java, "-XshowSettings:properties", "-version"], timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    for line in (r.stderr + r.stdout).splitlines():
        line = line.strip()
        if line.startswith("java.specification.version = "):
            try:
                return int(line.split("=", 1)[1].strip().split(".")[0])
            except ValueError:
                return None
    return None


def find_jdk(minimum=22):
    """A JDK home with java and javac of at least `minimum`, found as the ringfuse script finds it:
    JAVA_HOME, then /usr/lib/jvm (Temurin 25 first, newest first), then javac on PATH; None if there is none.
    The harness needs it for the Java peers (jnr-fuse, jFUSE are built with Maven and run with it), so a run
    started as `python3 bench/fio/harness.py` behaves as one started through `./ringfuse bench fio`."""
    cands = []
    if os.environ.get("JAVA_HOME"):
        cands.append(os.environ["JAVA_HOME"])
    cands.append("/usr/lib/jvm/temurin-25-jdk-amd64")
    for pat in ("*25*", "*24*", "*23*", "*22*", "*"):
        cands += sorted(glob.glob(os.path.join("/usr/lib/jvm", pat)), reverse=True)
    javac = shutil.which("javac")
    if javac:
        cands.append(os.path.dirname(os.path.dirname(os.path.realpath(javac))))
    seen = set()
    for c in cands:
        if c in seen:
            continue
        seen.add(c)
        java, jc = os.path.join(c, "bin", "java"), os.path.join(c, "bin", "javac")
        if os.access(java, os.X_OK) and os.access(jc, os.X_OK):
            v = java_major(java)
            if v is not None and v >= minimum:
                return c
    return None
