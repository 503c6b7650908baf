package dev.ringfuse.testkit;

import dev.ringfuse.Fuse;
import dev.ringfuse.Mount;
import dev.ringfuse.MountOptions;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.InvocationInterceptor;
import org.junit.jupiter.api.extension.ReflectiveInvocationContext;

/**
 * A JUnit 5 extension that mounts a ringfuse filesystem in a fresh temp directory and always unmounts it.
 *
 * <pre>{@code
 * class MyFsTest {
 *     @RegisterExtension
 *     static final FuseMount MOUNT = FuseMount.of(() -> new MemFs())
 *             .options(MountOptions.defaults().withTransport(TransportKind.DEV))
 *             .timeout(Duration.ofMinutes(2));
 *
 *     @Test
 *     void writesAFile() throws IOException {
 *         Path f = MOUNT.testDir().resolve("hello");
 *         Files.writeString(f, "hi");
 *         assertEquals("hi", Files.readString(f));
 *     }
 * }
 * }</pre>
 *
 * <p>Registered on a {@code static} field it mounts once before all tests of the class and unmounts after
 * them (the fast way); on an instance field it mounts and unmounts around each test. Either way each test
 * gets a fresh subdirectory, {@link #testDir()}.
 *
 * <p>Every test method runs on its own thread with a hard {@link #timeout(Duration) timeout}: when it
 * expires the FUSE connection is aborted (stuck system calls then fail with ENOTCONN), the mount is
 * detached, and the test fails. Unmounting is bounded the same way: if {@link Mount#close()} hangs past
 * {@link #closeTimeout(Duration)}, a watchdog aborts the connection and runs the equivalent of
 * {@code umount -l}. A mount left behind after close fails the class.
 *
 * <p>The default options are {@link MountOptions#defaults()} with {@code allow_other}, so scenarios may run
 * steps as other users (the kernel still checks permissions: {@code default_permissions} is on).
 */
public final class FuseMount implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback,
        InvocationInterceptor {

    /** A step to run as root before mounting, e.g. enabling FUSE-over-io_uring. */
    @FunctionalInterface
    public interface Setup { void run() throws Exception; }

    private final Supplier<? extends LowLevelFileSystem> factory;
    private MountOptions options = MountOptions.defaults().withAllowOther(true);
    private Duration timeout = Duration.ofMinutes(2);
    private Duration closeTimeout = Duration.ofSeconds(30);
    private Setup beforeMount = () -> {};
    private boolean freshDirectories = true;

    private Path mountpoint;
    private Mount mount;
    private LowLevelFileSystem fs;
    private boolean perClass;
    private Path testDir;
    private int tests;

    private FuseMount(Supplier<? extends LowLevelFileSystem> factory) {
        this.factory = Objects.requireNonNull(factory);
    }

    /** An extension that mounts a new filesystem from {@code factory} each time it mounts. */
    public static FuseMount of(Supplier<? extends LowLevelFileSystem> factory) {
        return new FuseMount(factory);
    }

    /** The mount options (default: {@link MountOptions#defaults()} with allow_other). */
    public FuseMount options(MountOptions options) {
        this.options = Objects.requireNonNull(options);
        return this;
    }

    /** The hard limit for each test method (default 2 minutes). */
    public FuseMount timeout(Duration timeout) {
        this.timeout = Objects.requireNonNull(timeout);
        return this;
    }

    /** How long unmounting may take before the watchdog forces it (default 30 s). */
    public FuseMount closeTimeout(Duration closeTimeout) {
        this.closeTimeout = Objects.requireNonNull(closeTimeout);
        return this;
    }

    /** A step run before each mount, e.g. writing 1 to /sys/module/fuse/parameters/enable_uring. */
    public FuseMount beforeMount(Setup setup) {
        this.beforeMount = Objects.requireNonNull(setup);
        return this;
    }

    /**
     * Whether each test gets a fresh subdirectory (default true). Turn it off for read-only filesystems:
     * {@link #testDir()} is then the root.
     */
    public FuseMount freshDirectories(boolean fresh) {
        this.freshDirectories = fresh;
        return this;
    }

    /** The mount point: the root of the mounted filesystem. */
    public Path root() {
        if (mountpoint == null) throw new IllegalStateException("not mounted: use root() inside a test");
        return mountpoint;
    }

    /** A fresh, empty directory for the current test, inside the mount. */
    public Path testDir() {
        if (testDir == null) throw new IllegalStateException("no test is running");
        return testDir;
    }

    /** The live mount. */
    public Mount mount() {
        if (mount == null) throw new IllegalStateException("not mounted");
        return mount;
    }

    /** The filesystem instance being served. */
    public LowLevelFileSystem fileSystem() {
        return fs;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        perClass = true;
        mountNow(context.getRequiredTestClass().getSimpleName());
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (mount == null) mountNow(context.getRequiredTestClass().getSimpleName());
        if (!freshDirectories) {
            testDir = mountpoint;
            return;
        }
        String name = context.getTestMethod().map(Method::getName).orElse("test");
        testDir = mountpoint.resolve(name + "-" + (++tests));
        Files.createDirectory(testDir);
        Files.setPosixFilePermissions(testDir, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        testDir = null;
        if (!perClass) unmountNow();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        unmountNow();
    }

    @Override
    public void interceptTestMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                    ExtensionContext context) throws Throwable {
        bounded(invocation);
    }

    @Override
    public void interceptTestTemplateMethod(Invocation<Void> invocation, ReflectiveInvocationContext<Method> call,
                                            ExtensionContext context) throws Throwable {
        bounded(invocation);
    }

    private void bounded(Invocation<Void> invocation) throws Throwable {
        Path mp = mountpoint;
        Callable<Void> work = () -> {
            try {
                return invocation.proceed();
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new RuntimeException(t);
            }
        };
        try {
            MountedFsKit.withTimeout(timeout, mp, work);
        } catch (AssertionError e) {
            if (mp != null && mount != null && !mount.isAlive()) mount = null; // aborted by the watchdog
            throw e;
        }
    }

    private void mountNow(String label) throws Exception {
        beforeMount.run();
        Path mp = MountedFsKit.newMountpoint(label);
        LowLevelFileSystem created = factory.get();
        Duration limit = options.initTimeout().plus(Duration.ofSeconds(10));
        mount = MountedFsKit.withTimeout(limit, mp, () -> Fuse.mount(mp, created, options));
        mountpoint = mp;
        fs = created;
        tests = 0;
    }

    private void unmountNow() {
        if (mountpoint == null) return;
        Path mp = mountpoint;
        Mount m = mount;
        mount = null;
        mountpoint = null;
        boolean clean = m == null ? !MountedFsKit.lazyUnmount(mp) : MountedFsKit.closeOrForce(m, mp, closeTimeout);
        boolean gone = MountedFsKit.mountAt(mp).isEmpty();
        try {
            Files.deleteIfExists(mp);
        } catch (IOException ignored) {
            // left for the OS to clean; it is not a mount any more
        }
        if (!gone) throw new AssertionError("still mounted after close and force: " + mp);
        if (!clean) throw new AssertionError("unmounting " + mp + " needed the watchdog (close hung or left the mount)");
    }
}
