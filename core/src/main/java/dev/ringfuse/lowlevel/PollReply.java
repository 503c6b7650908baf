package dev.ringfuse.lowlevel;

/** Answers poll. */
public interface PollReply extends Reply {
    /** Answers with the ready events (POLLIN, ...). */
    void revents(int revents);
}
