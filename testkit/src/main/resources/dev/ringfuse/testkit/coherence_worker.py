# One process of the coherence stress (CoherenceStress.java starts several). Every mode checks that what it
# reads back after a completed write is exactly what it wrote; the first difference is printed as
# "CORRUPT ..." and the process exits 3. Modes:
#   lock    doio-style: fcntl-lock a random byte region (1..400 bytes, regions of different processes share
#           pages), write a pattern naming the process and request (plain or O_SYNC fd), read it back through
#           a NEW descriptor (read, O_DIRECT read of the covering pages, or a fresh mmap), compare, unlock
#   dio     fcntl-lock whole pages, write them with O_DIRECT (sync pwrite or an async io_submit batch), read
#           them back buffered through a new descriptor
#   aio     xfstests aio-dio-invalidate-readahead: rewrite the first 640 KiB of a file (locked) with async
#           O_DIRECT writes (libaio syscalls), alternating two patterns, read it back buffered; readers run
#           beside it
#   reader  read the shared files buffered, by mmap and with O_DIRECT in a loop (readahead pressure), no check
# Usage: coherence_worker.py MODE SECONDS SEED FILE...
import ctypes, fcntl, mmap, os, random, struct, sys, time

PAGE = 4096
mode, seconds, seed, files = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
rnd = random.Random(seed * 7919 + os.getpid())
deadline = time.monotonic() + seconds
me = os.getpid()
ops = 0


def differing(want, got):
    """The runs [start, end) where got differs from want (a missing tail counts), and what got holds there."""
    runs, k, n = [], 0, len(want)
    while k < n:
        if k < len(got) and got[k] == want[k]:
            k += 1
            continue
        start = k
        while k < n and (k >= len(got) or got[k] != want[k]):
            k += 1
        part = bytes(got[start:min(k, len(got))])
        runs.append((start, k, "missing" if not part else "zeros" if part.count(0) == len(part) else repr(part[:16])))
    return runs


def corrupt(what, path, off, want, got):
    runs = differing(want, got)
    i = runs[0][0] if runs else min(len(want), len(got))
    lines = ["CORRUPT %s %s: %d bytes at file offset %d differ from offset %d (pid %d, op %d, %.3f s to go)"
             % (what, path, len(want), off, off + i, me, ops, deadline - time.monotonic()),
             "    expected: %r" % bytes(want[i:i + 32]), "    actual:   %r" % bytes(got[i:i + 32]),
             "    %d bytes read, %d differ in %d runs (file offsets): %s" % (
                 len(got), sum(e - s for s, e, _ in runs), len(runs),
                 ", ".join("[%d, %d) %s" % (off + s, off + e, d) for s, e, d in runs[:8]))]
    # the region is still locked: read it again to tell a stale page cache from wrong bytes at the server
    for how, read in (("again buffered", read_new_fd), ("again O_DIRECT", read_direct)):
        try:
            again = read(path, off, len(want))
            lines.append("    read %s: %s" % (how, "as written" if again == want else
                                               "differs in %d runs, first %s" % (len(differing(want, again)),
                                                                                  differing(want, again)[:1])))
        except OSError as e:
            lines.append("    read %s: %s" % (how, e))
    print("\n".join(lines), flush=True)
    sys.exit(3)


def pattern(tag, req, n):
    unit = ("%s:%d:%d:coh*" % (tag, me, req)).encode()
    return (unit * (n // len(unit) + 1))[:n]


def aligned(n):
    return mmap.mmap(-1, max(PAGE, (n + PAGE - 1) // PAGE * PAGE))  # page-aligned anonymous buffer


def read_direct(path, off, n):
    start = off // PAGE * PAGE
    end = (off + n + PAGE - 1) // PAGE * PAGE
    buf = aligned(end - start)
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    try:
        got = os.preadv(fd, [buf], start)
    finally:
        os.close(fd)
    return bytes(buf[off - start:min(got, off - start + n)])


def read_mmap(path, off, n):
    fd = os.open(path, os.O_RDONLY)
    try:
        with mmap.mmap(fd, 0, prot=mmap.PROT_READ) as m:
            return bytes(m[off:off + n])
    finally:
        os.close(fd)


def read_new_fd(path, off, n):
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.pread(fd, n, off)
    finally:
        os.close(fd)


class Aio:
    """io_setup/io_submit/io_getevents by raw syscalls: asynchronous O_DIRECT writes, as libaio does."""
    libc = ctypes.CDLL(None, use_errno=True)
    SETUP, DESTROY, GETEVENTS, SUBMIT = 206, 207, 208, 209

    def __init__(self, depth):
        self.ctx = ctypes.c_ulong(0)
        if self.libc.syscall(self.SETUP, depth, ctypes.byref(self.ctx)) != 0:
            raise OSError(ctypes.get_errno(), "io_setup")

    def pwrite_all(self, fd, chunks):
        """chunks: (offset, page-aligned mmap buffer); waits for all, raises on a short or failed write."""
        iocbs = []
        for i, (off, buf) in enumerate(chunks):
            addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
            iocbs.append(ctypes.create_string_buffer(struct.pack("<QIIHhIQQqQII", i, 0, 0, 1, 0, fd, addr, len(buf),
                                                                 off, 0, 0, 0), 64))
        ptrs = (ctypes.c_void_p * len(iocbs))(*[ctypes.addressof(b) for b in iocbs])
        done = 0
        while done < len(iocbs):
            n = self.libc.syscall(self.SUBMIT, self.ctx, len(iocbs) - done, ctypes.byref(ptrs, done * 8))
            if n < 0:
                raise OSError(ctypes.get_errno(), "io_submit")
            done += n
        events = ctypes.create_string_buffer(32 * len(iocbs))
        got = 0
        while got < len(iocbs):
            n = self.libc.syscall(self.GETEVENTS, self.ctx, 1, len(iocbs) - got, ctypes.byref(events, got * 32), None)
            if n < 0:
                if ctypes.get_errno() == 4:
                    continue
                raise OSError(ctypes.get_errno(), "io_getevents")
            for k in range(got, got + n):
                data, _, res, _ = struct.unpack_from("<QQqq", events, k * 32)
                if res != len(chunks[data][1]):
                    raise OSError(-res if res < 0 else 5, "async O_DIRECT write returned %d" % res)
            got += n


def lock_mode():
    global ops
    plain = {p: os.open(p, os.O_WRONLY) for p in files}
    sync = {p: os.open(p, os.O_WRONLY | os.O_SYNC) for p in files}
    sizes = {p: os.fstat(plain[p]).st_size for p in files}
    while time.monotonic() < deadline:
        ops += 1
        path = rnd.choice(files)
        n = rnd.randint(1, 400)
        off = rnd.randrange(0, sizes[path] - n)
        fd = (sync if rnd.random() < 0.3 else plain)[path]
        want = pattern(chr(65 + ops % 26), ops, n)
        fcntl.lockf(fd, fcntl.LOCK_EX, n, off)
        try:
            if os.pwrite(fd, want, off) != n:
                sys.exit("short write")
            how = rnd.random()
            if how < 0.7:
                got, what = read_new_fd(path, off, n), "read"
            elif how < 0.85:
                got, what = read_mmap(path, off, n), "mmap-read"
            else:
                got, what = read_direct(path, off, n), "odirect-read"
            if got != want:
                corrupt("lock/" + what, path, off, want, got)
        finally:
            fcntl.lockf(fd, fcntl.LOCK_UN, n, off)


def dio_mode():
    global ops
    direct = {p: os.open(p, os.O_WRONLY | os.O_DIRECT) for p in files}
    sizes = {p: os.fstat(direct[p]).st_size // PAGE for p in files}
    aio = Aio(16)
    while time.monotonic() < deadline:
        ops += 1
        path = rnd.choice(files)
        pages = rnd.randint(1, 8)
        first = rnd.randrange(0, sizes[path] - pages)
        off, n = first * PAGE, pages * PAGE
        want = pattern(chr(97 + ops % 26), ops, n)
        fd = direct[path]
        fcntl.lockf(fd, fcntl.LOCK_EX, n, off)
        try:
            if rnd.random() < 0.5:
                buf = aligned(n)
                buf[:] = want
                if os.pwritev(fd, [buf], off) != n:
                    sys.exit("short O_DIRECT write")
            else:
                chunks = []  # one or two requests in flight, as an aio write of a buffer splits at most
                half = (pages + 1) // 2
                for k0 in ((0, half) if pages > 1 else (0,)):
                    k1 = half if k0 == 0 and pages > 1 else pages
                    buf = aligned((k1 - k0) * PAGE)
                    buf[:] = want[k0 * PAGE:k1 * PAGE]
                    chunks.append((off + k0 * PAGE, buf))
                aio.pwrite_all(fd, chunks)
            got = read_new_fd(path, off, n)
            if got != want:
                corrupt("dio/read", path, off, want, got)
        finally:
            fcntl.lockf(fd, fcntl.LOCK_UN, n, off)


def aio_mode():
    global ops
    path = files[0]
    size = min(640 * 1024, os.stat(path).st_size // (16 * 1024) * (16 * 1024))
    fd = os.open(path, os.O_WRONLY | os.O_DIRECT)
    aio = Aio(64)
    # four requests of 160 KiB, as a whole-file rewrite reaches the server (few, large requests in flight)
    piece = size // 4 // PAGE * PAGE
    bufs = []
    for fill in (b"\xaa", b"\x55"):
        chunks = []
        for off in range(0, size, piece):
            b = aligned(min(piece, size - off))
            b[:] = fill * len(b)
            chunks.append((off, b))
        bufs.append((fill, chunks))
    while time.monotonic() < deadline:
        ops += 1
        fill, chunks = bufs[ops % 2]
        fcntl.lockf(fd, fcntl.LOCK_EX, size, 0)  # the range is ours while we rewrite and check it
        try:
            aio.pwrite_all(fd, chunks)
            got = read_new_fd(path, 0, size)
            if got != fill * size:
                corrupt("aio/read", path, 0, fill * size, got)
        finally:
            fcntl.lockf(fd, fcntl.LOCK_UN, size, 0)


def reader_mode():
    global ops
    while time.monotonic() < deadline:
        ops += 1
        path = rnd.choice(files)
        how = rnd.random()
        if how < 0.6:
            fd = os.open(path, os.O_RDONLY)
            try:
                while os.read(fd, 1 << 17):
                    pass
            finally:
                os.close(fd)
        elif how < 0.85:
            size = os.stat(path).st_size
            read_mmap(path, rnd.randrange(0, size), 1 << 16)
        else:
            size = os.stat(path).st_size
            read_direct(path, rnd.randrange(0, size - PAGE), PAGE)


{"lock": lock_mode, "dio": dio_mode, "aio": aio_mode, "reader": reader_mode}[mode]()
print("ok %s %d ops" % (mode, ops), flush=True)
