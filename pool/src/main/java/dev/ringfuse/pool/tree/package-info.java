/**
 * The copy-on-write B+tree that holds every dataset's objects and the dataset directory: keys
 * (object, type, offset), byte values, nodes written children-first at commit, each verified through its
 * parent's block pointer when loaded.
 */
package dev.ringfuse.pool.tree;
