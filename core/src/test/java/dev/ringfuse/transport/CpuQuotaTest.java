package dev.ringfuse.transport;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/** CpuQuota reads the files of both cgroup versions as the kernel writes them. */
class CpuQuotaTest {
    @TempDir
    Path dir;

    private Path proc(String text) throws Exception {
        return Files.writeString(dir.resolve("cgroup"), text);
    }

    private void put(String path, String text) throws Exception {
        Path p = dir.resolve("fs").resolve(path);
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
    }

    @Test
    void v2QuotaOnAParentCounts() throws Exception {
        put("a/b/cpu.max", "max 100000\n");
        put("a/cpu.max", "50000 100000\n");
        assertEquals("cpu.max 50000 100000", CpuQuota.of(proc("0::/a/b\n"), dir.resolve("fs")));
    }

    @Test
    void v2WithoutQuota() throws Exception {
        put("a/b/cpu.max", "max 100000\n");
        put("a/cpu.max", "max 100000\n");
        assertNull(CpuQuota.of(proc("0::/a/b\n"), dir.resolve("fs")));
    }

    @Test
    void v1QuotaInTheCombinedHierarchy() throws Exception {
        put("cpu,cpuacct/x/cpu.cfs_quota_us", "200000\n");
        String cgroup = "12:memory:/x\n3:cpu,cpuacct:/x\n0::/x\n";
        assertEquals("cpu.cfs_quota_us 200000", CpuQuota.of(proc(cgroup), dir.resolve("fs")));
    }

    @Test
    void v1WithoutQuota() throws Exception {
        put("cpu/cpu.cfs_quota_us", "-1\n");
        put("cpu/x/cpu.cfs_quota_us", "-1\n");
        assertNull(CpuQuota.of(proc("1:cpu:/x\n2:cpuacct:/\n0::/\n"), dir.resolve("fs")));
    }

    @Test
    void missingFilesAndEscapingPathsAreNoQuota() throws Exception {
        put("etc/cpu.max", "1000 100000\n"); // outside the hierarchy a crafted path would reach
        assertNull(CpuQuota.of(proc("0::/../etc\n"), dir.resolve("fs").resolve("cg")));
        assertNull(CpuQuota.of(proc("0::/nothing/here\n"), dir.resolve("fs")));
        assertNull(CpuQuota.of(dir.resolve("absent"), dir.resolve("fs")));
    }
}
