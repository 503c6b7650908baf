/**
 * The {@code ringfuse} command: {@code mount <fs> <mountpoint>} serves a filesystem in the foreground,
 * {@code demo} shows memfs at work, {@code unmount} clears a mount. Each subcommand is one class.
 */
package dev.ringfuse.cli;
