package dev.ringfuse.session;

import dev.ringfuse.lowlevel.InitContext;

/** What the server does around INIT: choose the transport before the reply, start it after. */
public interface InitHooks {
    /** After the filesystem's init, before the reply; throwing refuses the connection. */
    void beforeReply(InitContext init) throws Exception;

    /** Right after the INIT reply was written. */
    void afterReply(InitContext init);
}
