package dev.ringfuse;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Run in a child JVM as another user: mounts {@link HelloFs} at args[0] by the method in args[1], reads
 * the file back, unmounts, and prints OK (or the error) for the parent test.
 */
public final class UserMountMain {
    public static void main(String[] args) throws Exception {
        Path mnt = Path.of(args[0]);
        MountMethod method = MountMethod.valueOf(args[1]);
        try (Mount m = Fuse.mount(mnt, new HelloFs(), MountOptions.defaults().withMethod(method).withThreads(2))) {
            byte[] got = Files.readAllBytes(mnt.resolve("hello"));
            System.out.println(Arrays.equals(got, HelloFs.CONTENT) ? "OK " + m.describe() : "MISMATCH");
        } catch (MountException e) {
            System.out.println("MOUNT-ERROR " + e.getMessage());
        }
    }
}
