/**
 * The FUSE kernel ABI (fuse_kernel.h 7.45), named as in C: one {@link java.lang.foreign.StructLayout} per
 * struct, offsets derived from the layouts, the opcode table and flag constants. No other package holds
 * a magic offset. Internal.
 */
package dev.ringfuse.kernel;
