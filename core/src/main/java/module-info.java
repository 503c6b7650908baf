/**
 * ringfuse: a pure-Java FUSE server. Mount with {@link dev.ringfuse.Fuse#mount}, implement
 * {@link dev.ringfuse.lowlevel.LowLevelFileSystem}.
 */
module dev.ringfuse {
    requires dev.ringfuse.uring;
    requires jdk.jfr;
    requires jdk.net;
    exports dev.ringfuse;
    exports dev.ringfuse.lowlevel;
    exports dev.ringfuse.fs;
    exports dev.ringfuse.access;
    // internal packages, open to the project's own modules only
    exports dev.ringfuse.sys to dev.ringfuse.fs, dev.ringfuse.testkit, dev.ringfuse.cli;
    exports dev.ringfuse.stats to dev.ringfuse.cli;
    exports dev.ringfuse.mount to dev.ringfuse.cli;
}
