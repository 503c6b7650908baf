/**
 * volume: a directory with one regular file, {@code volume}, whose bytes are an image file on the host,
 * so that {@code losetup --direct-io=on <mnt>/volume} gives a block device backed by a ringfuse server.
 *
 * <p>Open with {@code VolumeFs.open(VolumeOptions.of(image))} (or {@code withCreate(size)} for a new
 * sparse image). The data path, in order of preference:
 * <ul>
 *   <li><b>Kernel passthrough.</b> The image descriptor is registered once as a backing file and every
 *       open reply carries its id: reads and writes (buffered, O_DIRECT, aio, mmap) never reach the
 *       server. Needs CAP_SYS_ADMIN; {@code --passthrough auto|on|off}.</li>
 *   <li><b>io_uring.</b> Otherwise each READ is an io_uring READ straight into the reply buffer and each
 *       WRITE is written from the request buffer: no copy in the server. By default the FUSE thread
 *       submits on its own ring with the image as a registered file and replies itself; {@code async}
 *       hands the I/O to a loop thread that replies on completion.</li>
 * </ul>
 * Durability: flush and fsync are fdatasync on the image. Discard (fallocate PUNCH_HOLE|KEEP_SIZE) and
 * write-zeroes (ZERO_RANGE) punch or zero the image. The size is fixed unless the volume is resizable;
 * a refused size change answers EPERM and logs why. Decisions and figures: {@code fs/DESIGN.md}.
 */
package dev.ringfuse.fs.volume;
