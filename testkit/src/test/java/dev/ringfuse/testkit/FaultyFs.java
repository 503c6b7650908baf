package dev.ringfuse.testkit;

import dev.ringfuse.lowlevel.EntryReply;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.lowlevel.RequestContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Wraps a filesystem and misbehaves on magic names: lookup of {@code boom} throws, {@code hang} is never
 * answered, {@code slow-*} is answered (by the inner filesystem) 300 ms later from another thread.
 */
final class FaultyFs extends DelegatingFs {
    final List<EntryReply> parked = new CopyOnWriteArrayList<>();
    final AtomicInteger slowSeen = new AtomicInteger();
    private final ScheduledExecutorService later = Executors.newScheduledThreadPool(2, Thread.ofPlatform().daemon().factory());

    FaultyFs(LowLevelFileSystem inner) {
        super(inner);
    }

    @Override
    public void lookup(RequestContext ctx, long parent, String name, EntryReply reply) {
        if (name.equals("boom")) throw new IllegalStateException("injected failure for " + name);
        if (name.equals("hang")) {
            parked.add(reply);
            return;
        }
        if (name.startsWith("slow-")) {
            slowSeen.incrementAndGet();
            later.schedule(() -> {
                try {
                    inner.lookup(ctx, parent, name, reply);
                } catch (RuntimeException e) {
                    // the session may be gone by now: that is what the test provokes
                }
            }, 300, TimeUnit.MILLISECONDS);
            return;
        }
        super.lookup(ctx, parent, name, reply);
    }

    @Override
    public void destroy() {
        later.shutdownNow();
        super.destroy();
    }
}
