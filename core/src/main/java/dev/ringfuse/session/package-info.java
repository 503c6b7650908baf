/**
 * The session: INIT negotiation, dispatch of decoded requests to the filesystem, the in-flight table
 * (interrupts, shutdown), reply handles, notifications and the lifecycle that ties a mount, a transport
 * and a filesystem together. Internal.
 *
 * <p>Reply handle states: RUNNING while the callback runs on the transport thread, ASYNC once it returned
 * without replying (the transport then reads into another buffer and a Cleaner watches the handle), DONE
 * after the one reply. The transition is a single atomic exchange, so a reply racing the callback's return
 * is decided exactly once.
 */
package dev.ringfuse.session;
