package dev.ringfuse.cli;

import dev.ringfuse.fs.memfs.MemFs;
import dev.ringfuse.lowlevel.LowLevelFileSystem;

/** The filesystems the command can mount. */
final class Filesystems {
    private Filesystems() {}

    enum Kind {
        memfs,
        /** One file, {@code volume}, backed by an image: built by {@link VolumeCliOptions} (it has options). */
        volume;

        String subtype() {
            return name();
        }

        LowLevelFileSystem create(String source) {
            return switch (this) {
                case memfs -> {
                    if (source != null) throw new IllegalArgumentException("memfs takes no source, only a mount point");
                    yield new MemFs();
                }
                case volume -> throw new IllegalStateException("volume is created with its options (VolumeCliOptions)");
            };
        }
    }
}
