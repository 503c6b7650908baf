"""The peers of `ringfuse bench pool`: kernel filesystems on a loop device over an image, and pool datasets
on an image, every image a sparse file of the same size in the same directory (the same disk).

Kernel peers: `losetup --direct-io=on` over the image (so the host's page cache holds no second copy:
the pool opens its image with O_DIRECT too), mkfs, mount with noatime (the pool's datasets have atime=off).
Pool peers: `ringfuse pool create` on their own image (one pool per peer: a pool's images are locked by
the process that serves it), `fs create` with the peer's compression, `ringfuse mount pool`.
The memfs peer stores nothing on the disk (its files are in the server's memory): the same FUSE mount, transport
and jobs with no storage under them, so its ratio to btrfs is the most any FUSE server can reach on this machine
for that job (the ceiling), and a pool's ratio to it is what its storage costs.
"""
import os
import re
import shlex
import socket
import subprocess

from jobs import fio_job
from system import mounted, run


class PeerError(Exception):
    pass


class Peer:
    def __init__(self, name, label, kind, mkfs=None, mount_opts=None, compression=None, compare=None,
                 default=True):
        self.name, self.label, self.kind = name, label, kind          # kind: "kernel", "pool" or "memfs"
        self.mkfs, self.mount_opts, self.compression = mkfs, mount_opts, compression  # pool: -o of the mount
        self.compare = compare   # the btrfs peer it is measured against (targets), for pool peers
        self.default = default   # in a run without --only


PEERS = [
    Peer("ext4", "ext4 on loop (direct-io)", "kernel", ["mkfs.ext4", "-F", "-q", "-E",
                                                        "lazy_itable_init=0,lazy_journal_init=0"], "noatime"),
    Peer("xfs", "xfs on loop (direct-io)", "kernel", ["mkfs.xfs", "-f", "-q"], "noatime"),
    Peer("btrfs", "btrfs on loop (direct-io)", "kernel", ["mkfs.btrfs", "-f", "-q"], "noatime"),
    Peer("btrfs-lzo", "btrfs compress=lzo on loop (direct-io)", "kernel", ["mkfs.btrfs", "-f", "-q"],
         "noatime,compress=lzo"),
    Peer("pool-off", "ringfuse pool, compression=off", "pool", compression="off", compare="btrfs"),
    Peer("pool-lz4", "ringfuse pool, compression=lz4", "pool", compression="lz4", compare="btrfs-lzo"),
    # the kernel's writeback cache (pool/DESIGN.md, "Writeback cache"): only when named in --only
    Peer("pool-off-wb", "ringfuse pool, compression=off, -o writeback", "pool", mount_opts="writeback",
         compression="off", compare="btrfs", default=False),
    Peer("memfs", "ringfuse memfs (no storage: the FUSE ceiling)", "memfs"),
]
CEILING = "memfs"


def checked(cmd, timeout=300, env=None, what=None):
    try:
        r = run(cmd, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise PeerError(f"{what or shlex.join(cmd)}: timed out after {timeout}s")
    if r.returncode != 0:
        raise PeerError(f"{what or shlex.join(cmd)} failed (exit {r.returncode}): "
                        f"{(r.stderr or r.stdout).strip()[-400:]}")
    return r


def make_image(path, size):
    """A sparse file of `size` bytes (nothing allocated until written)."""
    with open(path, "wb") as f:
        f.truncate(size)


def setup_kernel(peer, image, mnt, cleanup, commands):
    """Loop device with direct I/O over `image`, mkfs, mount at `mnt`; returns (device, version note)."""
    r = checked(["losetup", "--find", "--show", "--direct-io=on", image])
    dev = r.stdout.strip()
    cleanup.later(lambda: run(["losetup", "-d", dev], timeout=60))
    dio = run(["losetup", "--list", "--noheadings", "-O", "DIO", dev], timeout=30).stdout.strip()
    if dio != "1":
        raise PeerError(f"{dev}: the loop device did not take --direct-io=on (DIO={dio!r})")
    checked(peer.mkfs + [dev], timeout=600)
    checked(["mount", "-o", peer.mount_opts, dev, mnt])
    cleanup.add_mount(mnt)
    commands.append(f"# {peer.name}\nlosetup --find --show --direct-io=on IMG   # -> /dev/loopN\n"
                    f"{shlex.join(peer.mkfs)} /dev/loopN\nmount -o {peer.mount_opts} /dev/loopN MNT")
    opts = ""
    with open("/proc/self/mounts") as f:
        for line in f:
            fields = line.split()
            if len(fields) > 3 and fields[1] == mnt:
                opts = fields[3]
    tool = {"ext4": "e2fsprogs", "xfs": "xfsprogs", "btrfs": "btrfs-progs"}[peer.mkfs[0].split(".")[1]]
    ver = run(["dpkg-query", "-W", "-f=${Version}", tool], timeout=30).stdout.strip()
    return dev, f"{tool} {ver}; mounted {opts}"


def pool_name(peer):
    return "rfbench-" + peer.name


def setup_pool(peer, image, size, ringfuse, env, commands):
    """`pool create` on the image (created sparse by the CLI) and `fs create` of the dataset. No `pool
    destroy` afterwards: the pool list is the run's own ($RINGFUSE_POOLS) and the image is removed."""
    name = pool_name(peer)
    checked([ringfuse, "pool", "create", name, image, "--size", str(size)], timeout=900, env=env)
    checked([ringfuse, "fs", "create", f"{name}/bench", "-o", f"compression={peer.compression}"], timeout=300, env=env)
    commands.append(f"# {peer.name}\n./ringfuse pool create {name} IMG --size {size}\n"
                    f"./ringfuse fs create {name}/bench -o compression={peer.compression}\n"
                    f"./ringfuse mount pool {name}/bench MNT{' -o ' + peer.mount_opts if peer.mount_opts else ''}"
                    "   # the server, in the foreground")
    return f"{name}/bench"


def memfs_server_argv(ringfuse, mnt, commands):
    commands.append("# memfs\n./ringfuse mount memfs MNT   # the server, in the foreground")
    return [ringfuse, "mount", "memfs", mnt]


def pool_server_argv(ringfuse, dataset, mnt, jfr=None, opts=None):
    return [ringfuse, "mount", "pool", dataset, mnt] + (["-o", opts] if opts else []) + (["--jfr", jfr] if jfr else [])


def stats_socket(mnt):
    """The ringfuse statistics socket of the FUSE mount at `mnt` (see core's StatsSocket), or None."""
    want = os.path.abspath(mnt)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fs = line.split()
            if len(fs) >= 10 and fs[4] == want:
                dash = fs.index("-")
                uid = re.search(r"user_id=(\d+)", fs[dash + 3])
                major, minor = fs[2].split(":")
                if uid and uid.group(1) == "0":
                    return f"/run/ringfuse/stats/{major}-{minor}.sock"
    return None


def read_stats(path):
    """{opcode: (count, sum_ns)} from a ringfuse statistics socket, or None when it cannot be read."""
    if not path:
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(path)
            data = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                data += b
    except OSError:
        return None
    out = {}
    for line in data.decode(errors="replace").splitlines():
        f = line.split()
        if len(f) >= 7 and f[0] == "op":
            out[f[1]] = (int(f[2]), int(f[6]))
    return out


def verify(ringfuse, peer, env, timeout):
    """`pool verify` of the peer's pool: (bytes read, seconds as the CLI measured, wall seconds, output)."""
    import time
    t0 = time.monotonic()
    r = checked([ringfuse, "pool", "verify", pool_name(peer)], timeout=timeout, env=env)
    wall = time.monotonic() - t0
    m = re.search(r"verified pool '[^']*': (\d+) blocks, ([\d.]+)([BKMGT]) in ([\d.]+) s .*?(\d+) error", r.stdout)
    if not m:
        raise PeerError(f"pool verify: unexpected output: {r.stdout.strip()[-300:]}")
    mul = {"B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m.group(3)]
    return {"blocks": int(m.group(1)), "bytes": float(m.group(2)) * mul, "seconds": float(m.group(4)),
            "wall_s": round(wall, 2), "errors": int(m.group(5)), "output": r.stdout.strip()}


def device_read(path, size_mib, tmp):
    """The device's sequential read bandwidth: a dense file of `size_mib` written with random data beside
    the images, then read with O_DIRECT, 1 MiB requests, at queue depth 1 and 8 (MiB/s each)."""
    out = {}
    checked(["fio", "--name=dense", f"--filename={path}", f"--size={size_mib}M", "--rw=write", "--bs=1M",
             "--direct=1", "--ioengine=libaio", "--iodepth=8", "--end_fsync=1", "--output-format=json",
             f"--output={tmp}/fio-dense-write.json"], timeout=1200)
    for qd in (1, 8):
        o = f"{tmp}/fio-dense-read-{qd}.json"
        argv = ["fio", "--name=devread", f"--filename={path}", f"--size={size_mib}M", "--rw=read", "--bs=1M",
                "--direct=1", "--ioengine=libaio", f"--iodepth={qd}", "--output-format=json", f"--output={o}"]
        checked(argv, timeout=1200)
        with open(o) as f:
            out[f"qd{qd}"] = fio_job(f.read())["read"]["bw_bytes"] / (1 << 20)
        out[f"qd{qd}_command"] = shlex.join(argv).replace(path, "DENSE")
    return out


def transport_of(log_path):
    try:
        with open(log_path) as f:
            m = re.search(r"\(transport (\w+)\)", f.read())
        return m.group(1) if m else None
    except OSError:
        return None


__all__ = ["PEERS", "CEILING", "PeerError", "memfs_server_argv", "make_image", "setup_kernel", "setup_pool", "pool_server_argv", "stats_socket",
           "read_stats", "verify", "device_read", "mounted", "transport_of"]
