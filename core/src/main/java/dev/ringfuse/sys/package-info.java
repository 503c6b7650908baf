/** libc downcalls through the FFM API, with errno captured per call. Internal. */
package dev.ringfuse.sys;
