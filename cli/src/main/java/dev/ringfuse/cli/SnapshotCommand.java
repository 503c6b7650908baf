package dev.ringfuse.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ringfuse snapshot|rollback|clone}: snapshots of pool datasets in the conventions of zfs. With the
 * dataset mounted, the command is carried out by the mounting process (its control socket).
 */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
        description = {"Take a snapshot POOL/NAME@SNAP (constant time; read-only at MNT/.snapshots/SNAP/).",
                "Subcommands list and destroy them."},
        subcommands = {SnapshotCommand.ListSnapshots.class, SnapshotCommand.Destroy.class})
final class SnapshotCommand implements Callable<Integer> {
    @Parameters(arity = "0..1", paramLabel = "POOL/NAME@SNAP") String name;
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (name == null) {
            spec.commandLine().usage(System.out);
            return 0;
        }
        return PoolCommand.admin().snapshotCommand(List.of("snapshot", name));
    }

    @Command(mixinStandardHelpOptions = true, name = "list", description = "Snapshots with USED (freed by destroying it), REFER, txg and creation time.")
    static final class ListSnapshots implements Callable<Integer> {
        @Parameters(arity = "0..1", paramLabel = "POOL|POOL/NAME") String name;

        @Override
        public Integer call() throws Exception {
            return PoolCommand.admin().snapshotCommand(name == null ? List.of("list") : List.of("list", name));
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "destroy", description = "Destroy a snapshot, freeing the blocks only it referenced (refused while clones depend on it).")
    static final class Destroy implements Callable<Integer> {
        @Parameters(paramLabel = "POOL/NAME@SNAP") String name;

        @Override
        public Integer call() throws Exception {
            return PoolCommand.admin().snapshotCommand(List.of("destroy", name));
        }
    }

    @Command(name = "rollback", mixinStandardHelpOptions = true,
            description = "Roll a dataset back to its most recent snapshot (works while mounted: the kernel's caches are invalidated).")
    static final class Rollback implements Callable<Integer> {
        @Parameters(paramLabel = "POOL/NAME@SNAP") String name;

        @Override
        public Integer call() throws Exception {
            return PoolCommand.admin().snapshotCommand(List.of("rollback", name));
        }
    }

    @Command(name = "clone", mixinStandardHelpOptions = true,
            description = "Create a writable dataset that shares every block with a snapshot until changed.")
    static final class Clone implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "POOL/NAME@SNAP") String snapshot;
        @Parameters(index = "1", paramLabel = "POOL/TARGET") String target;
        @Option(names = "-o", paramLabel = "PROP=VALUE[,...]", description = "Properties of the clone") List<String> options = List.of();

        @Override
        public Integer call() throws Exception {
            List<String> args = new ArrayList<>(List.of("clone", snapshot, target));
            for (var e : FsCommand.props(options).entrySet()) args.add(e.getKey() + "=" + e.getValue());
            return PoolCommand.admin().snapshotCommand(args);
        }
    }
}
