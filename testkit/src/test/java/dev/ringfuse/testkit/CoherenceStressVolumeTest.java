package dev.ringfuse.testkit;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.volume.VolumeFs;
import dev.ringfuse.fs.volume.VolumeOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link CoherenceStress} on volume's single file (image on tmpfs), kernel passthrough auto and off, both transports. */
@Timeout(value = 10, unit = TimeUnit.HOURS) // each mount's own timeout bounds a test
class CoherenceStressVolumeTest {
    static final Duration RUN = CoherenceStress.duration(Duration.ofSeconds(10));

    static FuseMount volume(VolumeOptions.Passthrough passthrough, TransportKind transport) {
        return CoherenceStress.mount(() -> {
                    try {
                        Path dir = PassthroughScenarios.newSource();
                        return VolumeFs.open(VolumeOptions.of(dir.resolve("disk.img")).withCreate(4L << 20).withPassthrough(passthrough));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }, transport, MountOptions.defaults().threads(), RUN)
                .freshDirectories(false);
    }

    @RegisterExtension
    static final FuseMount OFF_DEV = volume(VolumeOptions.Passthrough.OFF, TransportKind.DEV);
    @RegisterExtension
    static final FuseMount OFF_URING = volume(VolumeOptions.Passthrough.OFF, TransportKind.URING);
    @RegisterExtension
    static final FuseMount AUTO_DEV = volume(VolumeOptions.Passthrough.AUTO, TransportKind.DEV);
    @RegisterExtension
    static final FuseMount AUTO_URING = volume(VolumeOptions.Passthrough.AUTO, TransportKind.URING);

    private static void stress(FuseMount m) throws Exception {
        CoherenceStress.onFile(m.root().resolve("volume"), CoherenceStress.Plan.of(RUN));
    }

    @Test
    void servedDev() throws Exception {
        stress(OFF_DEV);
    }

    @Test
    void servedUring() throws Exception {
        stress(OFF_URING);
    }

    @Test
    void kernelPassthroughDev() throws Exception {
        stress(AUTO_DEV);
    }

    @Test
    void kernelPassthroughUring() throws Exception {
        stress(AUTO_URING);
    }
}
