package dev.ringfuse.mount;

import dev.ringfuse.MountException;
import java.nio.file.Path;

/** Placeholder while mounting is being written. */
public final class Mounter {
    public static boolean clearStale(Path mountpoint) throws MountException {
        throw new MountException("not yet implemented", 38);
    }
}
