#!/usr/bin/env python3
"""Side by side: ringfuse server variants (checkout, filesystem, transport, -o options) on the harness's jobs,
all mounted at once and run in rotated rounds, with the server CPU per operation; then each idle mount's CPU.

    variants.py [--reps N] [--runtime S] [--files N] [--jobs j1,j2,...,meta] [--idle S] [--awake] VARIANT...

VARIANT = NAME=[HOME:]FS:TRANSPORT[:OPTIONS], e.g. `spin=memfs:dev` `nospin=memfs:dev:spin=0`
`old=/work/main:memfs:uring` (HOME defaults to this checkout). For A/B figures on a loaded machine: the
rounds alternate the variants, so load changes hit all alike; CPU per operation is the steadier figure.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jobs  # noqa: E402
from harness import Commands  # noqa: E402
from system import Cleanup, Spinners, cpu_seconds, run, start_server  # noqa: E402

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_variant(text):
    name, spec = text.split("=", 1)
    parts = spec.split(":", 3)
    home = HERE
    if parts[0].startswith("/"):
        home, parts = parts[0], parts[1:]
    fs, transport = parts[0], parts[1]
    opts = parts[2] if len(parts) > 2 else ""
    return {"name": name, "home": home, "fs": fs, "transport": transport, "opts": opts}


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--runtime", type=int, default=3)
    p.add_argument("--files", type=int, default=5000)
    p.add_argument("--jobs", default="j1,j2,j4,meta")
    p.add_argument("--idle", type=int, default=0, help="seconds of idle CPU measurement at the end")
    p.add_argument("--awake", action="store_true", help="also run j1 with two nice-19 busy loops")
    p.add_argument("variants", nargs="+")
    a = p.parse_args(argv)
    vs = [parse_variant(v) for v in a.variants]
    work = f"/tmp/ringfuse-variants-{os.getpid()}"
    os.makedirs(work)
    cleanup = Cleanup()
    meta_bin = os.path.join(work, "metadata")
    run(["gcc", "-O2", "-o", meta_bin, os.path.join(HERE, "bench/native/metadata.c")], timeout=120)
    with open("/sys/module/fuse/parameters/enable_uring", "w") as f:
        f.write("1")
    selected = a.jobs.split(",")
    fio_jobs = [j for j in jobs.JOBS if j.key in selected or (a.awake and j.key == "j1-awake")]
    cmds = Commands()  # recorded, not printed: the table is the result
    try:
        for v in vs:
            v["mnt"] = os.path.join(work, v["name"], "mnt")
            v["src"] = os.path.join("/dev/shm", f"ringfuse-variants-{os.getpid()}-{v['name']}")
            os.makedirs(v["mnt"])
            argv = [os.path.join(v["home"], "ringfuse"), "mount", v["fs"]]
            if v["fs"] == "passthrough":
                os.makedirs(v["src"])
                argv += [v["src"], v["mnt"], "--passthrough", "off"]
            else:
                argv += [v["mnt"]]
            argv += ["--transport", v["transport"]] + (["-o", v["opts"]] if v["opts"] else [])
            try:
                proc = start_server(cleanup, argv, v["mnt"], os.path.join(work, v["name"] + ".log"), timeout=300)
            except RuntimeError as e:
                sys.exit(f"{v['name']} {e}")
            v["proc"], v["data"] = proc, os.path.join(v["mnt"], "data")
            os.makedirs(v["data"])
            jobs.prepare(v["data"], 4, work, cmds, selected)
            v["res"] = {}
        for j in fio_jobs:
            for k in range(a.reps):
                for v in vs[k % len(vs):] + vs[:k % len(vs)]:
                    fn = lambda: jobs.run_fio(j, v["data"], a.runtime, 1, work, v["proc"].pid, cmds)  # noqa: E731
                    if j.awake:
                        with Spinners():
                            r = fn()
                    else:
                        r = fn()
                    v["res"].setdefault(j.key, []).append((r["value"], r["cpu_us_per_io"]))
        if "meta" in selected:
            for k in range(a.reps):
                for v in vs[k % len(vs):] + vs[:k % len(vs)]:
                    m = run_meta(meta_bin, os.path.join(v["mnt"], f"meta-{k}"), a.files, v["proc"].pid)
                    for ph, (rate, cpu) in m.items():
                        v["res"].setdefault(ph, []).append((rate, cpu))
        keys = [j.key for j in fio_jobs] + (jobs.METADATA_PHASES if "meta" in selected else [])
        print("| variant | " + " | ".join(keys) + " |")
        print("|---|" + "---|" * len(keys))
        for v in vs:
            cells = []
            for key in keys:
                rs = v["res"].get(key, [])
                val = statistics.median(x[0] for x in rs)
                cpus = [x[1] for x in rs if x[1] is not None]
                cpu = statistics.median(cpus) if cpus else float("nan")
                cells.append(f"{val:,.0f} ({min(x[0] for x in rs):,.0f}–{max(x[0] for x in rs):,.0f}); {cpu:.1f} µs")
            print(f"| {v['name']} ({v['fs']} {v['transport']} {v['opts']}) | " + " | ".join(cells) + " |")
        print("cells: median (min–max) of the rounds; server CPU µs per operation (median)")
        if a.idle:
            time.sleep(1)
            before = {v["name"]: cpu_seconds(v["proc"].pid) for v in vs}
            time.sleep(a.idle)
            for v in vs:
                used = cpu_seconds(v["proc"].pid) - before[v["name"]]
                print(f"idle {v['name']}: {used * 1000:.0f} ms of CPU in {a.idle} s ({used / a.idle * 100:.2f}%)"
                      " (utime+stime of the whole server process: JVM threads included)")
    finally:
        cleanup.undo()  # every server (SIGTERM: it unmounts), then whatever is still mounted
        for v in vs:
            shutil.rmtree(v.get("src", "/nonexistent"), ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def run_meta(binary, directory, files, pid):
    """One metadata run; per phase (ops/s, server CPU µs per op), CPU taken per phase from /proc."""
    os.makedirs(directory)
    proc = subprocess.Popen([binary, directory, str(files)], stdout=subprocess.PIPE, text=True)
    out = {}
    last = cpu_seconds(pid)
    for line in proc.stdout:
        name, ops, secs, rate = line.split()
        now = cpu_seconds(pid)
        out[name] = (float(rate), (now - last) * 1e6 / int(ops))
        last = cpu_seconds(pid)
    proc.wait()
    os.rmdir(directory)
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
