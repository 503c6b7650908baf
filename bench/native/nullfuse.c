/*
 * nullfuse: the floor of the /dev/fuse transport on this machine. A FUSE server in C, with no libfuse and no
 * filesystem behind it: every name in its root is a regular file of FILE_SIZE bytes of zeros, a READ is answered
 * from one static buffer, a WRITE is acknowledged without storing. N threads, each blocked in read(2) on its own
 * clone of the session descriptor (FUSE_DEV_IOC_CLONE), answer with one writev(2) per request: the least work a
 * /dev/fuse server can do per request. What it reaches at a job is the most any /dev/fuse server can reach there
 * (docs/bench/transports.md, "The /dev/fuse floor"); it asks the kernel for what ringfuse asks for by default
 * (ASYNC_READ, ASYNC_DIO, AUTO_INVAL_DATA, PARALLEL_DIROPS, MAX_PAGES, BIG_WRITES) and mounts with
 * default_permissions as ringfuse does.
 *
 *   gcc -O2 -Wall -pthread -o nullfuse bench/native/nullfuse.c
 *   nullfuse MOUNTPOINT [THREADS] [FILE_SIZE_MIB]     (root; foreground; umount MOUNTPOINT ends it)
 *
 * With NULLFUSE_DATA=1 in the environment a READ is answered from the file's own bytes (FILE_SIZE bytes of memory
 * filled at start, at the READ's offset) instead of one hot buffer: what a server that keeps data in memory, as
 * memfs does, cannot avoid (each reply's copy touches memory the CPU caches do not hold).
 *
 * Benchmark tool only: it answers every LOOKUP in the root with the same file, ignores permissions beyond
 * default_permissions, and is not meant to be mounted anywhere but a scratch directory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef FUSE_DEV_IOC_CLONE
#define FUSE_DEV_IOC_CLONE _IOR(229, 0, uint32_t)
#endif

#define MAX_WRITE (1u << 20)
#define BUF_SIZE (MAX_WRITE + 4096)
#define FILE_INO 2

static uint64_t file_size = 16ull << 20;
static int master_fd = -1;
static char zeros[MAX_WRITE];
static char *data; /* NULLFUSE_DATA: the file's bytes */

static void attr_of(uint64_t ino, struct fuse_attr *a) {
    memset(a, 0, sizeof *a);
    a->ino = ino;
    a->nlink = 1;
    a->blksize = 4096;
    if (ino == FUSE_ROOT_ID) {
        a->mode = S_IFDIR | 0755;
        a->nlink = 2;
    } else {
        a->mode = S_IFREG | 0644;
        a->size = file_size;
        a->blocks = file_size / 512;
    }
}

/* One reply: header, then up to two pieces of payload; false when the connection is gone. */
static int reply(int fd, uint64_t unique, int error, const void *a, size_t alen, const void *b, size_t blen) {
    struct fuse_out_header h = {.len = sizeof h + alen + blen, .error = error, .unique = unique};
    struct iovec iov[3] = {{&h, sizeof h}, {(void *) a, alen}, {(void *) b, blen}};
    int n = 1 + (alen > 0) + (blen > 0);
    if (blen > 0 && alen == 0) iov[1] = iov[2];
    if (writev(fd, iov, n) < 0 && errno == ENODEV) return 0;
    return 1;
}

static int serve(int fd, char *buf, ssize_t n) {
    struct fuse_in_header *in = (struct fuse_in_header *) buf;
    void *arg = buf + sizeof *in;
    if (n < (ssize_t) sizeof *in) return 1;
    switch (in->opcode) {
    case FUSE_INIT: {
        struct fuse_init_in *i = arg;
        struct fuse_init_out o = {0};
        o.major = FUSE_KERNEL_VERSION;
        o.minor = i->minor < FUSE_KERNEL_MINOR_VERSION ? i->minor : FUSE_KERNEL_MINOR_VERSION;
        o.max_readahead = i->max_readahead;
        o.flags = i->flags & (FUSE_ASYNC_READ | FUSE_ASYNC_DIO | FUSE_AUTO_INVAL_DATA | FUSE_PARALLEL_DIROPS |
                              FUSE_MAX_PAGES | FUSE_BIG_WRITES);
        o.max_background = 64;
        o.congestion_threshold = 48;
        o.max_write = MAX_WRITE;
        o.time_gran = 1;
        o.max_pages = MAX_WRITE / 4096;
        return reply(fd, in->unique, 0, &o, sizeof o, NULL, 0);
    }
    case FUSE_LOOKUP: {
        struct fuse_entry_out e = {.nodeid = FILE_INO, .generation = 1, .entry_valid = 3600, .attr_valid = 3600};
        if (in->nodeid != FUSE_ROOT_ID) return reply(fd, in->unique, -ENOENT, NULL, 0, NULL, 0);
        attr_of(FILE_INO, &e.attr);
        return reply(fd, in->unique, 0, &e, sizeof e, NULL, 0);
    }
    case FUSE_GETATTR:
    case FUSE_SETATTR: {
        struct fuse_attr_out a = {.attr_valid = 3600};
        attr_of(in->nodeid, &a.attr);
        return reply(fd, in->unique, 0, &a, sizeof a, NULL, 0);
    }
    case FUSE_OPEN:
    case FUSE_OPENDIR: {
        struct fuse_open_out o = {0};
        return reply(fd, in->unique, 0, &o, sizeof o, NULL, 0);
    }
    case FUSE_READ: {
        struct fuse_read_in *r = arg;
        uint64_t len = r->size > MAX_WRITE ? MAX_WRITE : r->size;
        if (r->offset >= file_size) len = 0;
        else if (r->offset + len > file_size) len = file_size - r->offset;
        return reply(fd, in->unique, 0, NULL, 0, data && len ? data + r->offset : zeros, len);
    }
    case FUSE_WRITE: {
        struct fuse_write_in *w = arg;
        struct fuse_write_out o = {.size = w->size};
        return reply(fd, in->unique, 0, &o, sizeof o, NULL, 0);
    }
    case FUSE_STATFS: {
        struct fuse_statfs_out s = {.st = {.bsize = 4096, .frsize = 4096, .namelen = 255}};
        return reply(fd, in->unique, 0, &s, sizeof s, NULL, 0);
    }
    case FUSE_READDIR: /* empty: the jobs name their files */
    case FUSE_FLUSH:
    case FUSE_RELEASE:
    case FUSE_RELEASEDIR:
    case FUSE_FSYNC:
    case FUSE_FSYNCDIR:
    case FUSE_ACCESS:
        return reply(fd, in->unique, 0, NULL, 0, NULL, 0);
    case FUSE_FORGET:
    case FUSE_BATCH_FORGET:
    case FUSE_INTERRUPT:
        return 1; /* no reply */
    case FUSE_DESTROY:
        reply(fd, in->unique, 0, NULL, 0, NULL, 0);
        return 0;
    default:
        return reply(fd, in->unique, -ENOSYS, NULL, 0, NULL, 0);
    }
}

static void *loop(void *p) {
    int fd = (int) (intptr_t) p;
    char *buf = aligned_alloc(4096, BUF_SIZE);
    if (!buf) return NULL;
    for (;;) {
        ssize_t n = read(fd, buf, BUF_SIZE);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == ENOENT) continue;
            break; /* ENODEV: unmounted */
        }
        if (!serve(fd, buf, n)) break;
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MOUNTPOINT [THREADS] [FILE_SIZE_MIB]\n", argv[0]);
        return 2;
    }
    int threads = argc > 2 ? atoi(argv[2]) : 4;
    if (threads < 1 || threads > 256) threads = 4;
    if (argc > 3) file_size = strtoull(argv[3], NULL, 10) << 20;
    const char *d = getenv("NULLFUSE_DATA");
    if (d && strcmp(d, "1") == 0) {
        data = aligned_alloc(4096, file_size);
        if (!data) {
            perror("NULLFUSE_DATA");
            return 1;
        }
        for (uint64_t i = 0; i < file_size; i++) data[i] = (char) (i * 131 + (i >> 12));
    }
    master_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
    if (master_fd < 0) {
        perror("/dev/fuse");
        return 1;
    }
    char opts[256];
    snprintf(opts, sizeof opts, "fd=%d,rootmode=40000,user_id=0,group_id=0,default_permissions,allow_other", master_fd);
    if (mount("nullfuse", argv[1], "fuse.nullfuse", MS_NOSUID | MS_NODEV, opts) != 0) {
        perror("mount");
        return 1;
    }
    /* INIT first, on the session descriptor: clones are refused before it */
    {
        char *buf = aligned_alloc(4096, BUF_SIZE);
        ssize_t n = read(master_fd, buf, BUF_SIZE);
        if (n <= 0 || !serve(master_fd, buf, n)) {
            fprintf(stderr, "no INIT\n");
            return 1;
        }
        free(buf);
    }
    pthread_t t[256];
    for (int i = 0; i < threads; i++) {
        int fd = master_fd;
        if (i > 0) {
            fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
            uint32_t m = master_fd;
            if (fd < 0 || ioctl(fd, FUSE_DEV_IOC_CLONE, &m) != 0) {
                perror("FUSE_DEV_IOC_CLONE");
                return 1;
            }
        }
        pthread_create(&t[i], NULL, loop, (void *) (intptr_t) fd);
    }
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    return 0;
}
