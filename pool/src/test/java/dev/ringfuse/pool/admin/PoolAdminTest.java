package dev.ringfuse.pool.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The operations behind `ringfuse pool` and `ringfuse fs`, with a temporary registry (as RINGFUSE_POOLS). */
@Timeout(120)
class PoolAdminTest {
    @TempDir
    Path tmp;

    @Test
    void lifecycle() throws Exception {
        ByteArrayOutputStream bout = new ByteArrayOutputStream(), berr = new ByteArrayOutputStream();
        PoolRegistry reg = new PoolRegistry(tmp.resolve("pools"));
        PoolAdmin a = new PoolAdmin(reg, new PrintStream(bout, true), new PrintStream(berr, true));
        Path i1 = tmp.resolve("1.img"), i2 = tmp.resolve("2.img");
        a.create("tank", List.of(i1, i2), 128L << 20);
        assertEquals(128L << 20, Files.size(i1));
        assertEquals(List.of(i1.toAbsolutePath(), i2.toAbsolutePath()), reg.devices("tank"));
        assertThrows(IOException.class, () -> a.create("tank", List.of(tmp.resolve("3.img")), 128L << 20));
        a.fsCreate("tank/home", Map.of("compression", "zstd"));
        a.fsSet("tank/home", Map.of("recordsize", "32K"));
        a.list();
        a.fsList(null);
        a.fsGet("tank/home", List.of("all"));
        assertEquals(0, a.verify("tank"));
        a.status("tank");
        String out = bout.toString();
        assertTrue(out.contains("tank/home") && out.contains("zstd") && out.lines().anyMatch(l -> l.matches("tank/home +recordsize +32k +local")), out);
        assertTrue(out.contains("ONLINE") && out.contains("last verify"), out);
        assertTrue(out.contains("USED") && out.contains("AVAIL") && out.contains("REFER") && out.contains("compressratio"), out);
        assertTrue(berr.toString().contains("100%"), "progress bar");
        a.export("tank");
        assertThrows(IOException.class, () -> reg.devices("tank"));
        IOException wrong = assertThrows(IOException.class, () -> a.importPool("other", List.of(i1, i2)));
        assertTrue(wrong.getMessage().contains("hold pool 'tank'"), wrong.getMessage());
        Files.writeString(tmp.resolve("not-a-pool.txt"), "hello");
        assertEquals(List.of(i1, i2), a.scan("tank", tmp));
        a.importPool("tank", a.scan("tank", tmp));
        a.fsDestroy("tank/home");
        a.destroy("tank");
        IOException gone = assertThrows(IOException.class, () -> a.importPool("tank", List.of(i1, i2)));
        assertTrue(gone.getMessage().contains("destroyed"), gone.getMessage());
    }

    /** `pool create NAME mirror A B`, status, scrub and replace of an unmounted pool, and the create errors. */
    @Test
    void mirrorCommands() throws Exception {
        ByteArrayOutputStream bout = new ByteArrayOutputStream(), berr = new ByteArrayOutputStream();
        PoolRegistry reg = new PoolRegistry(tmp.resolve("pools"));
        PoolAdmin a = new PoolAdmin(reg, new PrintStream(bout, true), new PrintStream(berr, true));
        Path m = Path.of("mirror"), i1 = tmp.resolve("1.img"), i2 = tmp.resolve("2.img"), i3 = tmp.resolve("3.img");
        IllegalArgumentException one = assertThrows(IllegalArgumentException.class, () -> a.create("x", List.of(m, i1), 64L << 20));
        assertTrue(one.getMessage().contains("at least 2"), one.getMessage());
        IllegalArgumentException mixed = assertThrows(IllegalArgumentException.class,
                () -> a.create("x", List.of(i3, m, i1, i2), 64L << 20));
        assertTrue(mixed.getMessage().contains("redundancy"), mixed.getMessage());
        a.create("mir", List.of(m, i1, i2), 96L << 20);
        assertTrue(bout.toString().contains("1 mirror(s)"), bout.toString());
        a.fsCreate("mir/d", Map.of());
        a.status("mir");
        String st = bout.toString();
        assertTrue(st.contains("mirror-0") && st.contains("state: ONLINE") && st.contains("never scrubbed"), st);
        assertEquals(0, a.scrub("mir"));
        assertTrue(berr.toString().contains("100%"), "progress bar");
        bout.reset();
        a.status("mir");
        assertTrue(bout.toString().contains("scan: scrub repaired 0B"), bout.toString());

        // a side away while the pool changes comes back behind: status says so, scrub catches it up first
        Path away = tmp.resolve("away.img");
        Files.move(i2, away);
        a.fsCreate("mir/e", Map.of());
        Files.move(away, i2);
        bout.reset();
        a.status("mir");
        assertTrue(bout.toString().contains("RESILVERING") && bout.toString().contains("came back"), bout.toString());
        bout.reset();
        assertEquals(0, a.scrub("mir"));
        assertTrue(bout.toString().contains("resilvered pool 'mir'") && bout.toString().contains(", 0 unrepairable"), bout.toString());
        bout.reset();
        a.status("mir");
        assertTrue(bout.toString().contains("state: ONLINE") && !bout.toString().contains("RESILVERING"), bout.toString());

        Files.delete(i2);
        bout.reset();
        a.status("mir");
        assertTrue(bout.toString().contains("state: DEGRADED") && bout.toString().contains("UNAVAIL"), bout.toString());
        IOException notMember = assertThrows(IOException.class, () -> a.replace("mir", tmp.resolve("nope.img").toString(), i3));
        assertTrue(notMember.getMessage().contains("not a device"), notMember.getMessage());
        assertEquals(0, a.replace("mir", i2.toString(), i3));
        assertEquals(List.of(i1.toAbsolutePath(), i3.toAbsolutePath()), reg.devices("mir"));
        bout.reset();
        a.status("mir");
        assertTrue(bout.toString().contains("state: ONLINE") && bout.toString().contains(i3.toAbsolutePath().toString()), bout.toString());
        assertEquals(0, a.verify("mir"));
        a.export("mir");
        a.importPool("mir", a.scan("mir", tmp));
        assertEquals(List.of(i1.toAbsolutePath(), i3.toAbsolutePath()), reg.devices("mir"));
    }
}
