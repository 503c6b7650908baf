package dev.ringfuse.sys;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** struct msghdr, struct iovec and struct cmsghdr of glibc on 64-bit Linux, for SCM_RIGHTS. */
public final class Msghdr {
    private Msghdr() {}

    public static final StructLayout IOVEC = MemoryLayout.structLayout(
            ADDRESS.withName("iov_base"), JAVA_LONG.withName("iov_len"));
    public static final StructLayout MSGHDR = MemoryLayout.structLayout(
            ADDRESS.withName("msg_name"), JAVA_INT.withName("msg_namelen"), MemoryLayout.paddingLayout(4),
            ADDRESS.withName("msg_iov"), JAVA_LONG.withName("msg_iovlen"),
            ADDRESS.withName("msg_control"), JAVA_LONG.withName("msg_controllen"),
            JAVA_INT.withName("msg_flags"), MemoryLayout.paddingLayout(4));
    public static final StructLayout CMSGHDR = MemoryLayout.structLayout(
            JAVA_LONG.withName("cmsg_len"), JAVA_INT.withName("cmsg_level"), JAVA_INT.withName("cmsg_type"));

    public static final long IOV_BASE = IOVEC.byteOffset(groupElement("iov_base"));
    public static final long IOV_LEN = IOVEC.byteOffset(groupElement("iov_len"));
    public static final long MSG_IOV = MSGHDR.byteOffset(groupElement("msg_iov"));
    public static final long MSG_IOVLEN = MSGHDR.byteOffset(groupElement("msg_iovlen"));
    public static final long MSG_CONTROL = MSGHDR.byteOffset(groupElement("msg_control"));
    public static final long MSG_CONTROLLEN = MSGHDR.byteOffset(groupElement("msg_controllen"));
    public static final long CMSG_LEN = CMSGHDR.byteOffset(groupElement("cmsg_len"));
    public static final long CMSG_LEVEL = CMSGHDR.byteOffset(groupElement("cmsg_level"));
    public static final long CMSG_TYPE = CMSGHDR.byteOffset(groupElement("cmsg_type"));
    /** CMSG_DATA: the payload follows the header, aligned to 8. */
    public static final long CMSG_DATA = CMSGHDR.byteSize();
    /** CMSG_SPACE(sizeof(int)). */
    public static final long CMSG_SPACE_INT = CMSGHDR.byteSize() + 8;
    public static final int SOL_SOCKET = 1, SCM_RIGHTS = 1;
}
