package dev.ringfuse.testkit;

import static dev.ringfuse.testkit.internal.Check.assertErrno;
import static dev.ringfuse.testkit.internal.Check.s;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ringfuse.Errno;
import dev.ringfuse.testkit.internal.Libc;
import dev.ringfuse.testkit.internal.Procs;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Names: the 255-byte limit, multi-byte UTF-8, and bytes that need no escaping. Paths go through libc as UTF-8. */
public interface PosixNameScenarios extends ScenarioContext {

    private String under(String name) { return s(dir()) + "/" + name; }

    private void createWith(String name, String content) throws Exception {
        int fd = Libc.open(under(name), Libc.O_CREAT | Libc.O_EXCL | Libc.O_WRONLY, 0644);
        try {
            Libc.write(fd, content.getBytes(StandardCharsets.UTF_8));
        } finally {
            Libc.close(fd);
        }
    }

    private String read(String name) throws Exception {
        int fd = Libc.open(under(name), Libc.O_RDONLY, 0);
        try {
            return new String(Libc.pread(fd, 4096, 0), StandardCharsets.UTF_8);
        } finally {
            Libc.close(fd);
        }
    }

    /** Names of 255 bytes work; 256 bytes fail with ENAMETOOLONG. */
    @Test
    default void namesOf255BytesWorkAnd256AreTooLong() throws Exception {
        String max = "n".repeat(255);
        createWith(max, "max");
        assertEquals("max", read(max));
        assertEquals(List.of(max), Libc.listDir(s(dir()), 4096));
        String tooLong = "n".repeat(256);
        assertErrno(Errno.ENAMETOOLONG, () -> Libc.open(under(tooLong), Libc.O_CREAT | Libc.O_WRONLY, 0644));
        assertErrno(Errno.ENAMETOOLONG, () -> Libc.mkdir(under(tooLong), 0755));
        assertErrno(Errno.ENAMETOOLONG, () -> Libc.stat(under(tooLong)));
        assertErrno(Errno.ENAMETOOLONG, () -> Libc.renameat2(under(max), under(tooLong), 0));
        Libc.mkdir(under("d" + "n".repeat(254)), 0755);
        assertEquals(2, Libc.listDir(s(dir()), 4096).size());
    }

    /** The name limit counts bytes, not characters: 255 bytes of two-byte characters work, one more fails. */
    @Test
    default void multiByteNamesCountBytesNotCharacters() throws Exception {
        String e255 = "é".repeat(127) + "a"; // 127 * 2 + 1 = 255 bytes
        assertEquals(255, e255.getBytes(StandardCharsets.UTF_8).length);
        createWith(e255, "accents");
        assertEquals("accents", read(e255));
        String e256 = "é".repeat(128); // 256 bytes, 128 characters
        assertErrno(Errno.ENAMETOOLONG, () -> Libc.open(under(e256), Libc.O_CREAT | Libc.O_WRONLY, 0644));
        String cjk = "漢".repeat(85); // 3 bytes each: 255 bytes
        createWith(cjk, "cjk");
        assertErrno(Errno.ENAMETOOLONG, () -> Libc.mkdir(under(cjk + "x"), 0755));
        assertEquals(Set.of(e255, cjk), new HashSet<>(Libc.listDir(s(dir()), 4096)));
    }

    /** Names in many scripts, with emoji, spaces and punctuation, come back unchanged from readdir. */
    @Test
    default void unicodeAndOddBytesRoundTrip() throws Exception {
        List<String> names = List.of("😀 emoji", "ひらがな.txt", "Ελληνικά", "日本語ファイル", "mixed ünï cødé",
                "with\nnewline", "tab\there", "  leading spaces", "trailing dot.", "-dash", "#hash", "back\\slash",
                "quote'\"", "a".repeat(200) + "ü", "ǅ", "\u00e9", "e\u0301");
        for (String n : names) createWith(n, "content of " + n);
        List<String> listed = Libc.listDir(s(dir()), 4096);
        assertEquals(names.size(), listed.size());
        assertEquals(new HashSet<>(names), new HashSet<>(listed), "precomposed and decomposed é are distinct names");
        for (String n : names) {
            assertEquals("content of " + n, read(n));
            assertArrayEquals(n.getBytes(StandardCharsets.UTF_8), Libc.listDir(s(dir()), 4096).stream()
                    .filter(n::equals).findFirst().orElseThrow().getBytes(StandardCharsets.UTF_8));
        }
        for (String n : names) Libc.unlink(under(n));
        assertEquals(List.of(), Libc.listDir(s(dir()), 4096));
    }

    /** Names that are not valid UTF-8 come back byte for byte and stay distinct. */
    @Test
    default void namesThatAreNotUtf8RoundTripByteForByte() throws Exception {
        // Linux names are bytes: invalid UTF-8 must come back exactly as it went in, and two different
        // invalid names must stay two names
        String script = """
                import os, sys
                d = os.fsencode(sys.argv[1])
                names = [b'bad\\xff\\xfe', b'bad\\xfe\\xff', b'latin1-caf\\xe9', b'\\xc3', b'ok-\\xc3\\xa9']
                for n in names:
                    with open(os.path.join(d, n), 'wb') as f:
                        f.write(n)
                listed = sorted(os.listdir(d))
                assert listed == sorted(names), listed
                for n in names:
                    with open(os.path.join(d, n), 'rb') as f:
                        assert f.read() == n, n
                    os.rename(os.path.join(d, n), os.path.join(d, n + b'.moved'))
                assert sorted(os.listdir(d)) == sorted(n + b'.moved' for n in names), os.listdir(d)
                print('OK')
                """;
        Procs.Result r = Procs.python(script, s(dir()));
        assertEquals("OK", r.out().trim(), r.err());
    }
}
