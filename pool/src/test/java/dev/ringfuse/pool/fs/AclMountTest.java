package dev.ringfuse.pool.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ringfuse.pool.io.BlockDevice;
import dev.ringfuse.pool.io.MemoryDevice;
import dev.ringfuse.pool.send.Receiver;
import dev.ringfuse.pool.send.Sender;
import dev.ringfuse.pool.txg.Pool;
import dev.ringfuse.pool.txg.PoolVerifier;
import dev.ringfuse.pool.txg.Snapshots;
import dev.ringfuse.testkit.MountedFsKit;
import dev.ringfuse.testkit.internal.Procs;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * POSIX ACLs set through a mount (setfacl: an access ACL, a default ACL and what a new file and directory
 * inherit from it) are xattrs of the dataset: a snapshot, send and receive and an export and import keep them
 * exactly, and getfacl on the received dataset's mount shows the same. (The semantics themselves run in the
 * POSIX scenarios of PoolFsDev/Uring/CloneScenariosTest.)
 */
@Timeout(300)
class AclMountTest {
    static String getfacl(Path mp, String... names) throws Exception {
        StringBuilder out = new StringBuilder();
        for (String n : names) {
            Procs.Result r = Procs.run("getfacl", "-n", "-p", mp.resolve(n).toString());
            assertEquals(0, r.exit(), r.err());
            out.append(r.out().replace(mp.toString(), "MNT"));
        }
        return out.toString();
    }

    @Test
    void aclsSurviveSendReceiveExportAndImport() throws Exception {
        assumeTrue(Procs.onPath("setfacl") && Procs.onPath("getfacl"), "needs setfacl/getfacl (apt-get install acl)");
        MemoryDevice dev = new MemoryDevice("m", 128L << 20);
        Pool pool = Pool.create("ap", List.<BlockDevice>of(dev));
        pool.createDataset("ap/d", Map.of());
        pool.commit();
        Path mp = MountedFsKit.newMountpoint("pool-acl");
        String[] names = {"shared", "shared/file", "shared/sub", "plain"};
        String seen = PoolFsMountTest.mounted(pool, "ap/d", mp, () -> {
            Files.createDirectory(mp.resolve("shared"));
            Files.writeString(mp.resolve("plain"), "x");
            assertEquals(0, Procs.run("setfacl", "-d", "-m", "u:1000:rwx,g::rx,o::-", mp.resolve("shared").toString()).exit());
            assertEquals(0, Procs.run("setfacl", "-m", "u:1001:r,g:4243:rw", mp.resolve("plain").toString()).exit());
            Procs.Result made = Procs.sh("umask 077; touch \"$1/shared/file\" && mkdir \"$1/shared/sub\"", mp.toString());
            assertEquals(0, made.exit(), made.err());
            assertEquals("660", Procs.run("stat", "-c", "%a", mp.resolve("shared/file").toString()).out().trim(),
                    "the default ACL, not the umask, decides the mode");
            return getfacl(mp, names);
        });
        assertTrue(seen.contains("user:1000:rwx\t#effective:rw-") && seen.contains("default:user:1000:rwx")
                && seen.contains("group:4243:rw-"), seen);

        Snapshots.create(pool, "ap/d@s");
        ByteArrayOutputStream stream = new ByteArrayOutputStream();
        Sender.send(pool, "ap/d@s", null, stream, x -> { });
        Receiver.receive(pool, "ap/r", new ByteArrayInputStream(stream.toByteArray()), false, x -> { }, x -> { });
        assertEquals(seen, PoolFsMountTest.mounted(pool, "ap/r", mp, () -> getfacl(mp, names)), "after send and receive");
        pool.close();

        Pool again = Pool.open(List.<BlockDevice>of(dev));
        assertEquals(seen, PoolFsMountTest.mounted(again, "ap/d", mp, () -> getfacl(mp, names)), "after export and import");
        PoolVerifier.Report rep = PoolVerifier.verify(again, null);
        assertTrue(rep.clean(), rep.errors().toString());
        again.close();
    }
}
