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
}
