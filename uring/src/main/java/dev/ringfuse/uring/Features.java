package dev.ringfuse.uring;

import dev.ringfuse.uring.internal.Abi;

import java.util.BitSet;

/**
 * What the running kernel offers a ring: the {@code IORING_FEAT_*} bits returned by io_uring_setup and the
 * opcode table returned by {@code IORING_REGISTER_PROBE}. Gate behaviour on these, never on a kernel version.
 * Immutable.
 */
public final class Features {
    private final int featureBits;
    private final int lastOp;
    private final BitSet supported;

    Features(int featureBits, int lastOp, BitSet supported) {
        this.featureBits = featureBits;
        this.lastOp = lastOp;
        this.supported = (BitSet) supported.clone();
    }

    /** Whether the kernel accepts this opcode ({@code IO_URING_OP_SUPPORTED} in the probe). */
    public boolean supports(Opcode opcode) {
        return supports(opcode.code());
    }

    /** Whether the kernel accepts this numeric opcode. */
    public boolean supports(int opcode) {
        return opcode >= 0 && supported.get(opcode);
    }

    /** The highest opcode the kernel knows ({@code probe->last_op}). */
    public int lastOp() {
        return lastOp;
    }

    /** Raw {@code io_uring_params.features}. */
    public int featureBits() {
        return featureBits;
    }

    /** SQ and CQ rings share one mapping ({@code IORING_FEAT_SINGLE_MMAP}). */
    public boolean singleMmap() {
        return (featureBits & Abi.IORING_FEAT_SINGLE_MMAP) != 0;
    }

    /** CQ overflow keeps completions in the kernel instead of dropping them ({@code IORING_FEAT_NODROP}). */
    public boolean noDrop() {
        return (featureBits & Abi.IORING_FEAT_NODROP) != 0;
    }

    /** io_uring_enter accepts {@code IORING_ENTER_EXT_ARG} (wait with a timeout). */
    public boolean extArg() {
        return (featureBits & Abi.IORING_FEAT_EXT_ARG) != 0;
    }

    /** Data referenced by an SQE need only stay valid until submission returns ({@code SUBMIT_STABLE}). */
    public boolean submitStable() {
        return (featureBits & Abi.IORING_FEAT_SUBMIT_STABLE) != 0;
    }

    @Override
    public String toString() {
        return "Features[bits=0x" + Integer.toHexString(featureBits) + ", lastOp=" + lastOp
                + ", supported=" + supported.cardinality() + " ops]";
    }
}
