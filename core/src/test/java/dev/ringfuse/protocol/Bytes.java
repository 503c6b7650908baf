package dev.ringfuse.protocol;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Builds little-endian byte strings for the codec tests, field by field, as the kernel lays them out. */
final class Bytes {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    static Bytes of() { return new Bytes(); }

    Bytes u32(long v) { return put(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) v)); }

    Bytes u64(long v) { return put(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v)); }

    Bytes u16(int v) { return put(ByteBuffer.allocate(2).order(ByteOrder.LITTLE_ENDIAN).putShort((short) v)); }

    Bytes zeros(int n) { out.writeBytes(new byte[n]); return this; }

    Bytes raw(byte... b) { out.writeBytes(b); return this; }

    Bytes name(String s) { out.writeBytes(s.getBytes(StandardCharsets.UTF_8)); out.write(0); return this; }

    Bytes str(String s) { out.writeBytes(s.getBytes(StandardCharsets.UTF_8)); return this; }

    private Bytes put(ByteBuffer b) { out.writeBytes(b.array()); return this; }

    byte[] bytes() { return out.toByteArray(); }

    int size() { return out.size(); }

    /** A complete /dev/fuse request: fuse_in_header (len computed) followed by {@code body}. */
    static byte[] request(int opcode, long unique, long nodeid, Bytes body) {
        byte[] b = body.bytes();
        return of().u32(40 + b.length).u32(opcode).u64(unique).u64(nodeid).u32(1000).u32(100).u32(4242).u16(0).u16(0)
                .raw(b).bytes();
    }

    /** The bytes in a native segment, as the transport would have them. */
    static MemorySegment native_(byte[] b) {
        MemorySegment s = Arena.ofAuto().allocate(Math.max(1, b.length) + 64L, 8);
        MemorySegment.copy(b, 0, s, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, b.length);
        return s;
    }
}
