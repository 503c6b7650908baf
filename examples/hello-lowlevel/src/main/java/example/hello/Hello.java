package example.hello;

import dev.ringfuse.*;
import dev.ringfuse.lowlevel.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** A root directory with one read-only file, "hello", on the low-level (inode) API. Usage: Hello MOUNTPOINT */
public class Hello implements LowLevelFileSystem {
    static final byte[] TEXT = "Hello from ringfuse\n".getBytes(StandardCharsets.UTF_8);
    static final long FILE = 2, SECOND = 1_000_000_000L;

    static Attr attr(long ino) {
        return ino == ROOT_ID ? new Attr(ino, Attr.S_IFDIR | 0755, 2, 0, 0, 0, 0, 0, 4096, 0, 0, 0, 0, 0, 0, 0, 0)
                : new Attr(ino, Attr.S_IFREG | 0444, 1, 0, 0, 0, TEXT.length, 1, 4096, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    @Override public void lookup(RequestContext c, long parent, String name, EntryReply r) {
        if (parent == ROOT_ID && name.equals("hello")) r.entry(new Entry(FILE, 1, attr(FILE), SECOND, SECOND));
        else r.error(Errno.ENOENT);
    }

    @Override public void getattr(RequestContext c, long node, long fh, AttrReply r) { r.attr(attr(node), SECOND); }

    @Override public void open(RequestContext c, long node, int flags, OpenReply r) { r.open(0, 0); }

    @Override public void read(RequestContext c, long node, long fh, long offset, int size, ReadReply r) {
        int from = (int) Math.min(offset, TEXT.length);
        r.data(TEXT, from, Math.min(size, TEXT.length - from));
    }

    @Override public void opendir(RequestContext c, long node, int flags, OpenReply r) { r.open(0, 0); }

    @Override public void readdir(RequestContext c, long node, long fh, long offset, int size, DirReply r) {
        if (offset == 0) r.add("hello", FILE, Attr.S_IFREG, 1);
        r.send();
    }

    public static void main(String[] args) throws Exception {
        try (Mount m = Fuse.mount(Path.of(args[0]), new Hello())) {
            System.out.println("mounted " + m.describe() + "; umount " + args[0] + " to stop");
            m.awaitUnmount();
        }
    }
}
