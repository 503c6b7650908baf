package dev.ringfuse.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** Where the CPU latency request is used: by default on 2 to 4 CPUs, on any number when asked, never when off. */
class LatencyHintTest {

    @Test
    void byDefaultOnSmallMachinesOnly() {
        assertFalse(LatencyHint.enabledByDefault("auto", 1), "one CPU: no other CPU to wake");
        assertTrue(LatencyHint.enabledByDefault("auto", 2));
        assertTrue(LatencyHint.enabledByDefault("auto", 4));
        assertFalse(LatencyHint.enabledByDefault("auto", 5), "many idle CPUs would poll for one stream");
        assertFalse(LatencyHint.enabledByDefault("something else", 64));
    }

    @Test
    void onAndOffOverride() {
        assertTrue(LatencyHint.enabledByDefault("on", 64));
        assertFalse(LatencyHint.enabledByDefault("on", 1));
        assertFalse(LatencyHint.enabledByDefault("off", 2));
        assertFalse(LatencyHint.enabledByDefault("false", 2));
    }

    @Test
    void offWritesNoLine() {
        StringBuilder b = new StringBuilder();
        new LatencyHint(false).describe(b);
        assertEquals("", b.toString());
        new LatencyHint(true).describe(b);
        assertEquals("latencyhint held 0 holds 0\n", b.toString());
    }
}
