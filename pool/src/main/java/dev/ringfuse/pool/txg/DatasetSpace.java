package dev.ringfuse.pool.txg;

import dev.ringfuse.pool.format.DatasetHead;
import dev.ringfuse.pool.io.NoSpaceException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Space per dataset as zfs shows it — used, available, referenced, the breakdown, compressratio — and the
 * enforcement of {@code quota} and {@code reservation} (DESIGN.md, "Space accounting"). The counters of each
 * filesystem live in its head (committed) and in its open {@link Dataset} (as of now); this class adds up a
 * dataset's descendants and applies the limits. Callers hold the pool lock.
 *
 * <p>used(D) = usedbydataset + usedbysnapshots + usedbychildren, where usedbychildren sums max(used(C),
 * reservation(C)) over D's children (a child's reservation is charged to its parent, as in ZFS).
 * available(D) = min(pool free − reserve − unused reservations of datasets that are neither D nor its
 * ancestors, and quota(A) − used(A) for D and each ancestor A with a quota).
 */
public final class DatasetSpace {
    /** One dataset's figures, in bytes (quota and reservation 0 for none). */
    public record Usage(long used, long available, long referenced, long logicalReferenced, long compressed,
                        long usedByDataset, long usedBySnapshots, long usedByChildren, long quota, long reservation) {
        /** Logical bytes over stored bytes of what the dataset references (1.0 when it references nothing). */
        public double compressRatio() {
            return compressed == 0 ? 1.0 : (double) logicalReferenced / compressed;
        }
    }

    private static final class Node {
        final long id;
        final Node parent;
        final List<Node> children = new ArrayList<>();
        long quota, reservation;

        Node(long id, Node parent) {
            this.id = id;
            this.parent = parent;
        }
    }

    private enum Verdict { OK, QUOTA, SPACE }

    private final Pool pool;
    private Map<Long, Node> nodes;
    private long builtAt = -1;
    /** True when some dataset has a quota or a reservation (else only the pool's free space matters). */
    private boolean limited;

    DatasetSpace(Pool pool) {
        this.pool = pool;
    }

    /** Re-reads the dataset hierarchy and the limits when names or properties changed. */
    private void refresh() throws IOException {
        DatasetDir dir = pool.directory();
        if (nodes != null && builtAt == dir.structureVersion()) return;
        Map<Long, Node> m = new HashMap<>();
        boolean lim = false;
        List<Node> todo = new ArrayList<>(List.of(new Node(Pool.ROOT_DATASET, null)));
        while (!todo.isEmpty()) {
            Node n = todo.removeLast();
            m.put(n.id, n);
            Map<String, String> props = dir.properties(n.id);
            n.quota = Properties.bytesOrNone(props.get("quota"));
            n.reservation = Properties.bytesOrNone(props.get("reservation"));
            lim |= n.quota > 0 || n.reservation > 0;
            for (long c : dir.children(n.id).values()) {
                Node child = new Node(c, n);
                n.children.add(child);
                todo.add(child);
            }
        }
        nodes = m;
        limited = lim;
        builtAt = dir.structureVersion();
    }

    /** Counters of datasets that are not open, as their heads hold them (valid while no head changes). */
    private final Map<Long, DatasetHead.Space> closed = new HashMap<>();
    private long closedAt = -1;

    private DatasetHead.Space spaceOf(long id) throws IOException {
        Dataset d = pool.openDataset(id);
        if (d != null) return d.space;
        DatasetDir dir = pool.directory();
        if (closedAt != dir.headVersion()) {
            closed.clear();
            closedAt = dir.headVersion();
        }
        DatasetHead.Space s = closed.get(id);
        if (s == null) {
            s = dir.head(id).space();
            closed.put(id, s);
        }
        return s;
    }

    private long pending(long id) {
        Dataset d = pool.openDataset(id);
        return d == null ? 0 : d.pendingBytes();
    }

    private long used(Node n, boolean withPending, Map<Long, Long> memo) throws IOException {
        Long known = memo.get(n.id);
        if (known != null) return known;
        DatasetHead.Space s = spaceOf(n.id);
        long u = s.own() + s.snapshots() + (withPending ? pending(n.id) : 0) + children(n, withPending, memo);
        memo.put(n.id, u);
        return u;
    }

    private long children(Node n, boolean withPending, Map<Long, Long> memo) throws IOException {
        long u = 0;
        for (Node c : n.children) u += Math.max(used(c, withPending, memo), c.reservation);
        return u;
    }

    /** Free bytes ordinary writes may use (free − reserve), less dirty data still in memory when asked; may be negative. */
    private long poolFree(boolean withPending) {
        var a = pool.io().allocator();
        return a.freeBytes() - a.reserve() - (withPending ? pool.pendingBytes() : 0);
    }

    /** Unused reservations of every dataset that is neither {@code x} nor one of its ancestors. */
    private long othersUnused(Node x, boolean withPending, Map<Long, Long> memo) throws IOException {
        Set<Long> mine = new HashSet<>();
        for (Node a = x; a != null; a = a.parent) mine.add(a.id);
        long sum = 0;
        for (Node d : nodes.values()) {
            if (d.reservation > 0 && !mine.contains(d.id)) sum += Math.max(0, d.reservation - used(d, withPending, memo));
        }
        return sum;
    }

    private long available(Node x, boolean withPending, Map<Long, Long> memo) throws IOException {
        long avail = poolFree(withPending) - othersUnused(x, withPending, memo);
        for (Node a = x; a != null; a = a.parent) if (a.quota > 0) avail = Math.min(avail, a.quota - used(a, withPending, memo));
        return Math.max(0, avail);
    }

    private Node node(long id) throws IOException {
        refresh();
        Node n = nodes.get(id);
        if (n == null) throw new IOException("dataset " + id + " is not a filesystem of pool '" + pool.name() + "'");
        return n;
    }

    /** The figures of filesystem {@code id}; uncommitted file data is not counted (commit first for exact ones). */
    public Usage usage(long id) throws IOException {
        Node n = node(id);
        Map<Long, Long> memo = new HashMap<>();
        DatasetHead.Space s = spaceOf(id);
        long kids = children(n, false, memo);
        return new Usage(s.own() + s.snapshots() + kids, available(n, false, memo), s.referenced(), s.logical(), s.compressed(),
                s.own(), s.snapshots(), kids, n.quota, n.reservation);
    }

    /**
     * What statfs reports for a mounted dataset, in bytes: {used, available}, dirty data counted as used, so
     * that df's size (their sum) stays put while files are written and is the quota when one binds.
     */
    public long[] statfs(Dataset ds) throws IOException {
        Node n = node(ds.id);
        Map<Long, Long> memo = new HashMap<>();
        return new long[] {used(n, true, memo), available(n, true, memo)};
    }

    private Verdict verdict(Dataset ds, long bytes) throws IOException {
        refresh();
        Node x = nodes.get(ds.id);
        if (!limited || x == null) return poolFree(true) < bytes ? Verdict.SPACE : Verdict.OK;
        Map<Long, Long> memo = new HashMap<>();
        for (Node a = x; a != null; a = a.parent) {
            if (a.quota > 0 && a.quota - used(a, true, memo) < bytes) return Verdict.QUOTA;
        }
        return poolFree(true) - othersUnused(x, true, memo) < bytes ? Verdict.SPACE : Verdict.OK;
    }

    /**
     * Fails when {@code bytes} more for {@code ds} would pass a quota (EDQUOT) or the space it may take from
     * the pool (ENOSPC). Dirty data counts at its in-memory size, which overstates what compression and
     * short files store: before failing, the txg is committed (when anything is dirty) and the check repeated
     * on exact figures, as ZFS waits for a txg before EDQUOT. Short of pool space, up to two commits also
     * release deferred frees when they could make the difference (a deletion's space is reusable once the
     * txg after it has committed: "Deferred frees").
     */
    void check(Dataset ds, long bytes) throws IOException {
        Verdict v = verdict(ds, bytes);
        if (v == Verdict.QUOTA && pool.pendingBytes() > 0) {
            pool.commit();
            v = verdict(ds, bytes);
        }
        for (int i = 0; i < 2 && v == Verdict.SPACE && pool.pendingBytes() + pool.io().allocator().deferredBytes() >= bytes; i++) {
            pool.dirty(); // an empty commit still moves the deferred frees on
            pool.commit();
            v = verdict(ds, bytes);
        }
        if (v == Verdict.QUOTA) throw new QuotaException("dataset '" + ds.name + "': quota exceeded");
        if (v == Verdict.SPACE) throw new NoSpaceException("pool '" + pool.name() + "': no space for dataset '" + ds.name + "'");
    }

    /** Refuses a quota below what the dataset uses, a reservation above its quota or above the free space. */
    void checkLimit(long id, String prop, long value) throws IOException {
        if (value == 0) return;
        Node n = node(id);
        Map<Long, Long> memo = new HashMap<>(); // figures with dirty data, for the room left
        // with the dirty data of open datasets: what the next commit makes used. Without it a quota set between
        // writes and their commit was accepted and then passed by that commit (QuotaCrashMountTest: 0.9 MB over)
        long used = used(n, true, memo);
        if (prop.equals("quota")) {
            if (value < used) throw new IllegalArgumentException("quota " + value + " is less than the space used (" + used + " bytes)");
            if (value < n.reservation) throw new IllegalArgumentException("quota " + value + " is less than the reservation (" + n.reservation + ")");
        } else if (prop.equals("reservation")) {
            if (n.quota > 0 && value > n.quota) throw new IllegalArgumentException("reservation " + value + " is greater than the quota (" + n.quota + ")");
            long extra = Math.max(0, value - used) - Math.max(0, n.reservation - used);
            long room = poolFree(true) - othersUnused(n, true, memo);
            for (Node a = n.parent; a != null; a = a.parent) if (a.quota > 0) room = Math.min(room, a.quota - used(a, true, memo));
            if (extra > 0 && extra > room) {
                throw new NoSpaceException("cannot reserve " + value + " bytes: only " + Math.max(0, room) + " more are available");
            }
        }
    }
}
