package dev.ringfuse.testkit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ringfuse.testkit.internal.Libc;
import java.nio.file.Path;

/**
 * What every scenario interface needs from the class that runs it: a fresh directory per test on the
 * filesystem under test, and which optional {@link Feature}s that filesystem claims.
 * {@link PosixScenarios} implements it.
 */
public interface ScenarioContext {
    /** A fresh, empty directory (mode 0755, owned by the caller) on the filesystem under test. */
    Path dir();

    /** True if the filesystem under test claims {@code feature}. */
    boolean claims(Feature feature);

    /** Skips the scenario, with the reason, if the filesystem does not claim {@code feature}. */
    default void requires(Feature feature) {
        assumeTrue(claims(feature), () -> "the filesystem under test does not claim " + feature);
    }

    /** Skips the scenario unless the test runs as root (switching users, mknod of devices, chown). */
    default void requiresRoot() {
        assumeTrue(Libc.geteuid() == 0, "this scenario switches users or creates devices: run the tests as root");
    }
}
