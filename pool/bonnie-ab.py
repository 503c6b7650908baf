#!/usr/bin/env python3
"""bonnie-ab.py ROUNDS VARIANT...: bonnie++'s block phases (2 GiB file, no small files, caches dropped before each
phase as `ringfuse bench pool` does) on btrfs (loop device with direct I/O over an 8 GiB sparse image) and on pool
datasets (one 8 GiB sparse image, O_DIRECT), btrfs then every VARIANT in each round, a fresh server per run.

A VARIANT is comma-separated `key=value` items: `recordsize=16K` and `compression=lz4` pick the dataset (created
once per distinct pair), `o=OPTS` passes `-o OPTS` to `mount pool`, `java=OPTS` sets RINGFUSE_JAVA_OPTS (e.g.
`java=-Dpool.readahead.inflight.bytes=4194304`); `default` is the default dataset and mount. Images go in $DIR
(default /var/tmp). Prints block write, rewrite, block read (MiB/s) and seeks (/s) per run. Needs root, bonnie++,
btrfs-progs and a built tree. Written for pool/DESIGN.md's read-ahead figures (session 14).
"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(HERE, "bench", "fio"))
import bonnie  # noqa: E402

RINGFUSE = os.path.join(HERE, "ringfuse")
KEYS = ("block-write", "rewrite", "block-read", "seeks")


def mounted(path):
    with open("/proc/mounts") as f:
        return any(line.split()[1] == path for line in f)


def parse(variant):
    v = {} if variant == "default" else dict(item.split("=", 1) for item in variant.split(","))
    return v.get("recordsize", "128K"), v.get("compression", "off"), v.get("o"), v.get("java")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds, variants = int(sys.argv[1]), sys.argv[2:]
    w = tempfile.mkdtemp(prefix="bonnie-ab.", dir=os.environ.get("DIR", "/var/tmp"))
    env = dict(os.environ, RINGFUSE_POOLS=os.path.join(w, "pools"))
    bm, pm = os.path.join(w, "bm"), os.path.join(w, "pm")
    os.makedirs(bm)
    os.makedirs(pm)
    dev = None
    try:
        subprocess.run(["truncate", "-s", "8G", os.path.join(w, "b.img")], check=True)
        dev = subprocess.run(["losetup", "--find", "--show", "--direct-io=on", os.path.join(w, "b.img")],
                             check=True, capture_output=True, text=True).stdout.strip()
        subprocess.run(["mkfs.btrfs", "-f", "-q", dev], check=True, capture_output=True)
        subprocess.run(["mount", "-o", "noatime", dev, bm], check=True)
        subprocess.run([RINGFUSE, "pool", "create", "bab", os.path.join(w, "p.img"), "--size", "8G"], env=env,
                       check=True, capture_output=True)
        datasets = {}
        for variant in variants:
            rs, comp, _, _ = parse(variant)
            if (rs, comp) not in datasets:
                name = f"bab/ds{len(datasets)}"
                subprocess.run([RINGFUSE, "fs", "create", name, "-o", f"compression={comp},recordsize={rs}"],
                               env=env, check=True, capture_output=True)
                datasets[(rs, comp)] = name
        log = os.path.join(w, "bonnie.log")
        for r in range(1, rounds + 1):
            res = bonnie.run(bm, 2048, 0, "btrfs", None, None, 900, log)
            print(f"round {r} btrfs", {k: res["figures"].get(k) for k in KEYS}, flush=True)
            for variant in variants:
                rs, comp, opts, java = parse(variant)
                e = dict(env, RINGFUSE_JAVA_OPTS=java) if java else env
                argv = [RINGFUSE, "mount", "pool", datasets[(rs, comp)], pm] + (["-o", opts] if opts else [])
                server = subprocess.Popen(argv, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    for _ in range(150):
                        if mounted(pm):
                            break
                        time.sleep(0.2)
                    else:
                        raise RuntimeError(f"{variant}: the server did not mount")
                    res = bonnie.run(pm, 2048, 0, "pool", server.pid, None, 900, log)
                    print(f"round {r} pool[{variant}]", {k: res["figures"].get(k) for k in KEYS}, flush=True)
                finally:
                    subprocess.run([RINGFUSE, "unmount", pm], env=env, capture_output=True)
                    server.wait(timeout=60)
    finally:
        if mounted(pm):
            subprocess.run(["umount", "-l", pm])
        if mounted(bm):
            subprocess.run(["umount", bm])
        if dev:
            subprocess.run(["losetup", "-d", dev])
        subprocess.run(["rm", "-rf", w])


if __name__ == "__main__":
    main()
