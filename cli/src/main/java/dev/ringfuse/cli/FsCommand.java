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

    @Command(name = "create", description = "Create a dataset (constant time).")
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

    @Command(name = "list", description = "Datasets with used space and compression ratio.")
    static final class ListFs implements Callable<Integer> {
        @Parameters(arity = "0..1", paramLabel = "POOL") String pool;

        @Override
        public Integer call() throws Exception {
            PoolCommand.admin().fsList(pool);
            return 0;
        }
    }

    @Command(name = "set", description = "Set properties (they apply to new writes).")
    static final class Set implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "PROP=VALUE[,...]") String assignment;
        @Parameters(index = "1", paramLabel = "POOL/NAME") String name;

        @Override
        public Integer call() throws Exception {
            PoolCommand.admin().fsSet(name, props(List.of(assignment)));
            return 0;
        }
    }

    @Command(name = "get", description = "Show properties (all, or the ones named).")
    static final class Get implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "PROP[,...]|all") String props;
        @Parameters(index = "1", paramLabel = "POOL/NAME") String name;

        @Override
        public Integer call() throws Exception {
            PoolCommand.admin().fsGet(name, List.of(props.split(",")));
            return 0;
        }
    }

    @Command(name = "destroy", description = "Destroy a dataset and free its blocks.")
    static final class Destroy implements Callable<Integer> {
        @Parameters(paramLabel = "POOL/NAME") String name;

        @Override
        public Integer call() throws Exception {
            PoolCommand.admin().fsDestroy(name);
            return 0;
        }
    }
}
