package dev.ringfuse.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of the ringfuse command. */
@Command(name = "ringfuse", mixinStandardHelpOptions = true, version = "ringfuse 0.1.0",
        description = "Pure-Java FUSE: mount filesystems, run the demo, act as mount(8)'s helper for -t fuse.ringfuse.",
        subcommands = {MountCommand.class, DemoCommand.class, UnmountCommand.class, MountHelperCommand.class,
                InstallHelperCommand.class, StatsCommand.class,
                PoolCommand.class, FsCommand.class, SnapshotCommand.class, SnapshotCommand.Rollback.class,
                SnapshotCommand.Clone.class, ReplicationCommand.Send.class, ReplicationCommand.Receive.class})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        WholeProcessFlusher.reexecIfWanted(args);
        Logging.configure(false);
        int code = new CommandLine(new Main())
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    cmd.getErr().println("ringfuse: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
                    return 1;
                })
                .execute(args);
        System.exit(code);
    }
}
