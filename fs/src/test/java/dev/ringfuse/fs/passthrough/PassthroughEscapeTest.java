package dev.ringfuse.fs.passthrough;

import dev.ringfuse.Errno;
import dev.ringfuse.FuseException;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Attempts to reach outside the source directory through the passthrough filesystem's own API (no
 * kernel in between, so nothing but the filesystem stands in the way): names with slashes, "..",
 * symlinks pointing out, and directories moved out of the tree while in use.
 */
@Timeout(60)
class PassthroughEscapeTest {
    @TempDir
    Path outside;
    Path source;
    Path secret;
    PassthroughFs fs;

    @BeforeEach
    void setUp() throws Exception {
        secret = Files.writeString(outside.resolve("secret"), "outside");
        source = Files.createDirectory(outside.resolve("source"));
        fs = new PassthroughFs(PassthroughFs.Options.of(source).withKernel(PassthroughFs.KernelMode.OFF));
    }

    @AfterEach
    void tearDown() {
        fs.destroy();
    }

    private static int errno(Consumer<Got> call) {
        Got g = new Got();
        try {
            call.accept(g);
        } catch (FuseException e) {
            return e.errno().code();
        }
        return g.errno;
    }

    private long lookup(long parent, String name) {
        Got g = new Got();
        fs.lookup(Got.Caller.ROOT, parent, name, g);
        assertTrue(g.entry != null, name + ": errno " + g.errno);
        return g.entry.nodeid();
    }

    private long inoOf(Path p) throws Exception {
        return (Long) Files.getAttribute(p, "unix:ino");
    }

    @Test
    void namesWithSlashesAreRefused() {
        assertEquals(Errno.EINVAL.code(), errno(g -> fs.lookup(Got.Caller.ROOT, LowLevelFileSystem.ROOT_ID, "../secret", g)));
        assertEquals(Errno.EINVAL.code(), errno(g -> fs.mkdir(Got.Caller.ROOT, LowLevelFileSystem.ROOT_ID, "../x", 0755, g)));
        assertFalse(Files.exists(outside.resolve("x")));
    }

    @Test
    void dotDotOfTheRootIsTheRoot() {
        assertEquals(LowLevelFileSystem.ROOT_ID, lookup(LowLevelFileSystem.ROOT_ID, ".."));
    }

    @Test
    void symlinksPointingOutAreNeverFollowed() throws Exception {
        Files.createSymbolicLink(source.resolve("file-out"), secret);
        Files.createSymbolicLink(source.resolve("dir-out"), outside);
        long fileOut = lookup(LowLevelFileSystem.ROOT_ID, "file-out");
        long dirOut = lookup(LowLevelFileSystem.ROOT_ID, "dir-out");
        // opening the link itself must fail; it must never open what it points at
        assertNotEquals(0, errno(g -> fs.open(Got.Caller.ROOT, fileOut, 0, g)));
        assertNotEquals(0, errno(g -> fs.mkdir(Got.Caller.ROOT, dirOut, "made", 0755, g)));
        assertNotEquals(0, errno(g -> fs.create(Got.Caller.ROOT, dirOut, "created", 0644, 0101, g)));
        assertNotEquals(0, errno(g -> fs.lookup(Got.Caller.ROOT, dirOut, "secret", g)));
        assertNotEquals(0, errno(g -> fs.unlink(Got.Caller.ROOT, dirOut, "secret", g)));
        assertEquals(Set.of("secret", "source"), names(outside));
        assertEquals("outside", Files.readString(secret));
    }

    @Test
    void aDirectoryReplacedByASymlinkKeepsItsOwnInode() throws Exception {
        Files.createDirectory(source.resolve("d"));
        long d = lookup(LowLevelFileSystem.ROOT_ID, "d");
        // someone swaps the directory for a symlink out of the tree behind the server's back
        Files.move(source.resolve("d"), source.resolve("d-moved"));
        Files.createSymbolicLink(source.resolve("d"), outside);
        Got g = new Got();
        fs.mkdir(Got.Caller.ROOT, d, "made", 0755, g);
        assertTrue(Files.isDirectory(source.resolve("d-moved/made")), "created in the directory the node stands for");
        assertFalse(Files.exists(outside.resolve("made")));
    }

    @Test
    void aDirectoryMovedOutOfTheTreeHasNoWayBackUp() throws Exception {
        Files.createDirectory(source.resolve("sub"));
        long sub = lookup(LowLevelFileSystem.ROOT_ID, "sub");
        assertEquals(LowLevelFileSystem.ROOT_ID, lookup(sub, ".."));
        Files.move(source.resolve("sub"), outside.resolve("away"), StandardCopyOption.ATOMIC_MOVE);
        assertEquals(Errno.ENOENT.code(), errno(g -> fs.lookup(Got.Caller.ROOT, sub, "..", g)));
    }

    @Test
    void renamingAParentInAndOutDuringLookupsNeverReachesOutside() throws Exception {
        Path in = Files.createDirectory(source.resolve("p")), out = outside.resolve("p-out");
        Files.createDirectory(in.resolve("child"));
        long p = lookup(LowLevelFileSystem.ROOT_ID, "p");
        long outsideIno = inoOf(outside);
        AtomicBoolean stop = new AtomicBoolean();
        Thread mover = Thread.ofPlatform().start(() -> {
            try {
                while (!stop.get()) {
                    Files.move(in, out, StandardCopyOption.ATOMIC_MOVE);
                    Files.move(out, in, StandardCopyOption.ATOMIC_MOVE);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        try {
            for (int i = 0; i < 3000; i++) {
                Got up = new Got(), child = new Got();
                try {
                    fs.lookup(Got.Caller.ROOT, p, "..", up);
                } catch (FuseException e) {
                    assertEquals(Errno.ENOENT, e.errno());
                }
                if (up.entry != null) seen.add(up.entry.attr().ino());
                fs.lookup(Got.Caller.ROOT, p, "child", child);
                if (child.entry != null) fs.forget(child.entry.nodeid(), 1);
                if (up.entry != null) fs.forget(up.entry.nodeid(), 1);
            }
        } finally {
            stop.set(true);
            mover.join();
        }
        assertFalse(seen.contains(outsideIno), "\"..\" resolved to the directory above the source");
        assertTrue(seen.stream().allMatch(ino -> ino == rootIno()), "\"..\" of p is the source root: " + seen);
    }

    private long rootIno() {
        try {
            return inoOf(source);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<String> names(Path dir) throws Exception {
        try (var s = Files.list(dir)) {
            return s.map(x -> x.getFileName().toString()).collect(java.util.stream.Collectors.toSet());
        }
    }
}
