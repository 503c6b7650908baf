package dev.ringfuse.fs.memfs;

import dev.ringfuse.lowlevel.LowLevelFileSystem;

/** Placeholder: memfs is being written. */
public final class MemFs implements LowLevelFileSystem {
}
