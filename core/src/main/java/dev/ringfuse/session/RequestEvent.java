package dev.ringfuse.session;

import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.EventType;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * One FUSE request a filesystem answered: begins when the session receives it from the transport (just
 * after the read and the decode), ends when the reply has been handed back to the transport. Created only
 * while a recording has the event enabled ({@link #TYPE}), so a server that is not recorded allocates
 * nothing for it. Off by default even in a running recording (a busy mount answers 100,000 requests a
 * second): enable {@code dev.ringfuse.Request} explicitly, as {@code ringfuse mount --jfr} does.
 */
@Name("dev.ringfuse.Request")
@Label("FUSE Request")
@Category({"ringfuse"})
@Description("One FUSE request, from read to reply")
@StackTrace(false)
@Enabled(false) // one per request: off in recordings that do not ask for it (the JDK's default profile)
final class RequestEvent extends jdk.jfr.Event {
    static final EventType TYPE = EventType.getEventType(RequestEvent.class);

    @Label("Mount point") String mountpoint;
    @Label("Opcode") String opcode;
    @Label("Node id") long nodeId;
    @Label("Unique") long unique;
    @Label("Bytes in") @DataAmount long bytesIn;
    @Label("Bytes out") @DataAmount long bytesOut;
    @Label("Errno") @Description("0, or the errno of the error reply") int errno;
    @Label("Transport") String transport;
    @Label("Queue") @Description("The transport thread that read the request") String queue;
}
