package dev.ringfuse.session;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** A mount made by {@code Fuse.mount}: from the call until the mount serves requests. */
@Name("dev.ringfuse.Mount")
@Label("FUSE Mount")
@Category({"ringfuse"})
@Description("A filesystem mounted and serving: from Fuse.mount until INIT is answered and the transport runs")
@StackTrace(false)
final class MountEvent extends jdk.jfr.Event {
    @Label("Mount point") String mountpoint;
    @Label("Filesystem name") String fsName;
    @Label("Subtype") String subtype;
    @Label("Transport") String transport;
    @Label("Serving") @Description("Reader threads or io_uring queues") String serving;
    @Label("Method") @Description("mount(2) or fusermount3") String method;
}
