/** The ringfuse command line. */
module dev.ringfuse.cli {
    requires dev.ringfuse;
    requires dev.ringfuse.fs;
    requires dev.ringfuse.pool;
    requires info.picocli;
    opens dev.ringfuse.cli to info.picocli;
}
