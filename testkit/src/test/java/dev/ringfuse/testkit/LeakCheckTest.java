package dev.ringfuse.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** Runs after every other test class of this JVM: no FUSE mount made by this JVM may be left. */
@Order(Integer.MAX_VALUE)
class LeakCheckTest {
    @Test
    void noFuseMountIsLeftUnderTheTestDirectories() {
        String mine = "-" + ProcessHandle.current().pid() + "-";
        List<MountedFsKit.MountInfo> left = MountedFsKit.fuseMountsUnder(MountedFsKit.BASE).stream()
                .filter(m -> m.mountpoint().getFileName().toString().contains(mine)).toList();
        assertEquals(List.of(), left);
    }
}
