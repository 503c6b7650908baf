package dev.ringfuse;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.*;

/** A recorded mount: the file it writes holds the mount, INIT, each request and the unmount as dev.ringfuse events. */
@Timeout(60)
class JfrEventsTest {
    @TempDir
    Path dir;

    @BeforeAll
    static void enableUring() throws Exception {
        Files.writeString(Path.of("/sys/module/fuse/parameters/enable_uring"), "1");
    }

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void recordsMountInitRequestsAndUnmount(TransportKind transport) throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        Path file = dir.resolve("rec.jfr");
        try (Recording rec = new Recording()) {
            for (String e : List.of("dev.ringfuse.Mount", "dev.ringfuse.Init", "dev.ringfuse.Request",
                    "dev.ringfuse.Unmount", "dev.ringfuse.uring.Submit")) {
                rec.enable(e).withoutThreshold();
            }
            rec.start();
            try (Mount m = Fuse.mount(mnt, new HelloFs(), MountOptions.defaults().withThreads(2).withTransport(transport))) {
                assertArrayEquals(HelloFs.CONTENT, Files.readAllBytes(mnt.resolve("hello")));
                assertThrows(NoSuchFileException.class, () -> Files.readAllBytes(mnt.resolve("missing")));
            }
            rec.stop();
            rec.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file);
        Map<String, List<RecordedEvent>> byName = events.stream()
                .filter(e -> e.getEventType().getName().startsWith("dev.ringfuse"))
                .collect(Collectors.groupingBy(e -> e.getEventType().getName()));
        String t = transport.name().toLowerCase(java.util.Locale.ROOT);

        RecordedEvent mount = only(byName, "dev.ringfuse.Mount");
        assertEquals(mnt.toString(), mount.getString("mountpoint"));
        assertEquals(t, mount.getString("transport"));
        assertEquals("ringfuse", mount.getString("fsName"));

        RecordedEvent init = only(byName, "dev.ringfuse.Init");
        assertEquals(7, init.getInt("kernelMajor"));
        assertTrue(init.getInt("kernelMinor") >= 38, "kernel minor " + init.getInt("kernelMinor"));
        assertTrue(init.getString("granted").contains("ASYNC_READ"), init.getString("granted"));
        assertEquals(transport == TransportKind.URING, init.getString("granted").contains("OVER_IO_URING"));
        assertEquals("", init.getString("error"));

        List<RecordedEvent> requests = byName.getOrDefault("dev.ringfuse.Request", List.of());
        RecordedEvent lookup = requests.stream().filter(e -> e.getString("opcode").equals("LOOKUP") && e.getInt("errno") == 0)
                .findFirst().orElseThrow(() -> new AssertionError("no LOOKUP of hello in " + requests));
        assertEquals(1L, lookup.getLong("nodeId"), "looked up in the root");
        RecordedEvent missing = requests.stream().filter(e -> e.getString("opcode").equals("LOOKUP") && e.getInt("errno") == 2)
                .findFirst().orElseThrow(() -> new AssertionError("no ENOENT LOOKUP in " + requests));
        assertEquals(16L, missing.getLong("bytesOut"), "an error reply is the header alone");
        RecordedEvent read = requests.stream().filter(e -> e.getString("opcode").equals("READ"))
                .findFirst().orElseThrow(() -> new AssertionError("no READ in " + requests));
        assertEquals(HelloFs.FILE, read.getLong("nodeId"));
        assertEquals(16L + HelloFs.CONTENT.length, read.getLong("bytesOut"));
        assertTrue(read.getLong("bytesIn") >= 40 + 40, "fuse_in_header + fuse_read_in: " + read.getLong("bytesIn"));
        for (RecordedEvent r : requests) {
            assertEquals(mnt.toString(), r.getString("mountpoint"));
            assertEquals(t, r.getString("transport"), r.toString());
            assertTrue(r.getString("queue").startsWith("ringfuse-" + t), r.getString("queue"));
            assertFalse(r.getDuration().isNegative());
        }

        RecordedEvent unmount = only(byName, "dev.ringfuse.Unmount");
        assertTrue(unmount.getBoolean("closedHere"));
        assertTrue(unmount.getLong("requests") >= requests.size(), unmount.getLong("requests") + " < " + requests.size());

        List<RecordedEvent> submits = byName.getOrDefault("dev.ringfuse.uring.Submit", List.of());
        if (transport == TransportKind.URING) {
            assertTrue(submits.stream().anyMatch(e -> e.getInt("toSubmit") > 0 && e.getInt("result") > 0),
                    "io_uring submission batches recorded: " + submits.size());
        } else {
            assertEquals(List.of(), submits);
        }
    }

    /**
     * A recording that does not ask for the per-request events (the JDK's default profile) gets the mount's
     * lifecycle but not one event per request or per io_uring_enter.
     */
    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    void perRequestEventsAreOptIn(TransportKind transport) throws Exception {
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        Path file = dir.resolve("rec.jfr");
        try (Recording rec = new Recording()) {
            rec.enable("jdk.ThreadStart");
            rec.start();
            try (Mount m = Fuse.mount(mnt, new HelloFs(), MountOptions.defaults().withTransport(transport))) {
                assertArrayEquals(HelloFs.CONTENT, Files.readAllBytes(mnt.resolve("hello")));
            }
            rec.stop();
            rec.dump(file);
        }
        try (Stream<RecordedEvent> s = RecordingFile.readAllEvents(file).stream()) {
            assertEquals(List.of("dev.ringfuse.Init", "dev.ringfuse.Mount", "dev.ringfuse.Unmount"),
                    s.map(e -> e.getEventType().getName()).filter(n -> n.startsWith("dev.ringfuse")).sorted().toList());
        }
    }

    private static RecordedEvent only(Map<String, List<RecordedEvent>> byName, String name) {
        List<RecordedEvent> l = byName.getOrDefault(name, List.of());
        assertEquals(1, l.size(), name + ": " + l);
        return l.getFirst();
    }
}
