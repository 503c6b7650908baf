package dev.ringfuse.pool.txg;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * One transaction group's commit, phase by phase: where an fsync's time goes (each fsync that finds changes
 * commits). On by default: at most one per fsync, and a recording that does not want it pays one check.
 */
@Name("dev.ringfuse.pool.Commit")
@Label("Pool Commit")
@Category({"ringfuse", "pool"})
@Description("A transaction group committed: waiting for the previous commit, building the blocks under the pool lock, writing them, the first flush, the uberblocks and their flush")
@StackTrace(false)
final class CommitEvent extends jdk.jfr.Event {
    @Label("Pool") String pool;
    @Label("Txg") long txg;
    @Label("Wait") @Description("For the pool lock and the previous commit") @Timespan long waitNanos;
    @Label("Build") @Description("Trees, heads, directory, space log and MOS built under the pool lock") @Timespan long buildNanos;
    @Label("Write") @Description("The txg's blocks written to the devices") @Timespan long writeNanos;
    @Label("Flush") @Description("The devices flushed before the uberblocks") @Timespan long flushNanos;
    @Label("Uberblock") @Description("The uberblocks written and flushed") @Timespan long uberblockNanos;
    @Label("Bytes written") @DataAmount long bytes;
    @Label("Space log condensed") boolean condensed;
}
