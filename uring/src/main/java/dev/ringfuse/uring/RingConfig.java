package dev.ringfuse.uring;

import dev.ringfuse.uring.internal.Abi;

/**
 * How to set up a ring: entry counts and {@code IORING_SETUP_*} flags. Build with {@link #builder(int)}.
 *
 * @param sqEntries    submission queue size (the kernel rounds up to a power of two)
 * @param cqEntries    completion queue size, or 0 for the kernel default (twice sqEntries); sets CQSIZE
 * @param setupFlags   raw {@code IORING_SETUP_*} bits
 * @param sqThreadIdle SQPOLL idle time in ms before the kernel thread sleeps (only with SQPOLL)
 */
public record RingConfig(int sqEntries, int cqEntries, int setupFlags, int sqThreadIdle) {

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException sqEntries outside 1..32768, cqEntries negative, or DEFER_TASKRUN
     *         without SINGLE_ISSUER (the kernel would refuse the ring with EINVAL)
     */
    public RingConfig {
        if (sqEntries < 1 || sqEntries > 32768) throw new IllegalArgumentException("sqEntries " + sqEntries);
        if (cqEntries < 0) throw new IllegalArgumentException("cqEntries " + cqEntries);
        if ((setupFlags & Abi.IORING_SETUP_DEFER_TASKRUN) != 0 && (setupFlags & Abi.IORING_SETUP_SINGLE_ISSUER) == 0)
            throw new IllegalArgumentException("DEFER_TASKRUN requires SINGLE_ISSUER");
    }

    /**
     * A builder with no setup flags and a 1 s SQPOLL idle time.
     *
     * @param sqEntries submission queue size, 1 to 32768
     * @return a new builder
     */
    public static Builder builder(int sqEntries) {
        return new Builder(sqEntries);
    }

    /** @return whether SQEs are 128 bytes (SQE128), as FUSE-over-io_uring needs for its command area */
    public boolean sqe128() {
        return has(Abi.IORING_SETUP_SQE128);
    }

    /** @return whether CQEs are 32 bytes (CQE32), carrying two extra u64 */
    public boolean cqe32() {
        return has(Abi.IORING_SETUP_CQE32);
    }

    /** @return whether a kernel thread polls the submission queue (SQPOLL) */
    public boolean sqPoll() {
        return has(Abi.IORING_SETUP_SQPOLL);
    }

    /** @return whether completions are processed only when the owner thread waits (DEFER_TASKRUN) */
    public boolean deferTaskrun() {
        return has(Abi.IORING_SETUP_DEFER_TASKRUN);
    }

    /** @return whether only the creating thread may submit (SINGLE_ISSUER) */
    public boolean singleIssuer() {
        return has(Abi.IORING_SETUP_SINGLE_ISSUER);
    }

    private boolean has(int flag) {
        return (setupFlags & flag) != 0;
    }

    /** Fluent builder; each method sets one {@code IORING_SETUP_*} flag. */
    public static final class Builder {
        private final int sqEntries;
        private int cqEntries;
        private int flags;
        private int sqThreadIdle = 1000;

        private Builder(int sqEntries) {
            this.sqEntries = sqEntries;
        }

        /** CQSIZE: an explicit completion queue size (≥ sqEntries). */
        public Builder cqEntries(int n) {
            this.cqEntries = n;
            if (n > 0) flags |= Abi.IORING_SETUP_CQSIZE; else flags &= ~Abi.IORING_SETUP_CQSIZE;
            return this;
        }

        /** SQE128: 128-byte SQEs with an 80-byte command area (required by FUSE-over-io_uring). */
        public Builder sqe128() { flags |= Abi.IORING_SETUP_SQE128; return this; }

        /** CQE32: 32-byte CQEs carrying two extra u64 (big_cqe). */
        public Builder cqe32() { flags |= Abi.IORING_SETUP_CQE32; return this; }

        /** SINGLE_ISSUER: only the thread that creates the ring submits to it. */
        public Builder singleIssuer() { flags |= Abi.IORING_SETUP_SINGLE_ISSUER; return this; }

        /** DEFER_TASKRUN (implies SINGLE_ISSUER): completions are processed only when the owner waits. */
        public Builder deferTaskrun() {
            flags |= Abi.IORING_SETUP_DEFER_TASKRUN | Abi.IORING_SETUP_SINGLE_ISSUER;
            return this;
        }

        /** COOP_TASKRUN: no IPI to interrupt the owner for task work; it runs on the next enter. */
        public Builder coopTaskrun() { flags |= Abi.IORING_SETUP_COOP_TASKRUN; return this; }

        /** TASKRUN_FLAG: the kernel sets IORING_SQ_TASKRUN when task work is pending (with COOP_TASKRUN). */
        public Builder taskrunFlag() { flags |= Abi.IORING_SETUP_TASKRUN_FLAG; return this; }

        /** SUBMIT_ALL: keep submitting a batch after one SQE fails to prepare. */
        public Builder submitAll() { flags |= Abi.IORING_SETUP_SUBMIT_ALL; return this; }

        /** SQPOLL: a kernel thread polls the SQ; idle time in milliseconds before it sleeps. */
        public Builder sqPoll(int idleMillis) {
            flags |= Abi.IORING_SETUP_SQPOLL;
            sqThreadIdle = idleMillis;
            return this;
        }

        /** Adds raw {@code IORING_SETUP_*} bits not covered above. */
        public Builder rawFlags(int setupFlags) { flags |= setupFlags; return this; }

        /**
         * @return the configuration
         * @throws IllegalArgumentException as the {@link RingConfig} constructor
         */
        public RingConfig build() {
            return new RingConfig(sqEntries, cqEntries, flags, sqThreadIdle);
        }
    }
}
