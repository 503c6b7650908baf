package dev.ringfuse.testkit;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import dev.ringfuse.fs.passthrough.PassthroughFs.KernelMode;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link CoherenceStress} on passthrough (source on tmpfs), kernel passthrough on and off, both transports. */
@Timeout(value = 10, unit = TimeUnit.HOURS) // each mount's own timeout bounds a test
class CoherenceStressPassthroughTest {
    static final Duration RUN = CoherenceStress.duration(Duration.ofSeconds(10));

    static FuseMount passthrough(KernelMode kernel, TransportKind transport) {
        return CoherenceStress.mount(() -> new PassthroughFs(PassthroughFs.Options.of(PassthroughScenarios.newSource()).withKernel(kernel)),
                transport, MountOptions.defaults().threads(), RUN);
    }

    @RegisterExtension
    static final FuseMount OFF_DEV = passthrough(KernelMode.OFF, TransportKind.DEV);
    @RegisterExtension
    static final FuseMount OFF_URING = passthrough(KernelMode.OFF, TransportKind.URING);
    @RegisterExtension
    static final FuseMount ON_DEV = passthrough(KernelMode.ON, TransportKind.DEV);
    @RegisterExtension
    static final FuseMount ON_URING = passthrough(KernelMode.ON, TransportKind.URING);

    @Test
    void kernelOffDev() throws Exception {
        CoherenceStress.inDirectory(OFF_DEV.testDir(), CoherenceStress.Plan.of(RUN));
    }

    @Test
    void kernelOffUring() throws Exception {
        CoherenceStress.inDirectory(OFF_URING.testDir(), CoherenceStress.Plan.of(RUN));
    }

    @Test
    void kernelOnDev() throws Exception {
        CoherenceStress.inDirectory(ON_DEV.testDir(), CoherenceStress.Plan.of(RUN));
    }

    @Test
    void kernelOnUring() throws Exception {
        CoherenceStress.inDirectory(ON_URING.testDir(), CoherenceStress.Plan.of(RUN));
    }
}
