package dev.ringfuse.uring;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One io_uring_enter: a batch of submissions and/or a wait for completions. Created only while a recording
 * has it enabled ({@link #TYPE}): an unrecorded ring pays one boolean read per enter.
 */
@Name("dev.ringfuse.uring.Submit")
@Label("io_uring Submit")
@Category({"ringfuse", "io_uring"})
@Description("One io_uring_enter call: SQEs submitted, completions waited for")
@StackTrace(false)
@Enabled(false) // one per request: off in recordings that do not ask for it (the JDK's default profile)
final class SubmitEvent extends jdk.jfr.Event {
    static final EventType TYPE = EventType.getEventType(SubmitEvent.class);

    @Label("Ring fd") int ringFd;
    @Label("Submitted") @Description("SQEs handed to the kernel") int toSubmit;
    @Label("Wait for") @Description("Completions waited for (min_complete)") int waitFor;
    @Label("Flags") @Description("IORING_ENTER_* flags") int flags;
    @Label("Result") @Description("SQEs consumed, or -errno") int result;
}
