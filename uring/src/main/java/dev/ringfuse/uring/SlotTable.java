package dev.ringfuse.uring;

/**
 * In-flight requests indexed by {@code user_data}, so a completion finds its request with one array load
 * instead of a map lookup.
 *
 * <p>{@code user_data = generation << 32 | slot}. The generation changes every time a slot is reused, so a late or
 * duplicated completion for an old occupant is recognised and ignored rather than completing the wrong request.
 * Generations use 31 bits, so packed values are never negative: negative user_data is free for loop-internal
 * entries (wake-ups, cancels). Loop-thread only.
 */
final class SlotTable {
    private final Request[] requests;
    private final int[] generations;
    private final int[] free;     // stack of free slot indexes
    private int freeTop;

    public SlotTable(int capacity) {
        requests = new Request[capacity];
        generations = new int[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) free[i] = capacity - 1 - i;
        freeTop = capacity;
    }

    public boolean hasFree() {
        return freeTop > 0;
    }

    public int inFlight() {
        return requests.length - freeTop;
    }

    /** Stores {@code r} in a free slot and returns its user_data; the caller checked {@link #hasFree()}. */
    public long put(Request r) {
        int slot = free[--freeTop];
        requests[slot] = r;
        return ((long) generations[slot] << 32) | slot;
    }

    /** Removes and returns the request for {@code userData}, or null if it is stale or unknown. */
    public Request take(long userData) {
        if (userData < 0) return null;
        int slot = (int) userData;
        int gen = (int) (userData >>> 32);
        if (slot >= requests.length || generations[slot] != gen || requests[slot] == null) return null;
        Request r = requests[slot];
        requests[slot] = null;
        generations[slot] = (gen + 1) & 0x7fff_ffff;
        free[freeTop++] = slot;
        return r;
    }

    /** Removes every in-flight request, handing each to {@code sink} (used at shutdown). */
    public void drain(java.util.function.Consumer<Request> sink) {
        for (int slot = 0; slot < requests.length; slot++) {
            Request r = requests[slot];
            if (r != null) take(((long) generations[slot] << 32) | slot);
            if (r != null) sink.accept(r);
        }
    }
}
