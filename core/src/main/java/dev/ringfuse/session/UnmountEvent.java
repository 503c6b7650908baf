package dev.ringfuse.session;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** The end of a mount: closed here (spans the unmount and the transports' end) or unmounted from outside. */
@Name("dev.ringfuse.Unmount")
@Label("FUSE Unmount")
@Category({"ringfuse"})
@Description("A mount ended: Mount.close, or umount from outside")
@StackTrace(false)
final class UnmountEvent extends jdk.jfr.Event {
    @Label("Mount point") String mountpoint;
    @Label("Closed here") @Description("false: unmounted from outside (umount, fusermount3 -u) or aborted") boolean closedHere;
    @Label("Requests") @Description("Requests answered during the mount") long requests;
}
