package dev.ringfuse.sys;

/**
 * ringfuse calls the kernel through the FFM API, which the JVM allows only to code it was told to trust.
 * Without that permission JDK 25 prints a warning per module and later JDKs refuse; ringfuse refuses
 * at once, before mounting anything, with the flag to add.
 */
public final class NativeAccess {
    private NativeAccess() {}

    /** Throws {@link IllegalCallerException} naming the JVM flag unless ringfuse's modules may call native code. */
    public static void require() {
        Module core = NativeAccess.class.getModule(), uring = dev.ringfuse.uring.IoUring.class.getModule();
        if (core.isNativeAccessEnabled() && uring.isNativeAccessEnabled()) return;
        throw new IllegalCallerException(message(core.isNamed()));
    }

    static String message(boolean modulePath) {
        String flag = modulePath ? "--enable-native-access=dev.ringfuse,dev.ringfuse.uring"
                : "--enable-native-access=ALL-UNNAMED";
        return "ringfuse calls the kernel through the FFM API (no JNI), and this JVM was started without "
                + "permission for it: add " + flag + " to the java command line"
                + (modulePath ? " (module path)" : " (class path; on the module path use "
                + "--enable-native-access=dev.ringfuse,dev.ringfuse.uring)");
    }
}
