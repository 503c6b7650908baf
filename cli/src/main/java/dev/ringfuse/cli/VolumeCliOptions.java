package dev.ringfuse.cli;

import dev.ringfuse.fs.volume.VolumeFs;
import dev.ringfuse.fs.volume.VolumeOptions;
import dev.ringfuse.lowlevel.LowLevelFileSystem;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;

/** The options of {@code ringfuse mount volume <image> <mountpoint>}, mixed into the mount command. */
final class VolumeCliOptions {
    @Option(names = "--size", paramLabel = "SIZE", description = "volume: size of a new image (--create), e.g. 500M, 1G; an existing image must match. memfs: as -o size=")
    String size;

    @Option(names = "--create", description = "volume: create the image (sparse) if it does not exist")
    boolean create;

    @Option(names = "--resizable", description = "volume: allow truncate/extend of the volume (else EPERM)")
    boolean resizable;

    @Option(names = "--passthrough", paramLabel = "MODE", defaultValue = "auto",
            description = "volume, passthrough: kernel passthrough of reads and writes, auto, on or off (default: ${DEFAULT-VALUE})")
    String passthrough;

    @Option(names = "--io", paramLabel = "MODE", defaultValue = "inline",
            description = "volume: served I/O path: inline (each FUSE thread's own ring), async (a loop thread replies on completion) or sync (default: ${DEFAULT-VALUE})")
    String io;

    @Option(names = "--rings", defaultValue = "1", description = "volume: io_uring loops for --io async/sync (default: ${DEFAULT-VALUE})")
    int rings;

    LowLevelFileSystem create(String image, boolean readOnly) throws IOException {
        if (image == null) throw new IllegalArgumentException("volume needs an image file: mount volume <image> <mountpoint>");
        long bytes = size == null ? -1 : VolumeOptions.parseSize(size);
        VolumeOptions o = VolumeOptions.of(Path.of(image)).withSize(bytes).withResizable(resizable)
                .withPassthrough(VolumeOptions.Passthrough.parse(passthrough)).withIo(VolumeOptions.Io.parse(io))
                .withRings(rings).withReadOnly(readOnly);
        if (create) o = o.withCreate(bytes);
        return VolumeFs.open(o);
    }
}
