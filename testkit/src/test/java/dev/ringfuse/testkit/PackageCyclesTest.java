package dev.ringfuse.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No package of the library modules (uring, core, fs, testkit) depends on itself through other packages.
 * The class-level dependencies come from the JDK's own {@code jdeps} (it reads the compiled classes, so
 * nothing a source scan would miss); the cycles are the strongly connected components of the package
 * graph. One class is left out: {@code dev.ringfuse.Fuse}, the composition root, whose {@code mount} names
 * the low-level API and starts the session while living in the package that every other one uses for
 * {@code Errno} and {@code MountOptions} (see core/DESIGN.md).
 */
class PackageCyclesTest {
    /** Edges from these classes are not counted (the composition root). */
    private static final Set<String> ROOTS = Set.of("dev.ringfuse.Fuse");
    private static final Pattern EDGE = Pattern.compile("^\\s+(dev\\.ringfuse\\S*)\\s+->\\s+(dev\\.ringfuse\\S*)\\s.*$");

    @Test
    void libraryModulesHaveNoPackageCycle() throws Exception {
        List<String> roots = List.of(location(dev.ringfuse.uring.IoUring.class), location(dev.ringfuse.Fuse.class),
                location(dev.ringfuse.fs.memfs.MemFs.class), location(FuseMount.class));
        Map<String, Set<String>> graph = packageGraph(roots);
        assertTrue(graph.keySet().containsAll(List.of("dev.ringfuse.uring", "dev.ringfuse.session",
                "dev.ringfuse.transport.uring", "dev.ringfuse.fs.memfs", "dev.ringfuse.testkit")),
                "jdeps saw the library packages: " + graph.keySet());
        List<Set<String>> cycles = cycles(graph);
        StringBuilder why = new StringBuilder();
        for (Set<String> c : cycles) {
            why.append("\ncycle among ").append(c);
            for (String p : c) {
                Set<String> in = new TreeSet<>(graph.get(p));
                in.retainAll(c);
                why.append("\n  ").append(p).append(" -> ").append(in);
            }
        }
        assertEquals(List.of(), cycles, why.toString());
    }

    /** The finder itself: a two-package cycle and a three-package one are found, a chain is not. */
    @Test
    void findsCycles() {
        Map<String, Set<String>> g = new HashMap<>();
        g.put("a", Set.of("b"));
        g.put("b", Set.of("a", "c"));
        g.put("c", Set.of("d"));
        g.put("d", Set.of("e"));
        g.put("e", Set.of("c"));
        g.put("f", Set.of("a"));
        assertEquals(List.of(Set.of("a", "b"), Set.of("c", "d", "e")), cycles(g).stream()
                .sorted((x, y) -> x.toString().compareTo(y.toString())).toList());
    }

    private static String location(Class<?> c) throws URISyntaxException {
        Path p = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.exists(p), p.toString());
        return p.toString();
    }

    /** package -> packages it uses, from {@code jdeps -verbose:class} over the given class directories or jars. */
    private static Map<String, Set<String>> packageGraph(List<String> roots) {
        ToolProvider jdeps = ToolProvider.findFirst("jdeps").orElseThrow(() -> new AssertionError("no jdeps in this JDK"));
        // the library's classes are modules: jdeps resolves them (and JUnit, which testkit requires) on a module path
        List<String> path = new ArrayList<>(roots);
        for (String e : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            if (e.endsWith(".jar") && !path.contains(e)) path.add(e);
        }
        List<String> args = new ArrayList<>(List.of("-verbose:class", "-filter:none", "--multi-release", "25",
                "--ignore-missing-deps", "--module-path", String.join(java.io.File.pathSeparator, path)));
        args.addAll(roots);
        StringWriter out = new StringWriter(), err = new StringWriter();
        int rc = jdeps.run(new PrintWriter(out), new PrintWriter(err), args.toArray(String[]::new));
        assertEquals(0, rc, "jdeps failed: " + err + out);
        Map<String, Set<String>> g = new TreeMap<>();
        for (String line : out.toString().split("\n")) {
            Matcher m = EDGE.matcher(line);
            if (!m.matches()) continue;
            String from = m.group(1), to = m.group(2);
            if (ROOTS.contains(outer(from))) continue;
            String pf = pkg(from), pt = pkg(to);
            g.computeIfAbsent(pf, k -> new TreeSet<>());
            if (!pf.equals(pt)) g.get(pf).add(pt);
        }
        return g;
    }

    private static String outer(String cls) {
        int d = cls.indexOf('$');
        return d < 0 ? cls : cls.substring(0, d);
    }

    private static String pkg(String cls) {
        String o = outer(cls);
        return o.substring(0, o.lastIndexOf('.'));
    }

    /** The strongly connected components with more than one package (Tarjan, iterative enough for ~40 nodes). */
    static List<Set<String>> cycles(Map<String, Set<String>> g) {
        Map<String, Integer> index = new HashMap<>(), low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        List<Set<String>> out = new ArrayList<>();
        int[] counter = {0};
        for (String v : new TreeSet<>(g.keySet())) {
            if (!index.containsKey(v)) strong(v, g, index, low, stack, out, counter);
        }
        return out;
    }

    private static void strong(String v, Map<String, Set<String>> g, Map<String, Integer> index, Map<String, Integer> low,
                               Deque<String> stack, List<Set<String>> out, int[] counter) {
        index.put(v, counter[0]);
        low.put(v, counter[0]++);
        stack.push(v);
        for (String w : g.getOrDefault(v, Set.of())) {
            if (!index.containsKey(w)) {
                strong(w, g, index, low, stack, out, counter);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (stack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> comp = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                comp.add(w);
            } while (!w.equals(v));
            if (comp.size() > 1) out.add(comp);
        }
    }
}
