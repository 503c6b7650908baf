package dev.ringfuse.pool.send;

import dev.ringfuse.pool.tree.Key;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.zip.CRC32C;

/**
 * The replication stream (DESIGN.md, "Send streams"): records of (type u8, payload length u32, payload,
 * CRC32C u32 of the three), the first a HEADER, the last an END holding the SHA-256 of every byte before
 * it and the record count. A reader never returns a record whose checksum failed, and a stream is only
 * complete once END verified: receivers apply nothing durable before that.
 */
final class SendStream {
    static final int HEADER = 0, SET = 1, DATA = 2, DELETE = 3, END = 4;
    static final int VERSION = 1;
    static final int FLAG_INCREMENTAL = 1;
    static final byte[] MAGIC = "RFSEND\r\n".getBytes(StandardCharsets.US_ASCII);
    /** Largest payload accepted (a 1 MiB block and its key, with room). */
    static final int MAX_PAYLOAD = (1 << 20) + 4096;

    /** The stream's header. */
    record Header(int flags, long fromGuid, long fromTxg, long toGuid, long toTxg, long estimate, String snapshot) {
        boolean incremental() { return (flags & FLAG_INCREMENTAL) != 0; }

        byte[] encode() {
            byte[] n = snapshot.getBytes(StandardCharsets.UTF_8);
            ByteBuffer b = ByteBuffer.allocate(8 + 4 + 4 + 40 + 2 + n.length).order(ByteOrder.LITTLE_ENDIAN);
            b.put(MAGIC).putInt(VERSION).putInt(flags).putLong(fromGuid).putLong(fromTxg).putLong(toGuid).putLong(toTxg)
                    .putLong(estimate).putShort((short) n.length).put(n);
            return b.array();
        }

        static Header decode(byte[] p) throws StreamException {
            ByteBuffer b = ByteBuffer.wrap(p).order(ByteOrder.LITTLE_ENDIAN);
            try {
                byte[] magic = new byte[8];
                b.get(magic);
                if (!java.util.Arrays.equals(magic, MAGIC)) throw new StreamException("not a ringfuse send stream (bad magic)");
                int v = b.getInt();
                if (v != VERSION) throw new StreamException("send stream version " + v + " is not supported (this ringfuse reads " + VERSION + ")");
                int flags = b.getInt();
                long fg = b.getLong(), ft = b.getLong(), tg = b.getLong(), tt = b.getLong(), est = b.getLong();
                byte[] n = new byte[b.getShort() & 0xFFFF];
                b.get(n);
                return new Header(flags, fg, ft, tg, tt, est, new String(n, StandardCharsets.UTF_8));
            } catch (java.nio.BufferUnderflowException e) {
                throw new StreamException("send stream header truncated");
            }
        }
    }

    /** One record read back; {@code key} is null for HEADER and END. */
    record Record(int type, Key key, byte[] value) {}

    /** A stream that is malformed, corrupted or truncated. */
    static final class StreamException extends IOException {
        StreamException(String m) {
            super(m);
        }
    }

    private static MessageDigest sha() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] keyed(Key k, byte[] v, int off, int len) {
        ByteBuffer b = ByteBuffer.allocate(Key.SIZE + len).order(ByteOrder.BIG_ENDIAN);
        b.putLong(k.obj()).put((byte) k.type()).putLong(k.off()).put(v, off, len);
        return b.array();
    }

    /** Writes records, keeping the running digest. */
    static final class Writer {
        private final OutputStream out;
        private final MessageDigest digest = sha();
        private long records, bytes;

        Writer(OutputStream out) {
            this.out = out;
        }

        long bytes() { return bytes; }

        void record(int type, byte[] payload) throws IOException {
            byte[] head = ByteBuffer.allocate(5).order(ByteOrder.LITTLE_ENDIAN).put((byte) type).putInt(payload.length).array();
            CRC32C crc = new CRC32C();
            crc.update(head);
            crc.update(payload);
            byte[] tail = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue()).array();
            for (byte[] part : new byte[][] {head, payload, tail}) {
                out.write(part);
                digest.update(part);
                bytes += part.length;
            }
            records++;
        }

        void end() throws IOException {
            byte[] sum = digest.digest();
            byte[] p = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN).put(sum).putLong(records).array();
            record(END, p);
            out.flush();
        }
    }

    /** Reads and checks records. */
    static final class Reader {
        private final InputStream in;
        private final MessageDigest digest = sha();
        private long records, bytes;
        private boolean ended;

        Reader(InputStream in) {
            this.in = in;
        }

        long bytes() { return bytes; }

        private byte[] read(int n, String what) throws IOException {
            byte[] b = new byte[n];
            int got = 0;
            while (got < n) {
                int r = in.read(b, got, n - got);
                if (r < 0) throw new StreamException("send stream truncated at byte " + (bytes + got) + " (in " + what + ")");
                got += r;
            }
            return b;
        }

        /** The next record; END is checked here (digest, count) and returned once. */
        Record next() throws IOException {
            if (ended) throw new EOFException("after END");
            long at = bytes;
            byte[] head = read(5, "a record header");
            ByteBuffer h = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
            int type = head[0] & 0xFF;
            int len = h.getInt(1);
            if (type > END || len < 0 || len > MAX_PAYLOAD) throw new StreamException("send stream corrupted at byte " + at + " (bad record header)");
            bytes += 5;
            byte[] payload = read(len, "a record");
            bytes += len;
            byte[] tail = read(4, "a record checksum");
            bytes += 4;
            CRC32C crc = new CRC32C();
            crc.update(head);
            crc.update(payload);
            if ((int) crc.getValue() != ByteBuffer.wrap(tail).order(ByteOrder.LITTLE_ENDIAN).getInt()) {
                throw new StreamException("send stream corrupted at byte " + at + " (record checksum mismatch)");
            }
            if (type == END) {
                byte[] sum = digest.digest();
                ByteBuffer p = ByteBuffer.wrap(payload).order(ByteOrder.LITTLE_ENDIAN);
                byte[] sent = new byte[32];
                if (payload.length != 40) throw new StreamException("send stream corrupted: bad END record");
                p.get(sent);
                long count = p.getLong();
                if (!MessageDigest.isEqual(sum, sent)) throw new StreamException("send stream corrupted: SHA-256 of the stream does not match");
                if (count != records) throw new StreamException("send stream corrupted: " + records + " records, END says " + count);
                ended = true;
                if (in.read() >= 0) throw new StreamException("send stream has bytes after its END record");
                return new Record(END, null, null);
            }
            digest.update(head);
            digest.update(payload);
            digest.update(tail);
            records++;
            if (type == HEADER) return new Record(HEADER, null, payload);
            if (payload.length < Key.SIZE) throw new StreamException("send stream corrupted at byte " + at + " (short record)");
            ByteBuffer k = ByteBuffer.wrap(payload).order(ByteOrder.BIG_ENDIAN);
            Key key = new Key(k.getLong(), k.get() & 0xFF, k.getLong());
            return new Record(type, key, java.util.Arrays.copyOfRange(payload, Key.SIZE, payload.length));
        }
    }
}
