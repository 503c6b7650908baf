/** memfs: an in-memory filesystem that behaves like tmpfs. */
package dev.ringfuse.fs.memfs;
