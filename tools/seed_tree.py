#!/usr/bin/env python3
"""A seed tree for the external suites on pool clones and received datasets (tools/external.sh).

  seed_tree.py populate DIR   every kind of entry: sizes across records, a hole at the end, a hard link, a
                              symlink, a FIFO, owners, modes (set-ID too), fixed times, small and large xattrs
  seed_tree.py change DIR     what a second snapshot changes: blocks overwritten, names removed and moved,
                              a file added, a mode, a size, an xattr, a link count
  seed_tree.py image DIR      everything the tree shows through system calls, one line per entry, to diff two
                              trees (a snapshot's view against the clone or received dataset made from it)

image reads every entry's metadata before any content and each directory's before its listing, as reads
may change access times.
"""
import hashlib
import os
import random
import stat
import sys

T1 = 981173106_123456789   # 2001-02-03T04:05:06.123456789Z
T2 = 1323785716_987654321  # 2011-12-13T14:15:16.987654321Z
MIB = 1 << 20


def populate(d):
    rnd = random.Random(11)
    os.makedirs(os.path.join(d, "sub", "deeper"))
    big = rnd.randbytes(6 * MIB + 12345)  # records of every kind: full, and a partial last one
    write(d, "big", big)
    write(d, "small", b"small file\n")
    write(d, "empty", b"")
    write(d, "hard", big[:300_001])
    os.link(p(d, "hard"), p(d, "sub/hard2"))
    os.symlink("../small", p(d, "sub/link"))
    os.mkfifo(p(d, "fifo"), 0o640)
    with open(p(d, "sparse"), "wb") as f:
        f.write(b"head")
        f.seek(8 * MIB)
        f.write(b"tail")
        f.truncate(12 * MIB)  # a hole at the end too
    os.setxattr(p(d, "small"), "user.color", b"blue")
    os.setxattr(p(d, "small"), "user.large", rnd.randbytes(3000))
    os.setxattr(p(d, "sub"), "user.dir", b"on a directory")
    os.chown(p(d, "small"), 1234, 2345)
    os.chmod(p(d, "small"), 0o640)
    os.chown(p(d, "big"), 4321, -1)
    os.chmod(p(d, "big"), 0o4755)
    os.chown(p(d, "sub/link"), 77, -1, follow_symlinks=False)
    os.chmod(p(d, "sub/deeper"), 0o700)
    for n in ("small", "big", "hard", "sparse", "fifo", "sub/deeper", "sub", "."):
        os.utime(p(d, n), ns=(T1, T2))


def change(d):
    with open(p(d, "big"), "r+b") as f:
        f.seek(3 * MIB)
        f.write(random.Random(12).randbytes(MIB))
    with open(p(d, "hard"), "ab") as f:
        f.write(b"appended after the first snapshot\n")
    os.unlink(p(d, "empty"))
    os.unlink(p(d, "sub/hard2"))
    os.rename(p(d, "sub/deeper"), p(d, "moved"))
    write(d, "added", b"born after the first snapshot\n")
    os.setxattr(p(d, "added"), "user.note", b"b")
    os.removexattr(p(d, "small"), "user.color")
    os.chmod(p(d, "small"), 0o666)
    os.truncate(p(d, "sparse"), 9 * MIB)
    os.utime(p(d, "moved"), ns=(T2, T1))


def image(d):
    st = {}  # all metadata first, each directory's before its listing (readdir may change its access time)

    def visit(rel):
        s = st[rel] = os.lstat(p(d, rel))
        if stat.S_ISDIR(s.st_mode):
            for n in sorted(os.listdir(p(d, rel))):
                visit(n if rel == "." else rel + "/" + n)

    visit(".")
    rels = sorted(st)
    by_ino = {}
    for r in rels:
        s = st[r]
        line = "%s mode=%o uid=%d gid=%d nlink=%d size=%d rdev=%d atime=%d mtime=%d ctime=%d" % (
            r, s.st_mode, s.st_uid, s.st_gid, s.st_nlink, s.st_size, s.st_rdev, s.st_atime_ns, s.st_mtime_ns, s.st_ctime_ns)
        if stat.S_ISLNK(s.st_mode):
            line += " -> " + os.readlink(p(d, r))
        else:
            for x in sorted(os.listxattr(p(d, r), follow_symlinks=False)):
                if x.startswith("user."):
                    line += " xattr %s=%s" % (x, hashlib.sha256(os.getxattr(p(d, r), x)).hexdigest()[:16])
        if stat.S_ISREG(s.st_mode):
            by_ino.setdefault(s.st_ino, []).append(r)
            line += " sha256=%s data=%s" % (sha(p(d, r)), segments(p(d, r)))
        print(line)
    for g in sorted(g for g in by_ino.values() if len(g) > 1):
        print("hard links: " + " ".join(g))


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(MIB), b""):
            h.update(b)
    return h.hexdigest()


def segments(path):
    """The data segments by SEEK_DATA/SEEK_HOLE: the holes a stream must carry as holes."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size, off, segs = os.fstat(fd).st_size, 0, []
        while off < size:
            try:
                start = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:
                break
            off = os.lseek(fd, start, os.SEEK_HOLE)
            segs.append("%d-%d" % (start, off))
        return ",".join(segs)
    finally:
        os.close(fd)


def write(d, name, data):
    with open(p(d, name), "wb") as f:
        f.write(data)


def p(d, rel):
    return os.path.normpath(os.path.join(d, rel))


if __name__ == "__main__":
    cmds = {"populate": populate, "change": change, "image": image}
    if len(sys.argv) != 3 or sys.argv[1] not in cmds:
        sys.exit("usage: seed_tree.py populate|change|image DIR")
    cmds[sys.argv[1]](sys.argv[2])
