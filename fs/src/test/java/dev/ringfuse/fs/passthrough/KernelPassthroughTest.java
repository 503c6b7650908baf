package dev.ringfuse.fs.passthrough;

import dev.ringfuse.lowlevel.Capability;
import dev.ringfuse.lowlevel.InitContext;
import dev.ringfuse.lowlevel.Notifier;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The INIT decision of kernel passthrough, against offers the test machine cannot produce itself. */
class KernelPassthroughTest {
    /** An INIT offering {@code offered}; records what was wanted and the stack depth. */
    static final class Offer implements InitContext {
        final Set<Capability> offered;
        final Set<Capability> wanted = EnumSet.noneOf(Capability.class);
        int depth;

        Offer(Set<Capability> offered) { this.offered = offered; }

        @Override public int kernelMinor() { return 45; }
        @Override public Set<Capability> offered() { return offered; }
        @Override public Set<Capability> wanted() { return wanted; }
        @Override public int maxWrite() { return 1 << 20; }
        @Override public void maxWrite(int bytes) {}
        @Override public void timeGranularity(int nanos) {}
        @Override public void maxBackground(int requests) {}
        @Override public void maxStackDepth(int depth) { this.depth = depth; }
        @Override public Notifier notifier() { return null; }
    }

    @Test
    void autoTakesPassthroughWhenOfferedToRootWithDepthOne() {
        KernelPassthrough k = new KernelPassthrough(PassthroughFs.KernelMode.AUTO);
        Offer o = new Offer(EnumSet.of(Capability.PASSTHROUGH));
        k.init(o, true);
        assertTrue(k.on());
        assertTrue(o.wanted.contains(Capability.PASSTHROUGH));
        assertEquals(1, o.depth);
    }

    @Test
    void autoStaysOffWithoutTheOfferOrPrivilegeOrWithWriteback() {
        for (Offer o : new Offer[] {new Offer(EnumSet.noneOf(Capability.class)), new Offer(EnumSet.of(Capability.PASSTHROUGH))}) {
            KernelPassthrough k = new KernelPassthrough(PassthroughFs.KernelMode.AUTO);
            k.init(o, o.offered.isEmpty()); // not offered (as root), or offered but not root
            assertFalse(k.on());
            assertFalse(o.wanted.contains(Capability.PASSTHROUGH));
        }
        Offer writeback = new Offer(EnumSet.of(Capability.PASSTHROUGH, Capability.WRITEBACK_CACHE));
        writeback.wanted.add(Capability.WRITEBACK_CACHE);
        KernelPassthrough k = new KernelPassthrough(PassthroughFs.KernelMode.AUTO);
        k.init(writeback, true);
        assertFalse(k.on(), "the kernel silently drops passthrough under the writeback cache");
    }

    @Test
    void onFailsTheMountWhenUnavailableAndOffNeverAsks() {
        KernelPassthrough on = new KernelPassthrough(PassthroughFs.KernelMode.ON);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> on.init(new Offer(EnumSet.noneOf(Capability.class)), true));
        assertTrue(e.getMessage().contains("Linux 6.9"), e.getMessage());
        KernelPassthrough off = new KernelPassthrough(PassthroughFs.KernelMode.OFF);
        Offer o = new Offer(EnumSet.of(Capability.PASSTHROUGH));
        off.init(o, true);
        assertFalse(off.on());
        assertTrue(o.wanted.isEmpty());
    }
}
