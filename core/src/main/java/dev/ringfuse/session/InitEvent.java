package dev.ringfuse.session;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** The INIT negotiation: what the kernel offered, what was granted; spans the filesystem's init and the reply. */
@Name("dev.ringfuse.Init")
@Label("FUSE INIT")
@Category({"ringfuse"})
@Description("The INIT negotiation with the kernel")
@StackTrace(false)
final class InitEvent extends jdk.jfr.Event {
    @Label("Mount point") String mountpoint;
    @Label("Kernel major") int kernelMajor;
    @Label("Kernel minor") int kernelMinor;
    @Label("Offered") @Description("Capabilities the kernel offered") String offered;
    @Label("Granted") @Description("Capabilities negotiated") String granted;
    @Label("Max write") @DataAmount int maxWrite;
    @Label("Max readahead") @DataAmount int maxReadahead;
    @Label("Error") @Description("Why INIT was refused, or empty") String error;
}
