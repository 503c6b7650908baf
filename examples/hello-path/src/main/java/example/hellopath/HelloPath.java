package example.hellopath;

import dev.ringfuse.Errno;
import dev.ringfuse.Fuse;
import dev.ringfuse.FuseException;
import dev.ringfuse.Mount;
import dev.ringfuse.fs.DirFiller;
import dev.ringfuse.fs.FileStat;
import dev.ringfuse.fs.PathFileSystem;
import dev.ringfuse.fs.PathFileSystemAdapter;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** The same hello filesystem on the path API: files named by path, errors thrown. Usage: HelloPath MOUNTPOINT */
public class HelloPath implements PathFileSystem {
    static final byte[] TEXT = "Hello from ringfuse\n".getBytes(StandardCharsets.UTF_8);

    @Override public FileStat getattr(String path, long fh) {
        return switch (path) {
            case "/" -> new FileStat().mode(FileStat.S_IFDIR | 0755).nlink(2);
            case "/hello" -> new FileStat().mode(FileStat.S_IFREG | 0444).size(TEXT.length);
            default -> throw new FuseException(Errno.ENOENT);
        };
    }

    @Override public void readdir(String path, DirFiller filler, long fh) {
        filler.add("hello", getattr("/hello", fh));
    }

    @Override public long open(String path, int flags) { return 0; }

    @Override public int read(String path, MemorySegment buf, long offset, long fh) {
        int n = (int) Math.max(0, Math.min(buf.byteSize(), TEXT.length - offset));
        MemorySegment.copy(MemorySegment.ofArray(TEXT), offset, buf, 0, n);
        return n;
    }

    public static void main(String[] args) throws Exception {
        try (Mount m = Fuse.mount(Path.of(args[0]), new PathFileSystemAdapter(new HelloPath()))) {
            System.out.println("mounted " + m.describe() + "; umount " + args[0] + " to stop");
            m.awaitUnmount();
        }
    }
}
