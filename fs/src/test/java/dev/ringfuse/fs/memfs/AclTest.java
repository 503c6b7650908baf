package dev.ringfuse.fs.memfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ringfuse.MountOptions;
import dev.ringfuse.TransportKind;
import dev.ringfuse.fs.passthrough.PassthroughFs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * issue 17.1: POSIX ACLs on memfs, compared line by line with tmpfs running the same script: setfacl/getfacl
 * round trips, mode and ACL kept in step (setfacl sets the mode, chmod rewrites the mask, an ACL equal to the
 * mode disappears), validation (bad ACLs, a default ACL on a file), inheritance of default ACLs by files,
 * directories, device nodes and O_TMPFILE (overriding the umask) but not symlinks, and enforcement for
 * unprivileged users (setpriv) through named user and group entries and the mask. Then the same on passthrough
 * over a tmpfs source.
 */
class AclTest {
    private static final String SCRIPT = """
            set -u
            cd "$1"
            u() { setpriv --reuid=1234 --regid=1234 --clear-groups "$@" >/dev/null 2>&1 && echo ok || echo denied; }
            v() { setpriv --reuid=1235 --regid=2345 --groups=2345 "$@" >/dev/null 2>&1 && echo ok || echo denied; }
            acl() { getfacl -n -p -- "$@" 2>&1 | grep -v '^# owner\\|^# group'; }
            umask 022
            echo hello > f; chmod 600 f
            setfacl -m u:1234:rw f; acl f; stat -c '%a' f
            echo "read by 1234: $(u cat f)"; echo "append by 1234: $(u sh -c 'echo x >> f')"
            echo "read by 1235: $(v cat f)"
            chmod 640 f; acl f; echo "append by 1234 after chmod 640: $(u sh -c 'echo x >> f')"
            setfacl -m g:2345:r f; echo "read by group 2345: $(v cat f)"
            setfacl -m m::- f; stat -c '%a' f; echo "read by 1234 with empty mask: $(u cat f)"
            setfacl -b f; acl f; stat -c '%a' f
            setfacl -m u::rw,g::r,o::r f; acl f; stat -c '%a' f
            echo "default on a file: $(setfacl -d -m u:1234:r f 2>&1 >/dev/null | sed 's/.*: //')"
            python3 -c "import os
            try:
                os.setxattr('f', 'system.posix_acl_access', b'\\\\x02\\\\x00\\\\x00\\\\x00\\\\x01\\\\x00\\\\x07\\\\x00')
                print('bad acl accepted')
            except OSError as e:
                print('bad acl', e.errno)"
            mkdir d; setfacl -d -m u:1234:rwx,g::rx,o::- d; acl d
            umask 077
            touch d/file; mkdir d/sub; mknod d/fifo p; ln -s file d/link
            python3 -c "import os, ctypes; fd = os.open('d', os.O_TMPFILE | os.O_WRONLY, 0o640); ctypes.CDLL(None).linkat(-100, b'/proc/self/fd/%d' % fd, -100, b'd/tmp', 0x400)"
            for x in d/file d/sub d/fifo d/tmp; do stat -c "%n %a" $x; acl $x; done
            echo "link xattrs: $(getfattr -h -d -m - d/link 2>&1 | grep -c posix_acl)"
            echo "create in d by 1234: $(u touch d/by1234)"
            umask 022
            chmod 2770 d; chgrp 2345 d 2>/dev/null; touch g; chown 1234:0 g; chmod 2775 g
            setpriv --reuid=1234 --regid=1234 --clear-groups setfacl -m u:1235:r g; stat -c '%a' g
            """;

    @TempDir
    Path tmp;

    @ParameterizedTest
    @EnumSource(value = TransportKind.class, names = {"DEV", "URING"})
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void memfsMatchesTmpfs(TransportKind transport) throws Exception {
        Probes.assumeTransport(transport);
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setfacl")) && Files.isExecutable(Path.of("/usr/bin/setpriv")),
                "needs setfacl (package acl) and setpriv");
        assumeTrue("root".equals(System.getProperty("user.name")), "needs root for setpriv");
        Probes.Probe probe = dir -> Probes.run("bash", SCRIPT, dir, 60);
        Probes.Probe openProbe = dir -> {
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
            return probe.on(dir);
        };
        String tmpfs = Probes.onTmpfs("acl", openProbe);
        MountOptions options = MountOptions.defaults().withAllowOther(true).withTransport(transport);
        String memfs = Probes.onMount(tmp, new MemFs(), options, probe);
        System.out.println("tmpfs:\n" + tmpfs);
        assertTrue(tmpfs.contains("read by 1234: ok") && tmpfs.contains("read by 1235: denied"), tmpfs);
        assertEquals(tmpfs, memfs);

        // passthrough over a tmpfs source: the ACLs live in the source, the result must be the same
        Path mnt = Files.createDirectory(tmp.resolve("pt"));
        String passthrough = Probes.onTmpfs("acl-src", source -> {
            Files.setPosixFilePermissions(source, PosixFilePermissions.fromString("rwxrwxrwx"));
            return Probes.onMount(mnt, new PassthroughFs(PassthroughFs.Options.of(source)), options, probe);
        });
        assertEquals(tmpfs, passthrough, "passthrough over tmpfs");
    }
}
