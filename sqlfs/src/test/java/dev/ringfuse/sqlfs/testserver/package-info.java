/** A real PostgreSQL server for tests (here and in the tests of the CLI). */
package dev.ringfuse.sqlfs.testserver;
