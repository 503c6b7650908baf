"""bonnie++ driven phase by phase, for `ringfuse bench pool` (see bench/DESIGN.md, "bench pool").

bonnie++ -y p waits for a line on stdin before each of its phases (it prints "N:" first). The harness
answers each prompt itself: before a phase that reads the file back (rewrite, block read, seeks) it drops
the page cache, so that the figure is the filesystem's and the device's and not RAM's (this machine has
24 GiB and the file is 2 GiB), and at every prompt it samples the server's CPU time and its per-opcode
request counters, which gives the server CPU and the FUSE requests of each phase.
"""
import os
import pty
import re
import select
import shlex
import subprocess
import termios
import time

from system import cpu_seconds

# bonnie++ 2.00a's phase numbers (its prompt "N:") and our names; 0 and 3 (per-char) are skipped with -f
PHASES = {1: "block-write", 2: "rewrite", 4: "block-read", 5: "seeks", 6: "seq-create", 7: "seq-stat",
          8: "seq-delete", 9: "rand-create", 10: "rand-stat", 11: "rand-delete"}
DROP_BEFORE = {2, 4, 5}   # phases that read the file back: start them with a cold page cache

# The CSV line (format 1.98 of bonnie++ 2.00a): field index -> our key; rates are K/s (block) or /s
CSV_FIELDS = {11: "block-write", 12: "block-write-cpu", 13: "rewrite", 14: "rewrite-cpu", 17: "block-read",
              18: "block-read-cpu", 19: "seeks", 20: "seeks-cpu", 26: "seq-create", 27: "seq-create-cpu",
              28: "seq-stat", 29: "seq-stat-cpu", 30: "seq-delete", 31: "seq-delete-cpu", 32: "rand-create",
              33: "rand-create-cpu", 34: "rand-stat", 35: "rand-stat-cpu", 36: "rand-delete", 37: "rand-delete-cpu",
              39: "block-write-lat", 40: "rewrite-lat", 42: "block-read-lat", 43: "seeks-lat",
              44: "seq-create-lat", 45: "seq-stat-lat", 46: "seq-delete-lat", 47: "rand-create-lat",
              48: "rand-stat-lat", 49: "rand-delete-lat"}
METRICS = ["block-write", "block-read", "rewrite", "seeks", "seq-create", "seq-stat", "seq-delete",
           "rand-create", "rand-stat", "rand-delete"]
UNITS = {"block-write": "MiB/s", "block-read": "MiB/s", "rewrite": "MiB/s"}  # the others: operations/s


def drop_caches(level=1):
    """sync, then drop the page cache (1) or also dentries and inodes (3)."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write(str(level))


def parse_csv(line):
    """The figures of one bonnie++ CSV line: MiB/s for block phases, ops/s otherwise; None for "+++++"
    (bonnie++ prints that when a phase took under half a second: too fast to time)."""
    f = line.strip().split(",")
    out = {}
    for i, key in CSV_FIELDS.items():
        v = f[i] if i < len(f) else ""
        if key.endswith("-lat"):
            out[key] = latency_us(v)
            continue
        try:
            x = float(v)
        except ValueError:
            x = None
        if x is not None and key in UNITS:
            x /= 1024.0  # K/s -> MiB/s
        out[key] = x
    return out


def latency_us(v):
    for unit, mul in (("us", 1), ("ms", 1e3), ("s", 1e6)):
        if v.endswith(unit):
            try:
                return float(v[:-len(unit)]) * mul
            except ValueError:
                return None
    return None


def argv(directory, size_mib, files, name):
    # -r: bonnie++ insists on a file twice the RAM it is told; the page cache is dropped between phases
    # instead (above), so the RAM figure only has to let the chosen size through
    return ["bonnie++", "-d", directory, "-u", "root", "-q", "-f", "-s", str(size_mib), "-r", str(size_mib // 2),
            "-n", str(files), "-m", name, "-y", "p"]


def run(directory, size_mib, files, name, pid, stats, timeout, log_path, drop=True):
    """One bonnie++ run in `directory`. Returns {"figures": {...}, "phases": {phase: {cpu_s, wall_s,
    requests}}, "command": str}; raises RuntimeError. `stats` is a function returning the server's
    per-opcode counters ({op: (count, sum_ns)}) or None; `pid` the server's pid or None."""
    a = argv(directory, size_mib, files, name)
    if drop:
        drop_caches(3)
    logf = open(log_path, "w")
    # a terminal for its stdout: through a pipe, stdio would hold the prompt back in its buffer
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR  # no "\r\n"
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    proc = subprocess.Popen(a, stdin=subprocess.PIPE, stdout=slave, stderr=logf, text=True, bufsize=1)
    os.close(slave)
    phases, marks = {}, []
    deadline = time.monotonic() + timeout
    buf, csv = "", None
    current = None

    def mark(phase_no):
        return {"phase": phase_no, "t": time.monotonic(), "wall": time.time(),
                "cpu": cpu_seconds(pid) if pid else None, "ops": stats() if stats else None}

    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"bonnie++ timed out after {timeout}s (phase {PHASES.get(current, current)})")
            r, _, _ = select.select([master], [], [], min(left, 5))
            if not r:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536).decode(errors="replace")
            except OSError:  # EIO: the terminal's other side closed (bonnie++ exited)
                chunk = ""
            if not chunk:
                break
            buf += chunk.replace("\r", "")
            *complete, buf = buf.split("\n")
            for ln in complete:
                if ln.count(",") > 30:
                    csv = ln
                elif re.fullmatch(r"\s*\d+:\s*", ln):  # a prompt: bonnie++ waits for a line on stdin
                    n = int(ln.strip()[:-1])
                    if drop and n in DROP_BEFORE:
                        drop_caches(1)
                    marks.append(mark(n))  # the phase starts after the drop
                    current = n
                    proc.stdin.write("\n")
                    proc.stdin.flush()
        rc = proc.wait(timeout=max(1, deadline - time.monotonic()))
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    finally:
        logf.close()
        os.close(master)
    end = mark(None)
    if rc != 0 or csv is None:
        with open(log_path) as f:
            tail = f.read()[-600:]
        raise RuntimeError(f"bonnie++ exit {rc}{'' if csv else ', no CSV line'}: {tail.strip()}")
    marks.append(end)
    for m0, m1 in zip(marks, marks[1:]):
        name_ = PHASES.get(m0["phase"])
        if not name_:
            continue
        ph = {"wall_s": round(m1["t"] - m0["t"], 3), "start": m0["wall"], "end": m1["wall"]}
        if m0["cpu"] is not None and m1["cpu"] is not None:
            ph["cpu_s"] = round(m1["cpu"] - m0["cpu"], 3)
        if m0["ops"] is not None and m1["ops"] is not None:
            ph["requests"] = {op: (c - m0["ops"].get(op, (0, 0))[0], ns - m0["ops"].get(op, (0, 0))[1])
                              for op, (c, ns) in m1["ops"].items() if c - m0["ops"].get(op, (0, 0))[0] > 0}
        phases[name_] = ph
    return {"figures": parse_csv(csv), "phases": phases, "csv": csv, "command": shlex.join(a)}
