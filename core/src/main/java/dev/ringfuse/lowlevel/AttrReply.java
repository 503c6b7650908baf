package dev.ringfuse.lowlevel;

/** Answers with attributes (getattr, setattr). */
public interface AttrReply extends Reply {
    /** Answers with {@code attr}, cacheable for {@code timeoutNanos}. */
    void attr(Attr attr, long timeoutNanos);
}
