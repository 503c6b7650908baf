/** Mount a filesystem for a test and always unmount it; the POSIX scenario suite. */
package dev.ringfuse.testkit;
