package dev.ringfuse.lowlevel;

import java.util.Collection;

/**
 * Answers getxattr and listxattr. The size rules of getxattr(2) are applied for you: if the caller asked
 * for the size only, the size is sent; if the value does not fit the caller's buffer, {@code ERANGE}.
 */
public interface XattrReply extends Reply {
    /** Answers getxattr with a value. */
    void value(byte[] value);

    /** Answers listxattr with attribute names. */
    void names(Collection<String> names);
}
