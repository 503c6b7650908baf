// Metadata benchmark: create + write 1 KiB + close N files, list the directory with stat of each entry
// (after dropping caches when run as root), then unlink them; no fork per operation. Prints one line
// per phase: "phase ops seconds ops_per_second".
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void report(const char *phase, long ops, double secs) {
    printf("%s %ld %.6f %.0f\n", phase, ops, secs, ops / secs);
    fflush(stdout);
}

static void die(const char *what, const char *path) {
    fprintf(stderr, "metadata: %s %s: %s\n", what, path, strerror(errno));
    exit(1);
}

static void drop_caches(void) {
    sync();
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
    if (fd >= 0) {
        if (write(fd, "2\n", 2) < 0) { /* not root: measure with warm caches */ }
        close(fd);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: metadata <empty dir> [files=10000]\n");
        return 2;
    }
    const char *dir = argv[1];
    long n = argc > 2 ? atol(argv[2]) : 10000;
    char buf[1024], path[4096];
    memset(buf, 'm', sizeof buf);
    if (chdir(dir) != 0) die("chdir", dir);

    double t0 = now();
    for (long i = 0; i < n; i++) {
        snprintf(path, sizeof path, "f%07ld", i);
        int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
        if (fd < 0) die("create", path);
        if (write(fd, buf, sizeof buf) != (ssize_t) sizeof buf) die("write", path);
        if (close(fd) != 0) die("close", path);
    }
    report("create", n, now() - t0);

    drop_caches();
    t0 = now();
    DIR *d = opendir(".");
    if (!d) die("opendir", dir);
    long listed = 0;
    struct dirent *e;
    struct stat st;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) die("stat", e->d_name);
        listed++;
    }
    closedir(d);
    if (listed != n) {
        fprintf(stderr, "metadata: listed %ld entries, expected %ld\n", listed, n);
        return 1;
    }
    report("ls-l", listed, now() - t0);

    drop_caches();
    t0 = now();
    for (long i = 0; i < n; i++) {
        snprintf(path, sizeof path, "f%07ld", i);
        if (stat(path, &st) != 0) die("stat", path);
        if (st.st_size != (off_t) sizeof buf) { fprintf(stderr, "metadata: %s has size %ld\n", path, (long) st.st_size); return 1; }
    }
    report("stat", n, now() - t0);

    t0 = now();
    for (long i = 0; i < n; i++) {
        snprintf(path, sizeof path, "f%07ld", i);
        if (unlink(path) != 0) die("unlink", path);
    }
    report("unlink", n, now() - t0);
    return 0;
}
