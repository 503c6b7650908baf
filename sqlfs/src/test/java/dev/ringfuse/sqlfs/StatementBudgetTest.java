package dev.ringfuse.sqlfs;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.testkit.FuseMount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How many SQL statements the common operations cost on SQLite, counted through the statement cache while
 * a real mount serves real system calls; and that statements are prepared once per connection, not once
 * per use (preparing cost more than running, see sqlfs/DESIGN.md). The budgets are what the code does
 * now: a change that adds statements to these paths has to say why here.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class StatementBudgetTest {
    static final Path DB = TestDbs.newSqliteFile();
    @RegisterExtension
    static final FuseMount MOUNT = FuseMount.of(() -> SqlFs.open(SqlFsOptions.of(DB.toString())))
            .options(MountOptions.defaults().withAllowOther(true).withTransport(TransportKind.DEV)
                    .withInitTimeout(Duration.ofSeconds(60))) // this shared machine can be very slow to start a mount
            .timeout(Duration.ofMinutes(2))
            .freshDirectories(false);

    @Test
    void createWriteCloseStaysWithinItsStatementBudgetAndNothingIsPreparedAgain() throws Exception {
        Path dir = Files.createDirectory(MOUNT.root().resolve("budget-" + System.nanoTime()));
        byte[] kib = new byte[1024];
        for (int i = 0; i < 20; i++) Files.write(dir.resolve("warm" + i), kib, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE); // every connection the pool opens has its statements
        int n = 300;
        long executed = Sql.EXECUTED.sum(), prepared = Sql.PREPARED.sum(), t0 = System.nanoTime();
        for (int i = 0; i < n; i++) Files.write(dir.resolve("f" + i), kib, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        double feed = 3 * ((System.nanoTime() - t0) / 200e6 + 1) / n; // the feed's polls meanwhile, per file
        double perFile = (Sql.EXECUTED.sum() - executed) / (double) n - feed;
        // negative lookup 1; create 7 (BEGIN, quiet, parent RETURNING, inode RETURNING, name, quiet, COMMIT);
        // write 8 (BEGIN, quiet, inode, chunk, inode, capability xattr, quiet, COMMIT); a getattr 1. Before the
        // statement work it was 21 (two parent reads, a name check, a read-back, a read of the empty chunk)
        // measured 21.0 at load 150 (03:58 UTC): 5 more than the model above, not yet explained; a regression guard.
        // Since the write reads every chunk it does not overwrite whole (sqlfs/DESIGN.md), one more read per file.
        assertTrue(perFile <= 22, "statements per create+write+close: " + perFile);
        assertTrue(Sql.PREPARED.sum() - prepared < 20, "prepared again: " + (Sql.PREPARED.sum() - prepared));
    }

    @Test
    void aLookupIsOneStatement() throws Exception {
        Path dir = Files.createDirectory(MOUNT.root().resolve("lookups-" + System.nanoTime()));
        Files.exists(dir.resolve("warm"));
        int n = 300;
        long executed = Sql.EXECUTED.sum();
        for (int i = 0; i < n; i++) assertFalse(Files.exists(dir.resolve("missing" + i)));
        double perLookup = (Sql.EXECUTED.sum() - executed) / (double) n;
        assertTrue(perLookup <= 1.1, "statements per lookup: " + perLookup);
    }
}
