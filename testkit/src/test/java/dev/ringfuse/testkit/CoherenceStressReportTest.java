package dev.ringfuse.testkit;

import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.memfs.MemFs;
import dev.ringfuse.lowlevel.CountReply;
import dev.ringfuse.lowlevel.RequestContext;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A failed {@link CoherenceStress} keeps its report in a file of its own, one per failure, and the report says
 * where the wrong bytes are and whether the server holds them: a filesystem that acknowledges the aio
 * rewriter's writes without applying them makes it read back the file's first contents (zeros).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CoherenceStressReportTest {
    /** memfs that answers writes of 64 KiB or more starting with 0xaa or 0x55 (the aio rewriter's) without applying them. */
    static final class LosesRewritesFs extends DelegatingFs {
        LosesRewritesFs() {
            super(new MemFs());
        }

        @Override
        public void write(RequestContext ctx, long nodeid, long fh, long offset, MemorySegment data, int writeFlags,
                          CountReply reply) {
            byte first = data.byteSize() == 0 ? 0 : data.get(ValueLayout.JAVA_BYTE, 0);
            if (data.byteSize() >= 64 << 10 && (first == (byte) 0xaa || first == (byte) 0x55)) {
                reply.count((int) data.byteSize());
                return;
            }
            super.write(ctx, nodeid, fh, offset, data, writeFlags, reply);
        }
    }

    private static final Duration RUN = Duration.ofSeconds(2);

    @RegisterExtension
    static final FuseMount MOUNT = CoherenceStress.mount(LosesRewritesFs::new, TransportKind.DEV, 2, RUN);

    private static final Pattern KEPT = Pattern.compile("report kept in (\\S+)\\)");

    private static Path failOnce(Path dir) {
        AssertionError e = assertThrows(AssertionError.class,
                () -> CoherenceStress.inDirectory(dir, new CoherenceStress.Plan(RUN, 0, 0, 1, 0)));
        Matcher m = KEPT.matcher(e.getMessage());
        assertTrue(m.find(), "the failure names no kept report: " + e.getMessage());
        return Path.of(m.group(1));
    }

    @Test
    void eachFailureKeepsItsOwnReport() throws Exception {
        Path reports = Files.createTempDirectory("coherence-reports");
        String before = System.getProperty(CoherenceStress.REPORTS_PROPERTY);
        System.setProperty(CoherenceStress.REPORTS_PROPERTY, reports.toString());
        try {
            Path first = failOnce(Files.createDirectory(MOUNT.testDir().resolve("one")));
            Path second = failOnce(Files.createDirectory(MOUNT.testDir().resolve("two")));
            assertNotEquals(first, second);
            try (var listing = Files.list(reports)) {
                assertEquals(List.of(first, second).stream().sorted().toList(), listing.sorted().toList());
            }
            String report = Files.readString(first);
            assertTrue(report.contains("CORRUPT aio/read"), report);
            // the whole rewrite is missing at the server: zeros from offset 0, and O_DIRECT reads the same
            assertTrue(report.contains("655360 bytes read, 655360 differ in 1 runs (file offsets): [0, 655360) zeros"), report);
            assertTrue(report.contains("read again O_DIRECT: differs"), report);
        } finally {
            if (before == null) System.clearProperty(CoherenceStress.REPORTS_PROPERTY);
            else System.setProperty(CoherenceStress.REPORTS_PROPERTY, before);
            try (var listing = Files.list(reports)) {
                for (Path p : listing.toList()) Files.delete(p);
            }
            Files.delete(reports);
        }
    }
}
