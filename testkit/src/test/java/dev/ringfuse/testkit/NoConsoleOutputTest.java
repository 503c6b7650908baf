package dev.ringfuse.testkit;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.FieldInstruction;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Library code logs through System.Logger and never writes to the console: no class of uring, core, fs or
 * testkit reads System.out or System.err (checked in the compiled bytecode, so no call is missed).
 */
class NoConsoleOutputTest {
    @Test
    void libraryCodeNeverTouchesSystemOutOrErr() throws Exception {
        List<String> offenders = new ArrayList<>();
        int classes = 0;
        for (Class<?> c : List.of(dev.ringfuse.uring.IoUring.class, dev.ringfuse.Fuse.class,
                dev.ringfuse.fs.memfs.MemFs.class, FuseMount.class)) {
            Path location = Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
            // target/classes, or the module's jar when the reactor ran package
            try (FileSystem jar = Files.isDirectory(location) ? null : FileSystems.newFileSystem(location);
                 Stream<Path> s = Files.walk(jar == null ? location : jar.getPath("/"))) {
                for (Path p : s.filter(f -> f.toString().endsWith(".class")).toList()) {
                    classes++;
                    scan(p, offenders);
                }
            }
        }
        assertTrue(classes > 100, classes + " classes scanned");
        assertEquals(List.of(), offenders);
    }

    private static void scan(Path file, List<String> offenders) throws IOException {
        ClassModel cm = ClassFile.of().parse(Files.readAllBytes(file));
        for (MethodModel m : cm.methods()) {
            m.code().ifPresent(code -> code.forEach(e -> {
                if (e instanceof FieldInstruction f && f.owner().asInternalName().equals("java/lang/System")
                        && (f.name().equalsString("out") || f.name().equalsString("err"))) {
                    offenders.add(cm.thisClass().asInternalName() + "." + m.methodName().stringValue() + " reads System." + f.name());
                }
            }));
        }
    }
}
