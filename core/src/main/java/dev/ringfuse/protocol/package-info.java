/**
 * The pure codec: {@link dev.ringfuse.protocol.Decoder} turns (header, op-in, payload) segments into a
 * sealed {@link dev.ringfuse.protocol.Request} record, malformed input into a
 * {@link dev.ringfuse.protocol.Request.Malformed} value; {@link dev.ringfuse.protocol.Encoder} writes reply
 * bodies and {@link dev.ringfuse.protocol.DirentPacker} packs directory entries. No I/O, no threads.
 * Internal.
 */
package dev.ringfuse.protocol;
