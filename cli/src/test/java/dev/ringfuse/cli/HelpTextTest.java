package dev.ringfuse.cli;

import dev.ringfuse.testkit.internal.Procs;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every command's {@code --help}, run as a user runs it: picocli formats descriptions and footers with
 * {@link String#format}, so a lone {@code %} (as in "size=N[k|m|g|t|%]") made it print a warning and the raw
 * text instead of the help (`ringfuse mount --help` did, until this test).
 */
class HelpTextTest {
    @Test
    @Timeout(300)
    void everyCommandsHelpIsPrintedWithoutWarnings() throws Exception {
        List<List<String>> paths = new ArrayList<>();
        collect(new CommandLine(new Main()), new ArrayList<>(), paths);
        assertTrue(paths.size() > 10, "commands found: " + paths);
        List<String> bad = new ArrayList<>();
        for (List<String> p : paths) {
            List<String> args = new ArrayList<>(p);
            args.add("--help");
            Procs.Result r = Cli.run(args.toArray(String[]::new));
            String name = String.join(" ", p);
            if (r.exit() != 0) bad.add(name + ": exit " + r.exit() + ", " + r.err());
            else if (!r.err().isBlank()) bad.add(name + ": stderr " + r.err());
            else if (!r.out().contains("Usage: ringfuse" + (p.isEmpty() ? "" : " " + name))) bad.add(name + ": no usage line in " + r.out());
            else if (r.out().contains("%n")) bad.add(name + ": unformatted text in " + r.out());
        }
        assertEquals(List.of(), bad);
    }

    private static void collect(CommandLine cl, List<String> path, List<List<String>> out) {
        out.add(List.copyOf(path));
        for (var e : cl.getSubcommands().entrySet()) {
            // aliases map to the same command: visit each command under its own name only
            if (!e.getKey().equals(e.getValue().getCommandName())) continue;
            List<String> p = new ArrayList<>(path);
            p.add(e.getKey());
            collect(e.getValue(), p, out);
        }
    }
}
