/** Ready filesystems built on ringfuse's low-level API. */
module dev.ringfuse.fs {
    requires transitive dev.ringfuse;
    requires dev.ringfuse.uring;
    exports dev.ringfuse.fs.memfs;
    exports dev.ringfuse.fs.volume;
    exports dev.ringfuse.fs.passthrough;
    // the claim on an image or source directory, for the command line
    exports dev.ringfuse.fs.io to dev.ringfuse.cli;
}
