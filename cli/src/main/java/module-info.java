/** The ringfuse command line. */
module dev.ringfuse.cli {
    requires dev.ringfuse;
    requires dev.ringfuse.fs;
    requires jdk.jfr;
    requires jdk.httpserver;
    requires java.logging;
    requires dev.ringfuse.sqlfs;
    requires dev.ringfuse.pool;
    requires info.picocli;
    opens dev.ringfuse.cli to info.picocli;
}
