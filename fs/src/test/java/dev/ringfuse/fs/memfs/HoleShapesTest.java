package dev.ringfuse.fs.memfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * issue 17.2 and 17.4: SEEK_DATA/SEEK_HOLE, st_blocks and fallocate modes on every hole shape, on a memfs
 * mount and on tmpfs (/dev/shm) with the same script; the outputs must be identical line for line (except
 * ZERO_RANGE, which memfs supports and tmpfs does not: its lines are left out of the comparison).
 */
class HoleShapesTest {
    /** Prints one line per probe: "label value". */
    private static final String SHAPES = """
            import os, sys, ctypes, errno
            libc = ctypes.CDLL(None, use_errno=True)
            libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
            d = sys.argv[1]
            K = 1024; P = 4096; M = K * K
            def fa(fd, mode, off, ln):
                if libc.fallocate(fd, mode, off, ln) != 0:
                    return errno.errorcode[ctypes.get_errno()]
                return 'OK'
            def sk(fd, off, wh):
                try: return str(os.lseek(fd, off, wh))
                except OSError as e: return errno.errorcode[e.errno]
            def probe(name, fd, offs):
                st = os.fstat(fd)
                out = ['%s size=%d blocks=%d' % (name, st.st_size, st.st_blocks)]
                for o in offs:
                    out.append('%s data(%d)=%s hole(%d)=%s' % (name, o, sk(fd, o, os.SEEK_DATA), o, sk(fd, o, os.SEEK_HOLE)))
                print('\\n'.join(out), flush=True)
            def new(name):
                return os.open(os.path.join(d, name), os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
            offs = [0, P - 1, P, 60 * K, 64 * K, 72 * K, 128 * K, 300 * K, M - 1, M]
            # punch page-aligned ranges out of dense data: inside a chunk, across chunks, a partial page
            fd = new('punch'); os.pwrite(fd, b'x' * M, 0)
            print('punch1', fa(fd, 3, 64 * K, 8 * K)); print('punch2', fa(fd, 3, 250 * K, 200 * K))
            print('punch3', fa(fd, 3, 100, 50)); probe('punch', fd, offs + [250 * K, 252 * K, 448 * K, 452 * K])
            print('punch-read', os.pread(fd, 8 * K, 64 * K) == bytes(8 * K), os.pread(fd, 60, 90) == b'x' * 10 + bytes(50))
            # a sparse file: two writes in one chunk with a gap, one far away
            fd = new('sparse'); os.pwrite(fd, b'a', 5); os.pwrite(fd, b'b', 40 * K); os.pwrite(fd, b'c', 5 * M)
            probe('sparse', fd, offs + [40 * K, 5 * M - 1, 5 * M])
            # fallocated but never written pages are holes on tmpfs
            fd = new('falloc'); print('falloc', fa(fd, 0, 0, M)); probe('falloc', fd, offs)
            os.pwrite(fd, b'y', 70 * K); probe('falloc-written', fd, offs)
            print('keepsize', fa(fd, 1, M, M)); probe('keepsize', fd, [0, M - 1])
            os.ftruncate(fd, 2 * M); probe('keepsize-grown', fd, [0, M, 2 * M - 1])
            os.ftruncate(fd, 100 * K); probe('shrunk', fd, [0, 70 * K, 100 * K - 1])
            # modes tmpfs refuses (ZERO_RANGE is compared separately)
            for name, mode in (('punch-nokeep', 2), ('collapse', 8), ('insert', 32), ('unshare', 64)):
                print(name, fa(fd, mode, 0, P))
            print('zero-range', fa(fd, 16, 0, P))
            print('bad-len', fa(fd, 0, 0, 0), fa(fd, 0, -1, P))
            # truncate inside a page keeps the page as data
            fd = new('trunc'); os.pwrite(fd, b'z' * (3 * P), 0); os.ftruncate(fd, 2 * P + 10)
            probe('trunc', fd, [0, 2 * P, 2 * P + 9]); os.ftruncate(fd, M); probe('trunc-grown', fd, [0, 2 * P + 10, 3 * P])
            print('trunc-read', os.pread(fd, P, 2 * P) == b'z' * 10 + bytes(P - 10))
            """;

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void memfsMatchesTmpfs(TransportKind transport) throws Exception {
        Probes.assumeTransport(transport);
        Probes.Probe shapes = dir -> Probes.run("python3", SHAPES, dir, 60);
        String tmpfs = Probes.onTmpfs("holes", shapes);
        String memfs = Probes.onMount(tmp, new MemFs(), MountOptions.defaults().withTransport(transport), shapes);
        assertTrue(tmpfs.contains("punch data(65536)=73728"), tmpfs);
        assertTrue(Probes.line(tmpfs, "zero-range").matches("zero-range (EOPNOTSUPP|ENOTSUP)"), tmpfs); // errno 95
        assertEquals("zero-range OK", Probes.line(memfs, "zero-range"), "memfs supports ZERO_RANGE (fs/DESIGN.md)");
        assertEquals(Probes.without(tmpfs, "zero-range"), Probes.without(memfs, "zero-range"));
    }
}
