/** The pool: a copy-on-write, checksummed, compressing filesystem on image files and block devices. */
module dev.ringfuse.pool {
    requires transitive dev.ringfuse;
    requires dev.ringfuse.uring;
    requires aircompressor;
    requires jdk.jfr;
    exports dev.ringfuse.pool.format;
    exports dev.ringfuse.pool.io;
    exports dev.ringfuse.pool.space;
    exports dev.ringfuse.pool.tree;
    exports dev.ringfuse.pool.txg;
    exports dev.ringfuse.pool.fs;
    exports dev.ringfuse.pool.admin;
    exports dev.ringfuse.pool.send;
}
