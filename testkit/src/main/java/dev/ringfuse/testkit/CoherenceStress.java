package dev.ringfuse.testkit;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import dev.ringfuse.testkit.internal.Procs;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A multi-process data-coherence stress for any mounted filesystem: every byte read back after a completed
 * write must be the byte written. Python processes (the script {@code coherence_worker.py} beside this class
 * says what each mode does) share files and check each other's writes:
 *
 * <ul>
 *   <li>lockers, LTP doio-style: fcntl-lock a random region of 1 to 400 bytes (the regions of different
 *       processes share pages but never overlap), write a pattern naming the process and the request through
 *       a plain or an O_SYNC descriptor, read it back through a new descriptor (read, O_DIRECT or mmap);</li>
 *   <li>direct writers: lock whole pages, write them with O_DIRECT, synchronously or as a libaio batch, read
 *       them back buffered;</li>
 *   <li>an aio rewriter, xfstests aio-dio-invalidate-readahead: rewrite 640 KiB with async O_DIRECT writes,
 *       alternating two patterns, read it back buffered;</li>
 *   <li>readers: read the files buffered, by mmap and with O_DIRECT in a loop, so readahead keeps refilling
 *       the page cache beside the writers.</li>
 * </ul>
 *
 * <p>Run it on a fresh directory of the filesystem ({@link #inDirectory}) or on one existing file of at
 * least 1 MiB, such as a volume ({@link #onFile}); a difference fails with the worker's report (offset,
 * expected and actual bytes). To cover a new filesystem, mount it with {@link FuseMount} (both transports,
 * several reader threads and one) and call {@link #inDirectory} from a test; the duration comes from
 * {@link #duration(Duration)} so that {@code tools/coherence-soak.sh} can stretch it.
 */
public final class CoherenceStress {
    private static final System.Logger LOG = System.getLogger(CoherenceStress.class.getName());
    /** A worker's last line when it found no difference: {@code ok MODE N ops}. */
    private static final Pattern OK = Pattern.compile("ok \\w+ (\\d+) ops");
    /** System property overriding every stress's duration, in seconds (the soak script sets it). */
    public static final String SECONDS_PROPERTY = "ringfuse.coherence.seconds";
    /**
     * System property naming the directory a failed run's report is kept in (default
     * {@code target/coherence-failures} under the working directory, which is the module's under surefire).
     */
    public static final String REPORTS_PROPERTY = "ringfuse.coherence.reports";
    /**
     * System property: the longest round of {@link #inDirectory}, in seconds (default 10). Each round runs on
     * new files, because some windows open only while a file is new: the first direct write to a file
     * before any buffered READ of it was the only one exposed in session 4 (core/DESIGN.md), and a soak of one
     * 30-minute round would have crossed that window three times.
     */
    public static final String ROUND_PROPERTY = "ringfuse.coherence.round.seconds";

    /**
     * How many processes of each kind, for how long.
     *
     * @param duration      how long the workers run
     * @param lockers       processes that write under fcntl locks and check each other's writes
     * @param directWriters processes that write with O_DIRECT and read back buffered
     * @param aioWriters    processes that rewrite with async O_DIRECT writes and read back buffered
     * @param readers       processes that read buffered, by mmap and with O_DIRECT in a loop
     */
    public record Plan(Duration duration, int lockers, int directWriters, int aioWriters, int readers) {
        /**
         * Checks the values.
         *
         * @throws IllegalArgumentException a negative count
         * @throws NullPointerException duration is null
         */
        public Plan {
            Objects.requireNonNull(duration);
            if (lockers < 0 || directWriters < 0 || aioWriters < 0 || readers < 0) throw new IllegalArgumentException("negative count");
        }

        /** Two lockers, one direct writer, one aio rewriter, two readers. */
        public static Plan of(Duration duration) {
            return new Plan(duration, 2, 1, 1, 2);
        }
    }

    private CoherenceStress() {}

    private static final Path ENABLE_URING = Path.of("/sys/module/fuse/parameters/enable_uring");

    /**
     * A mount of {@code factory} as the stress needs it: allow_other (the workers open the files as other
     * users too), {@code transport} with {@code threads} /dev/fuse readers, a 60 s INIT limit (a machine
     * busy with other stresses missed 10 s) and the time limit {@link #timeout} gives for {@code run}; an
     * io_uring mount first turns FUSE-over-io_uring on (root).
     */
    public static FuseMount mount(Supplier<? extends LowLevelFileSystem> factory, TransportKind transport, int threads,
                                  Duration run) {
        FuseMount m = FuseMount.of(factory)
                .options(MountOptions.defaults().withAllowOther(true).withTransport(transport).withThreads(threads)
                        .withInitTimeout(Duration.ofSeconds(60)))
                .timeout(timeout(run));
        return transport == TransportKind.URING ? m.beforeMount(() -> Files.writeString(ENABLE_URING, "1")) : m;
    }

    /** {@code fallback}, unless the {@value #SECONDS_PROPERTY} system property says otherwise. */
    public static Duration duration(Duration fallback) {
        String s = System.getProperty(SECONDS_PROPERTY);
        return s == null || s.isBlank() ? fallback : Duration.ofSeconds(Long.parseLong(s.trim()));
    }

    /** How long a test running {@code plan} should be allowed: its duration plus time to start and stop. */
    public static Duration timeout(Duration duration) {
        return duration.plusSeconds(90);
    }

    /**
     * Runs {@code plan} in rounds of at most 10 seconds (system property {@value #ROUND_PROPERTY}), each on three new
     * files in {@code dir} (256,000 and 512,000 bytes for the lockers and direct writers, 640 KiB for the aio
     * rewriter), deleted after the round; the rounds together last the plan's duration.
     */
    public static void inDirectory(Path dir, Plan plan) throws IOException, InterruptedException {
        long roundNanos = Duration.ofSeconds(Long.parseLong(System.getProperty(ROUND_PROPERTY, "10").trim())).toNanos();
        if (roundNanos <= 0) throw new IllegalArgumentException(ROUND_PROPERTY + " must be at least 1");
        long start = System.nanoTime(), end = start + plan.duration().toNanos();
        Tally total = new Tally();
        int round = 0;
        do {
            // the last round takes what is left, but no stub: a python worker needs a moment to start
            long left = end - System.nanoTime();
            long nanos = left - roundNanos < 2_000_000_000L ? Math.max(left, 1_000_000_000L) : roundNanos;
            Plan p = new Plan(Duration.ofNanos(nanos), plan.lockers(), plan.directWriters(), plan.aioWriters(), plan.readers());
            Path a = dir.resolve("coherence-a-" + round), b = dir.resolve("coherence-b-" + round), c = dir.resolve("coherence-c-" + round);
            Files.write(a, new byte[256_000]);
            Files.write(b, new byte[512_000]);
            Files.write(c, new byte[640 << 10]);
            run(p, List.of(a, b), c, total);
            for (Path f : List.of(a, b, c)) Files.delete(f);
            round++;
        } while (end - System.nanoTime() > 0);
        total.log(dir, System.nanoTime() - start, round);
    }

    /** Runs {@code plan} on one existing file of at least 1 MiB (lockers, aio rewriter and readers share it). */
    public static void onFile(Path file, Plan plan) throws IOException, InterruptedException {
        if (Files.size(file) < (1 << 20)) throw new IllegalArgumentException(file + " is smaller than 1 MiB");
        long start = System.nanoTime();
        Tally t = new Tally();
        run(plan, List.of(file), file, t);
        t.log(file, System.nanoTime() - start, 1);
    }

    /** Writes read back and compared, and operations per process, over the rounds of one stress. */
    private static final class Tally {
        long checked;
        final java.util.Map<String, Long> ops = new java.util.LinkedHashMap<>();

        void log(Path where, long nanos, int rounds) {
            StringBuilder per = new StringBuilder();
            ops.forEach((label, n) -> per.append(", ").append(label).append(' ').append(n));
            LOG.log(System.Logger.Level.INFO, "coherence stress on " + where + ": " + checked + " writes read back and compared in "
                    + nanos / 1_000_000_000L + " s, " + rounds + (rounds == 1 ? " round" : " rounds") + " (ops per process" + per + ")");
        }
    }

    private static void run(Plan plan, List<Path> shared, Path aioFile, Tally total) throws IOException, InterruptedException {
        Path script = worker();
        String seconds = String.valueOf(plan.duration().toMillis() / 1000.0);
        List<Procs.Child> children = new ArrayList<>();
        List<String> labels = new ArrayList<>();
        try {
            int seed = 0;
            for (int i = 0; i < plan.lockers(); i++) start(children, labels, script, "lock", seconds, ++seed, shared);
            for (int i = 0; i < plan.directWriters(); i++) start(children, labels, script, "dio", seconds, ++seed, shared);
            for (int i = 0; i < plan.aioWriters(); i++) start(children, labels, script, "aio", seconds, ++seed, List.of(aioFile));
            List<Path> all = new ArrayList<>(shared);
            if (!all.contains(aioFile)) all.add(aioFile);
            for (int i = 0; i < plan.readers(); i++) start(children, labels, script, "reader", seconds, ++seed, all);
            StringBuilder failures = new StringBuilder();
            StringBuilder done = new StringBuilder();
            long checked = 0;
            long[] ops = new long[children.size()];
            for (int i = 0; i < children.size(); i++) {
                Procs.Result r = children.get(i).await(plan.duration().plusSeconds(60));
                Matcher ok = OK.matcher(r.out());
                if (r.exit() != 0 || !ok.lookingAt()) {
                    failures.append(labels.get(i)).append(" exit ").append(r.exit()).append(":\n")
                            .append(r.out()).append(r.err()).append('\n');
                    continue;
                }
                ops[i] = Long.parseLong(ok.group(1));
                done.append(", ").append(labels.get(i)).append(' ').append(ops[i]);
                if (!labels.get(i).startsWith("reader")) checked += ops[i];
            }
            if (!failures.isEmpty()) {
                String report = "data read back differs from what was written:\n" + failures;
                throw new AssertionError(keep(report, plan, shared, aioFile, done) + report);
            }
            // the lockers and writers check what they wrote; a run in which they did nothing proved nothing
            if (checked == 0) throw new AssertionError("no write was read back in " + plan.duration() + done);
            total.checked += checked;
            for (int i = 0; i < labels.size(); i++) total.ops.merge(labels.get(i), ops[i], Long::sum);
        } finally {
            children.forEach(Procs.Child::close);
            Files.deleteIfExists(script);
        }
    }

    /**
     * Writes a failed run's report to a file of its own (surefire's reports are overwritten by the next run of
     * the test, and a rare failure must survive the reruns that try to reproduce it); returns a line naming
     * it, or saying why it could not be written.
     */
    private static String keep(String report, Plan plan, List<Path> shared, Path aioFile, CharSequence done) {
        Path dir = Path.of(System.getProperty(REPORTS_PROPERTY, "target/coherence-failures")).toAbsolutePath();
        String stamp = java.time.format.DateTimeFormatter.ofPattern("uuuuMMdd'T'HHmmss'Z'")
                .format(java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC));
        try {
            Files.createDirectories(dir);
            Path file = Files.createTempFile(dir, "coherence-" + stamp + "-", ".txt"); // unique: never overwrites
            Files.writeString(file, "coherence stress failed at " + java.time.Instant.now() + "\nplan " + plan
                    + "\nfiles " + shared + ", aio " + aioFile + "\nprocess " + ProcessHandle.current().pid()
                    + ", ops of the processes that finished clean" + (done.isEmpty() ? ": none" : done)
                    + "\n\n" + report);
            return "(report kept in " + file + ")\n";
        } catch (IOException | RuntimeException e) {
            return "(report not kept: " + e + ")\n";
        }
    }

    private static void start(List<Procs.Child> children, List<String> labels, Path script, String mode, String seconds,
                              int seed, List<Path> files) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Procs.python(), script.toString(), mode, seconds, String.valueOf(seed)));
        files.forEach(f -> cmd.add(f.toString()));
        children.add(Procs.start(cmd));
        labels.add(mode + "#" + seed);
    }

    private static Path worker() throws IOException {
        Path script = Files.createTempFile("ringfuse-coherence", ".py",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
        try (InputStream in = CoherenceStress.class.getResourceAsStream("coherence_worker.py")) {
            if (in == null) throw new IOException("coherence_worker.py is missing from the testkit jar");
            Files.write(script, in.readAllBytes());
        }
        return script;
    }
}
