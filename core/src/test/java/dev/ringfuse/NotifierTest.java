package dev.ringfuse;

import dev.ringfuse.lowlevel.*;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Notifications and interrupts on a real mount: a filesystem whose one file changes behind the kernel's
 * back, with long cache timeouts, so only a notification can make the change visible.
 */
@Timeout(90)
class NotifierTest {
    private static final long HOUR = 3600L * 1_000_000_000L;

    @TempDir
    Path dir;

    /** Root with "file" (node 2) whose content is {@link #content}; names and attributes cached for an hour. */
    static class ChangingFs implements LowLevelFileSystem {
        volatile byte[] content = "first".getBytes(StandardCharsets.UTF_8);
        volatile boolean exists = true;
        volatile Notifier notifier;
        final CountDownLatch readBlocked = new CountDownLatch(1);
        final CompletableFuture<Boolean> sawInterrupt = new CompletableFuture<>();
        volatile boolean blockReads;
        volatile int lookups;

        Attr attr(long ino) {
            return ino == ROOT_ID
                    ? new Attr(ino, Attr.S_IFDIR | 0755, 2, 0, 0, 0, 0, 0, 4096, 0, 0, 0, 0, 0, 0, 0, 0)
                    : new Attr(ino, Attr.S_IFREG | 0644, 1, 0, 0, 0, content.length, 1, 4096, 0, 0, 0, 0, 0, 0, 0, 0);
        }

        @Override
        public void init(InitContext init) {
            notifier = init.notifier();
        }

        @Override
        public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
            lookups++;
            if (name.equals("file") && exists) reply.entry(new Entry(2, 1, attr(2), HOUR, HOUR));
            else reply.negative(HOUR);
        }

        @Override
        public void getattr(RequestContext ctx, long nodeid, long fh, AttrReply reply) {
            reply.attr(attr(nodeid), HOUR);
        }

        @Override
        public void open(RequestContext ctx, long nodeid, int flags, OpenReply reply) {
            // a blocking read must be a synchronous request (direct I/O): readahead is not interruptible
            reply.open(0, blockReads ? OpenFlags.DIRECT_IO : OpenFlags.KEEP_CACHE);
        }

        @Override
        public void read(RequestContext ctx, long nodeid, long fh, long offset, int size, ReadReply reply) {
            if (blockReads) {
                readBlocked.countDown();
                // a callback that waits for its caller's signal: poll the interrupt flag
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (!ctx.interrupted() && System.nanoTime() < end) Thread.onSpinWait();
                sawInterrupt.complete(ctx.interrupted());
                reply.error(Errno.EINTR);
                return;
            }
            byte[] c = content;
            int from = (int) Math.min(offset, c.length);
            reply.data(c, from, Math.min(size, c.length - from));
        }
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void invalidationStoreAndRetrieveReachTheKernel(TransportKind transport) throws Exception {
        ChangingFs fs = new ChangingFs();
        // noatime: a read would otherwise mark the cached atime stale and the next stat would ask again
        try (Mount m = Fuse.mount(dir, fs, MountOptions.defaults().withOptions("noatime").withTransport(transport))) {
            Path file = dir.resolve("file");
            assertEquals("first", Files.readString(file));
            fs.content = "FIRST".getBytes(StandardCharsets.UTF_8);
            assertEquals("first", Files.readString(file), "cached for an hour: the change is invisible");

            assertTrue(fs.notifier.invalInode(2, 0, 0));
            assertEquals("FIRST", Files.readString(file), "inval_inode dropped attributes and data");

            byte[] stored = "STORED".getBytes(StandardCharsets.UTF_8);
            fs.content = stored; // same size as the page-cache copy we store
            fs.notifier.invalInode(2, -1, 0); // new size
            Files.readString(file);
            fs.notifier.store(2, 0, MemorySegment.ofArray("stored".getBytes(StandardCharsets.UTF_8)));
            assertEquals("stored", Files.readString(file), "store put data into the page cache");
            // more retrieves than a transport has queue entries: each answer must give its entry back
            for (int i = 0; i < 40; i++) {
                byte[] cached = fs.notifier.retrieve(2, 0, 6).get(10, TimeUnit.SECONDS);
                assertEquals("stored", new String(cached, StandardCharsets.UTF_8), "retrieve returned the cached page");
            }
            assertEquals("stored", Files.readString(file), "the mount still serves requests after the retrieves");

            int before = fs.lookups;
            fs.exists = false;
            assertTrue(Files.exists(file), "the name is cached");
            fs.notifier.invalEntry(LowLevelFileSystem.ROOT_ID, "file");
            assertFalse(Files.exists(file), "inval_entry forced a new lookup");
            assertTrue(fs.lookups > before);

            fs.exists = true;
            fs.notifier.invalEntry(LowLevelFileSystem.ROOT_ID, "file");
            assertTrue(Files.exists(file));
            fs.exists = false;
            assertTrue(fs.notifier.delete(LowLevelFileSystem.ROOT_ID, 2, "file"));
            assertFalse(Files.exists(file), "delete removed the cached name");
        }
        assertThrows(java.io.IOException.class, () -> fs.notifier.invalInode(2, 0, 0), "refused after unmount");
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void aSignalledCallerInterruptsItsRequest(TransportKind transport) throws Exception {
        ChangingFs fs = new ChangingFs();
        try (Mount m = Fuse.mount(dir, fs, MountOptions.defaults().withTransport(transport))) {
            fs.blockReads = true;
            assertFalse(fs.notifier.invalInode(2, 0, 0), "nothing cached yet: not an error");
            // env --default-signal: a JVM started in the background by a non-interactive shell (nohup ... &)
            // ignores SIGINT, and cat would inherit that and never be interrupted
            Process cat = new ProcessBuilder("env", "--default-signal=INT", "cat", dir.resolve("file").toString())
                    .redirectErrorStream(true).start();
            assertTrue(fs.readBlocked.await(20, TimeUnit.SECONDS), "the read reached the filesystem");
            new ProcessBuilder("kill", "-INT", Long.toString(cat.pid())).start().waitFor();
            assertTrue(fs.sawInterrupt.get(20, TimeUnit.SECONDS), "the kernel's INTERRUPT reached the callback");
            assertTrue(cat.waitFor(20, TimeUnit.SECONDS), "the caller ended");
            assertNotEquals(0, cat.exitValue());
        }
    }

    @Test
    void pollWakeupAfterUnmountIsRefused() throws Exception {
        AtomicReference<Notifier> n = new AtomicReference<>();
        ChangingFs fs = new ChangingFs() {
            @Override
            public void init(InitContext init) {
                n.set(init.notifier());
            }
        };
        try (Mount m = Fuse.mount(dir, fs)) {
            n.get().pollWakeup(12345); // an unknown poll handle is ignored by the kernel
        }
        assertThrows(java.io.IOException.class, () -> n.get().pollWakeup(1));
    }
}
