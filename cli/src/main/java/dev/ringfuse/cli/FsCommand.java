package dev.ringfuse.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ringfuse fs ...}: datasets of a pool in the conventions of zfs. */
@Command(name = "fs", mixinStandardHelpOptions = true, description = "Datasets of a pool (zfs style): POOL/NAME.",
        subcommands = {FsCommand.Create.class, FsCommand.ListFs.class, FsCommand.Set.class, FsCommand.Get.class,
                FsCommand.Destroy.class})
final class FsCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** "compression=lz4,recordsize=128K" (repeatable) → map. */
    static Map<String, String> props(List<String> opts) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String o : opts) {
            for (String kv : o.split(",")) {
                int eq = kv.indexOf('=');
                if (eq <= 0) throw new IllegalArgumentException("expected property=value, got '" + kv + "'");
                m.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return m;
    }

    @Command(mixinStandardHelpOptions = true, name = "create", description = "Create a dataset (constant time).")
    static final class Create implements Callable<Integer> {
        @Parameters(paramLabel = "POOL/NAME") String name;
        @Option(names = "-o", paramLabel = "PROP=VALUE[,...]", description = "compression=off|lz4|zstd, checksum=crc32c|sha256, recordsize=4K..1M, atime=on|off")
        List<String> options = List.of();

        @Override
        public Integer call() throws Exception {
            PoolCommand.admin().fsCreate(name, props(options));
            return 0;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "list", description = "Datasets with USED AVAIL REFER RATIO (zfs list); -o picks columns.")
    static final class ListFs implements Callable<Integer> {
        @Parameters(arity = "0..1", paramLabel = "POOL|POOL/NAME") String pool;
        @Option(names = "-o", paramLabel = "COL[,...]", description = "name, used, avail, refer, ratio, usedsnap, usedds, "
                + "usedchild, lrefer, quota, reservation, compression, checksum, recordsize, atime") String columns;
        @Option(names = "-p", description = "Exact bytes (parsable)") boolean parsable;

        @Override
        public Integer call() throws Exception {
            List<String> cols = columns == null ? dev.ringfuse.pool.admin.SpaceAdmin.DEFAULT_COLUMNS : List.of(columns.split(","));
            PoolCommand.admin().fsList(pool, cols, parsable);
            return 0;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "set", description = "Set properties: compression etc. apply to new writes; quota=SIZE|none, reservation=SIZE|none.")
    static final class Set implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "PROP=VALUE[,...] | POOL/NAME") String first;
        @Parameters(index = "1", paramLabel = "POOL/NAME | PROP=VALUE[,...]") String second;

        @Override
        public Integer call() throws Exception {
            // zfs's order (assignment first) or the dataset first: the assignment is the one with '='
            boolean assignmentFirst = first.contains("=");
            PoolCommand.admin().fsSet(assignmentFirst ? second : first, props(List.of(assignmentFirst ? first : second)));
            return 0;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "get", description = "Show properties and space figures (all, or the ones named).")
    static final class Get implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "PROP[,...]|all | POOL/NAME") String first;
        @Parameters(index = "1", paramLabel = "POOL/NAME | PROP[,...]|all") String second;
        @Option(names = "-p", description = "Exact bytes (parsable)") boolean parsable;

        @Override
        public Integer call() throws Exception {
            // zfs's order (properties first) or the dataset first
            boolean propsFirst = dev.ringfuse.pool.admin.SpaceAdmin.isPropertyList(first);
            String props = propsFirst ? first : second;
            PoolCommand.admin().fsGet(propsFirst ? second : first, List.of(props.split(",")), parsable);
            return 0;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "destroy", description = "Destroy a dataset and free its blocks.")
    static final class Destroy implements Callable<Integer> {
        @Parameters(paramLabel = "POOL/NAME") String name;

        @Override
        public Integer call() throws Exception {
            PoolCommand.admin().fsDestroy(name);
            return 0;
        }
    }
}
