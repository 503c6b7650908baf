/** Test support: mount a filesystem for a test, always unmount; the POSIX scenario suite. */
module dev.ringfuse.testkit {
    requires transitive dev.ringfuse;
    requires transitive org.junit.jupiter.api;
    requires jdk.unsupported;
    requires java.management; // threadDump() on a hung mount
    exports dev.ringfuse.testkit;
    // JUnit calls PosixScenarios' package-private @BeforeEach reflectively: on the module path it must be open
    opens dev.ringfuse.testkit to org.junit.platform.commons;
}
