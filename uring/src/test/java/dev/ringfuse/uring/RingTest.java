package dev.ringfuse.uring;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.Arena;
import java.nio.file.Path;

/** Base of the per-operation tests: a fresh ring, a confined arena and a temp dir per test. */
abstract class RingTest {
    @TempDir
    Path dir;
    IoUring ring;
    Arena arena;

    RingConfig config() {
        return RingConfig.builder(16).build();
    }

    @BeforeEach
    void openRing() throws Exception {
        ring = IoUring.open(config());
        arena = Arena.ofConfined();
    }

    @AfterEach
    void closeRing() throws Exception {
        ring.close();
        arena.close();
    }

    /** Submits the prepared SQE and returns its result. */
    int res(Sqe sqe) throws UringException {
        sqe.userData(0x5E5);
        return Rings.one(ring).res();
    }
}
