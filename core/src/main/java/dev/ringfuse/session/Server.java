package dev.ringfuse.session;

import dev.ringfuse.Mount;
import dev.ringfuse.MountException;
import dev.ringfuse.MountOptions;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import java.nio.file.Path;

/** Placeholder while the session is being written. */
public final class Server {
    public static Mount start(Path mountpoint, LowLevelFileSystem fs, MountOptions options) throws MountException {
        throw new MountException("session not yet implemented", 38);
    }
}
