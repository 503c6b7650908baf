/**
 * A pure-Java io_uring binding over the Foreign Function &amp; Memory API.
 *
 * <p>No JNI, no liburing, no dependencies beyond the JDK. The only exported package is
 * {@code dev.ringfuse.uring}; the ABI, syscalls and queue plumbing live in internal packages.
 * Callers must run with {@code --enable-native-access} for this module (or ALL-UNNAMED on the class path).
 */
module dev.ringfuse.uring {
    requires jdk.jfr;
    exports dev.ringfuse.uring;
}
