package dev.ringfuse.stats;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where a user without a runtime directory keeps the statistics sockets, {@code /tmp/ringfuse-UID}, another user can
 * get there first: a symlink to a directory of theirs, or a directory of their own. The server then makes no socket
 * there (another user could swap it for one of their own), and a reader refuses a socket there that is not the
 * mount owner's. Run as root, for uids with no runtime directory on this machine.
 */
@Timeout(30)
class StatsSocketPlaceTest {
    @TempDir
    Path attacker;

    @Test
    void aSymlinkPlantedInTmpGetsNoSocket() throws Exception {
        int victim = 65521;
        Path place = Path.of("/tmp/ringfuse-" + victim);
        Files.deleteIfExists(place.resolve("stats"));
        Files.deleteIfExists(place);
        Files.setPosixFilePermissions(attacker, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.createSymbolicLink(place, attacker);
        try {
            IOException e = assertThrows(IOException.class, () -> StatsSocket.open(victim, 0, 1, () -> "x"));
            assertTrue(e.getMessage().contains("symlink"), e.getMessage());
            assertTrue(Files.notExists(attacker.resolve("stats")), "nothing made in the other user's directory");
        } finally {
            Files.delete(place);
        }
    }

    @Test
    void aReaderRefusesASocketOfAnotherUserInTheOwnersPlace() throws Exception {
        int owner = 65522, other = 65523;
        Path place = Path.of("/tmp/ringfuse-" + owner), dir = place.resolve("stats"), sock = dir.resolve("0-1.sock");
        Files.deleteIfExists(sock);
        Files.deleteIfExists(dir);
        Files.deleteIfExists(place);
        Files.createDirectories(dir);
        try (ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.bind(UnixDomainSocketAddress.of(sock));
            for (Path p : new Path[] {place, dir, sock}) Files.setAttribute(p, "unix:uid", other);
            Files.setPosixFilePermissions(place, PosixFilePermissions.fromString("rwx------"));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            IOException e = assertThrows(IOException.class, () -> StatsSocket.read(sock));
            assertTrue(e.getMessage().contains("belongs to uid " + other), e.getMessage());
        } finally {
            Files.deleteIfExists(sock);
            Files.deleteIfExists(dir);
            Files.deleteIfExists(place);
        }
    }
}
