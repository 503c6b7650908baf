package dev.ringfuse;

import dev.ringfuse.lowlevel.*;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The reply contract on a real mount, on both transports: exactly one reply per request, from any thread;
 * a second completion throws; FuseException answers its errno; any other exception answers EIO; a handle
 * dropped without a reply is answered EIO once the garbage collector finds it; a reply body another thread
 * fills is answered by that thread alone.
 */
@Timeout(120)
class ReplyContractTest {
    @TempDir
    Path dir;

    /** HelloFs whose lookup behaves according to the name asked for. */
    static final class ContractFs extends HelloFs {
        final CompletableFuture<Throwable> secondCompletion = new CompletableFuture<>();

        @Override
        public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
            switch (name) {
                case "twice" -> {
                    reply.error(Errno.ENOENT);
                    try {
                        reply.error(Errno.EIO);
                        secondCompletion.complete(null);
                    } catch (Throwable t) {
                        secondCompletion.complete(t);
                    }
                }
                case "fuse-exception" -> throw new FuseException(Errno.EACCES);
                case "runtime-exception" -> throw new IllegalStateException("a bug in the filesystem");
                case "later" -> Thread.ofVirtual().start(() -> {
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    reply.entry(new Entry(FILE, 1, attr(FILE), 0, 0));
                });
                case "dropped" -> { } // no reply, and the handle is not kept anywhere
                default -> super.lookup(ctx, parent, name, reply);
            }
        }

        /** Set: the next readdir is filled by another thread, and the callback tries to answer too, then throws. */
        volatile boolean lend;
        final CompletableFuture<Throwable> answerWhileLent = new CompletableFuture<>();

        @Override
        public void readdir(RequestContext ctx, long nodeid, long fh, long offset, int size, DirReply reply) {
            if (!lend || offset != 0) {
                super.readdir(ctx, nodeid, fh, offset, size, reply);
                return;
            }
            lend = false;
            java.util.concurrent.CountDownLatch added = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch tried = new java.util.concurrent.CountDownLatch(1);
            Thread.ofPlatform().start(() -> {
                reply.add(".", ROOT_ID, Attr.S_IFDIR, 1);
                reply.add("..", ROOT_ID, Attr.S_IFDIR, 2);
                added.countDown();
                try {
                    tried.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                reply.add("lent", FILE, Attr.S_IFREG, 3);
                reply.send();
            });
            try {
                added.await();
                reply.send();
                answerWhileLent.complete(null);
            } catch (Throwable t) {
                answerWhileLent.complete(t);
            } finally {
                tried.countDown();
            }
            throw new IllegalStateException("a bug after handing the reply over");
        }
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void exactlyOneReplyPerRequest(TransportKind transport) throws Exception {
        Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
        ContractFs fs = new ContractFs();
        try (Mount m = Fuse.mount(dir, fs, MountOptions.defaults().withTransport(transport))) {
            assertThrows(NoSuchFileException.class, () -> Files.readAttributes(dir.resolve("twice"),
                    java.nio.file.attribute.BasicFileAttributes.class));
            Throwable second = fs.secondCompletion.get(10, TimeUnit.SECONDS);
            assertInstanceOf(IllegalStateException.class, second, "a second completion throws");

            assertThrows(java.nio.file.AccessDeniedException.class, () -> Files.size(dir.resolve("fuse-exception")),
                    "FuseException(EACCES) answers EACCES");

            FileSystemException io = assertThrows(FileSystemException.class, () -> Files.size(dir.resolve("runtime-exception")));
            assertTrue(io.getMessage().contains("Input/output error"), io.getMessage());
            assertArrayEquals(HelloFs.CONTENT, Files.readAllBytes(dir.resolve("hello")), "the mount keeps working");

            assertEquals(HelloFs.CONTENT.length, Files.size(dir.resolve("later")), "a reply from another thread");

            fs.lend = true;
            try (java.util.stream.Stream<Path> names = Files.list(dir)) {
                assertEquals(java.util.List.of(dir.resolve("lent")), names.toList(),
                        "the thread that filled the reply answers, not the callback nor its exception");
            }
            assertInstanceOf(IllegalStateException.class, fs.answerWhileLent.get(10, TimeUnit.SECONDS),
                    "the callback cannot answer while another thread fills its reply");

            CompletableFuture<Throwable> dropped = CompletableFuture.supplyAsync(() -> {
                try {
                    Files.size(dir.resolve("dropped"));
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            for (int i = 0; i < 200 && !dropped.isDone(); i++) {
                System.gc();
                Thread.sleep(50);
            }
            Throwable t = dropped.get(5, TimeUnit.SECONDS);
            assertInstanceOf(FileSystemException.class, t);
            assertTrue(t.getMessage().contains("Input/output error"), "a dropped handle is answered EIO: " + t);
        }
    }
}
