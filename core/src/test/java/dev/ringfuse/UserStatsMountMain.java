package dev.ringfuse;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run in a child JVM as another user: mounts {@link HelloFs} at args[0] (fusermount3), reads the file,
 * prints READY and the socket of its statistics, and keeps serving until its standard input closes.
 */
public final class UserStatsMountMain {
    public static void main(String[] args) throws Exception {
        Path mnt = Path.of(args[0]);
        try (Mount m = Fuse.mount(mnt, new HelloFs(), MountOptions.defaults().withThreads(2))) {
            Files.readAllBytes(mnt.resolve("hello"));
            System.out.println("READY " + dev.ringfuse.stats.StatsSocket.locate(mnt));
            System.out.flush();
            while (System.in.read() >= 0) {
                // serve until the parent closes our stdin
            }
        } catch (MountException e) {
            System.out.println("MOUNT-ERROR " + e.getMessage());
        }
    }
}
