package dev.ringfuse.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every public and protected element of the packages the library modules (uring, core, fs, testkit) export
 * has a doc comment. The JDK's javadoc with doclint's "missing" group finds them; only its "no comment"
 * findings count here. A missing {@code @param} or {@code @return} is allowed: many setters and accessors
 * say all there is in one sentence, and a tag repeating it would be filler. The other doclint groups
 * (references, HTML, syntax) fail the modules' own {@code mvn verify} (maven-javadoc-plugin, failOnWarnings).
 */
class ApiDocsTest {
    private static final List<String> MODULES = List.of("uring", "core", "fs", "testkit");
    private static final Pattern EXPORT = Pattern.compile("^\\s*exports\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);
    private static final Pattern NO_COMMENT = Pattern.compile("^(\\S+\\.java:\\d+): warning: no comment$", Pattern.MULTILINE);

    @TempDir
    Path out;

    @Test
    void everyExportedElementHasADocComment() throws IOException {
        Path repo = Path.of("").toAbsolutePath().getParent(); // surefire runs in testkit/
        List<String> args = new ArrayList<>(List.of("-Xdoclint:missing", "-quiet", "-notimestamp", "-d", out.toString(),
                "-classpath", System.getProperty("java.class.path")));
        int files = 0;
        for (String module : MODULES) {
            Path src = repo.resolve(module).resolve("src/main/java");
            for (String pkg : exported(src.resolve("module-info.java"))) {
                try (Stream<Path> s = Files.list(src.resolve(pkg.replace('.', '/')))) {
                    for (Path f : s.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                        args.add(f.toString());
                        files++;
                    }
                }
            }
        }
        assertTrue(files > 100, "found the exported sources under " + repo + ": " + files);
        StringWriter text = new StringWriter();
        ToolProvider javadoc = ToolProvider.findFirst("javadoc").orElseThrow();
        try (PrintWriter w = new PrintWriter(text)) {
            javadoc.run(w, w, args.toArray(String[]::new));
        }
        List<String> missing = new ArrayList<>();
        Matcher m = NO_COMMENT.matcher(text.toString());
        while (m.find()) missing.add(repo.relativize(Path.of(m.group(1))).toString());
        assertEquals(List.of(), missing, "public or protected elements without a doc comment");
        assertTrue(!text.toString().contains("error:"), text.toString());
    }

    /** The unqualified exports of a module: the packages whose public types are API. */
    private static List<String> exported(Path moduleInfo) throws IOException {
        List<String> pkgs = new ArrayList<>();
        Matcher m = EXPORT.matcher(Files.readString(moduleInfo));
        while (m.find()) pkgs.add(m.group(1));
        return pkgs;
    }
}
