import os, sys, errno, ctypes, time
libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long, ctypes.c_long]
d = sys.argv[1]
os.chdir(d)
def t(label, fn):
    try:
        r = fn(); print(label, 'OK' if r is None else 'OK %s' % r, flush=True)
    except OSError as e:
        print(label, errno.errorcode.get(e.errno, str(e.errno)), flush=True)
# ---- xattr limits and counts
open('x', 'w').close()
t('xattr name 255', lambda: os.setxattr('x', 'user.' + 'n' * 250, b'v'))
t('xattr name 256', lambda: os.setxattr('x', 'user.' + 'n' * 251, b'v'))
t('xattr empty name', lambda: os.setxattr('x', 'user.', b'v'))
t('xattr value 64k', lambda: os.setxattr('x', 'user.big', b'v' * 65536))
t('xattr value 64k+1', lambda: os.setxattr('x', 'user.big2', b'v' * 65537))
t('xattr get 64k', lambda: len(os.getxattr('x', 'user.big')))
buf = ctypes.create_string_buffer(10)
print('xattr get small buffer', libc.getxattr(b'x', b'user.big', buf, 10), errno.errorcode.get(ctypes.get_errno()))
print('xattr list small buffer', libc.listxattr(b'x', buf, 10), errno.errorcode.get(ctypes.get_errno()))
print('xattr get size probe', libc.getxattr(b'x', b'user.big', None, 0))
def many():
    for i in range(1500):
        os.setxattr('x', 'user.k%04d' % i, b'x' * 100)
t('xattr 1500 attributes', many)
t('xattr list count', lambda: len(os.listxattr('x')))
def longlist():
    for i in range(300):
        os.setxattr('x', 'user.%s%03d' % ('L' * 240, i), b'')
t('xattr list over 64k', longlist)
t('xattr list', lambda: len(os.listxattr('x')))
for ns in ('trusted.a', 'security.a', 'system.bogus', 'foo.a'):
    t('xattr ns ' + ns, lambda: os.setxattr('x', ns, b'v'))
os.symlink('x', 'xl')
t('xattr user on symlink', lambda: os.setxattr('xl', 'user.a', b'v', follow_symlinks=False))
t('xattr trusted on symlink', lambda: os.setxattr('xl', 'trusted.a', b'v', follow_symlinks=False))
t('xattr remove missing', lambda: os.removexattr('x', 'user.never'))
# ---- timestamps on every call: which of atime/mtime/ctime of the file and its parent change
os.mkdir('p')
def times(path):
    st = os.stat(path, follow_symlinks=False)
    return (st.st_atime_ns, st.st_mtime_ns, st.st_ctime_ns)
def changed(before, after):
    return ''.join(c if b != a else '-' for c, b, a in zip('amc', before, after))
def step(label, fn, path='p/f'):
    tb, pb = times(path) if os.path.lexists(path) else None, times('p')
    time.sleep(0.02)
    try:
        fn()
    except OSError as e:
        print('times', label, errno.errorcode.get(e.errno), flush=True); return
    ta = times(path) if os.path.lexists(path) else None
    print('times', label, 'file', changed(tb, ta) if tb and ta else 'n/a', 'dir', changed(pb, times('p')), flush=True)
fd = os.open('p/f', os.O_CREAT | os.O_RDWR, 0o644); os.close(fd)
step('write', lambda: (lambda fd: (os.pwrite(fd, b'data' * 100, 0), os.close(fd)))(os.open('p/f', os.O_WRONLY)))
step('truncate same size', lambda: os.truncate('p/f', 400))
step('truncate smaller', lambda: os.truncate('p/f', 100))
step('open O_TRUNC', lambda: os.close(os.open('p/f', os.O_WRONLY | os.O_TRUNC)))
step('fallocate', lambda: (lambda fd: (libc.fallocate(fd, 0, 0, 8192), os.close(fd)))(os.open('p/f', os.O_WRONLY)))
step('fallocate keep size', lambda: (lambda fd: (libc.fallocate(fd, 1, 8192, 8192), os.close(fd)))(os.open('p/f', os.O_WRONLY)))
step('punch hole', lambda: (lambda fd: (libc.fallocate(fd, 3, 0, 4096), os.close(fd)))(os.open('p/f', os.O_WRONLY)))
step('chmod', lambda: os.chmod('p/f', 0o600))
step('chown', lambda: os.chown('p/f', 0, 0))
step('utimens', lambda: os.utime('p/f', ns=(1_000_000_123, 2_000_000_456)))
print('utimens value', times('p/f')[:2])
step('setxattr', lambda: os.setxattr('p/f', 'user.t', b'v'))
step('removexattr', lambda: os.removexattr('p/f', 'user.t'))
step('link', lambda: os.link('p/f', 'p/g'))
step('unlink other name', lambda: os.unlink('p/g'))
step('rename within dir', lambda: os.rename('p/f', 'p/f2'), 'p/f2')
os.rename('p/f2', 'p/f')
step('mkdir', lambda: os.mkdir('p/sub'))
step('rmdir', lambda: os.rmdir('p/sub'))
step('symlink', lambda: os.symlink('f', 'p/s'))
step('mknod fifo', lambda: os.mkfifo('p/fifo'))
def tmpfile_link():
    fd = os.open('p', os.O_TMPFILE | os.O_WRONLY, 0o600)
    os.write(fd, b'tmp')
    if libc.linkat(-100, b'/proc/self/fd/%d' % fd, -100, b'p/t', 0x400) != 0:
        raise OSError(ctypes.get_errno(), 'linkat')
    os.close(fd)
step('O_TMPFILE + linkat', tmpfile_link)
t('O_TMPFILE content', lambda: open('p/t', 'rb').read())
t('O_TMPFILE nlink', lambda: os.stat('p/t').st_nlink)
def tmpfile_excl():
    fd = os.open('p', os.O_TMPFILE | os.O_WRONLY | os.O_EXCL, 0o600)
    try:
        if libc.linkat(-100, b'/proc/self/fd/%d' % fd, -100, b'p/t2', 0x400) != 0:
            raise OSError(ctypes.get_errno(), 'linkat')
    finally:
        os.close(fd)
t('O_TMPFILE|O_EXCL linkat', tmpfile_excl)
t('O_TMPFILE on a file', lambda: os.open('p/f', os.O_TMPFILE | os.O_WRONLY, 0o600))
t('O_TMPFILE read-only', lambda: os.open('p', os.O_TMPFILE | os.O_RDONLY, 0o600))
