package dev.ringfuse.cli;

import dev.ringfuse.pool.admin.PoolAdmin;
import dev.ringfuse.pool.admin.PoolRegistry;
import dev.ringfuse.pool.txg.Properties;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ringfuse pool ...}: storage pools in the conventions of zpool (see pool/DESIGN.md). */
@Command(name = "pool", mixinStandardHelpOptions = true,
        description = "Storage pools (zpool style). Imported pools are listed in $RINGFUSE_POOLS or ~/.config/ringfuse/pools.",
        subcommands = {PoolCommand.Create.class, PoolCommand.ListPools.class, PoolCommand.Status.class,
                PoolCommand.Export.class, PoolCommand.Import.class, PoolCommand.Destroy.class, PoolCommand.Verify.class,
                PoolCommand.Scrub.class, PoolCommand.Replace.class})
final class PoolCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    static PoolAdmin admin() {
        return new PoolAdmin(PoolRegistry.fromEnvironment(), System.out, System.err);
    }

    @Command(mixinStandardHelpOptions = true, name = "create", description = {"Create a pool on image files or block devices.",
            "Devices form a stripe; 'mirror A B [C]' makes them one mirror (several groups: a stripe of mirrors)."})
    static final class Create implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "NAME") String name;
        @Parameters(index = "1..*", arity = "1..*", paramLabel = "[mirror] IMG|DEV") List<Path> devices;
        @Option(names = "--size", description = "Create missing image files (sparse) of this size, e.g. 10G") String size;

        @Override
        public Integer call() throws Exception {
            admin().create(name, devices, size == null ? null : Properties.parseSize(size));
            return 0;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "list", description = "List imported pools.")
    static final class ListPools implements Callable<Integer> {
        @Override
        public Integer call() throws Exception {
            admin().list();
            return 0;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "status", description = "Devices, state, error counts, last verification.")
    static final class Status implements Callable<Integer> {
        @Parameters(paramLabel = "NAME") String name;

        @Override
        public Integer call() throws Exception {
            admin().status(name);
            return 0;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "export", description = "Commit, mark exported and forget the pool.")
    static final class Export implements Callable<Integer> {
        @Parameters(paramLabel = "NAME") String name;

        @Override
        public Integer call() throws Exception {
            admin().export(name);
            return 0;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "import", description = "Import a pool from its devices, or find them in a directory (-d).")
    static final class Import implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "NAME") String name;
        @Parameters(index = "1..*", arity = "0..*", paramLabel = "IMG|DEV") List<Path> devices = List.of();
        @Option(names = "-d", paramLabel = "DIR", description = "Scan DIR for the pool's devices") Path dir;

        @Override
        public Integer call() throws Exception {
            PoolAdmin a = admin();
            List<Path> devs = devices;
            if (dir != null) devs = a.scan(name, dir);
            if (devs.isEmpty()) throw new IllegalArgumentException("give the devices or -d DIR");
            a.importPool(name, devs);
            return 0;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "destroy", description = "Mark the pool destroyed and forget it.")
    static final class Destroy implements Callable<Integer> {
        @Parameters(paramLabel = "NAME") String name;

        @Override
        public Integer call() throws Exception {
            admin().destroy(name);
            return 0;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "verify", description = "Walk every block from the root, check every checksum and invariant.")
    static final class Verify implements Callable<Integer> {
        @Parameters(paramLabel = "NAME") String name;

        @Override
        public Integer call() throws Exception {
            return admin().verify(name) == 0 ? 0 : 2;
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "scrub", description = {"Read every block on every device, check each copy, rewrite bad copies from good ones.",
            "A mounted pool is scrubbed by the mounting process while it serves. Exit status 2 if a block had no good copy."})
    static final class Scrub implements Callable<Integer> {
        @Parameters(paramLabel = "NAME") String name;

        @Override
        public Integer call() throws Exception {
            return admin().scrub(name);
        }
    }

    @Command(mixinStandardHelpOptions = true, name = "replace", description = {"Resilver NEW into the place of mirror side OLD (missing or present), then swap them.",
            "OLD is the path pool status lists (or the device's index or guid); a missing NEW image file is created as large as OLD."})
    static final class Replace implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "NAME") String name;
        @Parameters(index = "1", paramLabel = "OLD") String old;
        @Parameters(index = "2", paramLabel = "NEW") Path fresh;

        @Override
        public Integer call() throws Exception {
            return admin().replace(name, old, fresh);
        }
    }
}
