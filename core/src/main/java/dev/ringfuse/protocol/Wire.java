package dev.ringfuse.protocol;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Little-endian, unaligned-tolerant field access for the FUSE structs. */
public final class Wire {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Wire() {}

    public static int i32(MemorySegment s, long off) { return s.get(I32, off); }

    public static long i64(MemorySegment s, long off) { return s.get(I64, off); }

    public static int u16(MemorySegment s, long off) { return Short.toUnsignedInt(s.get(I16, off)); }

    public static void i32(MemorySegment s, long off, int v) { s.set(I32, off, v); }

    public static void i64(MemorySegment s, long off, long v) { s.set(I64, off, v); }

    public static void u16(MemorySegment s, long off, int v) { s.set(I16, off, (short) v); }
}
