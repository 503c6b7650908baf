package dev.ringfuse.uring;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/** Joins a future and unwraps its failure into the checked exception the blocking APIs declare. */
final class Futures {
    private Futures() {}

    static <T> T join(CompletableFuture<T> f) throws UringException {
        try {
            return f.join();
        } catch (CompletionException | CancellationException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof UringException u) throw u;
            if (cause instanceof RuntimeException r) throw r;
            if (cause instanceof Error err) throw err;
            throw new IllegalStateException(cause);
        }
    }
}
