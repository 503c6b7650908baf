package dev.ringfuse.cli;

import dev.ringfuse.pool.admin.PoolRegistry;
import dev.ringfuse.pool.admin.ReplicationAdmin;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.OutputStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ringfuse send} and {@code ringfuse receive}: replication streams in the conventions of zfs. */
final class ReplicationCommand {
    private ReplicationCommand() {}

    @Command(name = "send", mixinStandardHelpOptions = true,
            description = {"Write snapshot POOL/NAME@SNAP as a stream to standard output (format: pool/DESIGN.md).",
                    "With -i, only the changes since an older snapshot of the same dataset."})
    static final class Send implements Callable<Integer> {
        @Parameters(paramLabel = "POOL/NAME@SNAP") String snapshot;
        @Option(names = "-i", paramLabel = "@FROM|POOL/NAME@FROM", description = "Incremental from this snapshot") String from;

        @Override
        public Integer call() throws Exception {
            if (System.console() != null && System.console().isTerminal()) {
                throw new IllegalArgumentException("refusing to write a stream to a terminal: redirect standard output");
            }
            OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 20);
            new ReplicationAdmin(PoolRegistry.fromEnvironment(), System.err).send(snapshot, from, out);
            out.flush();
            return 0;
        }
    }

    @Command(name = "receive", aliases = "recv", mixinStandardHelpOptions = true,
            description = {"Read a stream from standard input into POOL/NAME: a full stream creates it, an incremental one",
                    "needs the stream's source as its newest snapshot. A bad stream changes nothing (except that -F's rollback stays)."})
    static final class Receive implements Callable<Integer> {
        @Parameters(paramLabel = "POOL/NAME") String target;
        @Option(names = "-F", description = "Roll the target back to its newest snapshot first if it changed since") boolean force;

        @Override
        public Integer call() throws Exception {
            new ReplicationAdmin(PoolRegistry.fromEnvironment(), System.err)
                    .receive(target, new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 20), force);
            return 0;
        }
    }
}
