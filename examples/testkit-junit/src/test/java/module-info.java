/**
 * The tests of the notes filesystem, a module of their own: its first client, using only what
 * {@code example.notes} exports. Open, so that JUnit may reflect on the test classes.
 */
open module example.notes.test {
    requires example.notes;
    requires dev.ringfuse.testkit;
    requires org.junit.jupiter.api;
}
