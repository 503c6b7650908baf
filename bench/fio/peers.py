"""The peers: how each is built from its package registry and how its server is started.

Nothing is vendored: libfuse's example comes from Debian's libfuse3-dev, jnr-fuse and jFUSE from Maven
Central (our filesystems written against them live in bench/peers/), go-fuse from the Go module proxy.
A build failure raises BuildError; the harness reports it and goes on with the other peers.
"""
import glob
import os
import shutil
import subprocess

from system import log, run

GO_FUSE_VERSION = "v2.12.1"    # pinned: the newest release on the Go module proxy when the harness was written
JNR_FUSE_VERSION = "0.5.8"     # must match bench/peers/jnr-fuse/pom.xml
JFUSE_VERSION = "0.7.3"        # must match bench/peers/jfuse/pom.xml


class BuildError(Exception):
    pass


def apt_install(*packages):
    """Installs Debian packages when missing (root only); BuildError when that is impossible."""
    missing = [p for p in packages
               if run(["dpkg-query", "-W", "-f=${Status}", p], timeout=30).stdout.find("install ok installed") < 0]
    if not missing:
        return
    if os.geteuid() != 0:
        raise BuildError(f"needs the Debian packages {' '.join(missing)} (run as root or install them)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    r = run(["apt-get", "install", "-y", "-qq", *missing], timeout=600, env=env)
    if r.returncode != 0:
        run(["apt-get", "update", "-qq"], timeout=600, env=env)
        r = run(["apt-get", "install", "-y", "-qq", *missing], timeout=600, env=env)
    if r.returncode != 0:
        raise BuildError(f"apt-get install {' '.join(missing)} failed: {r.stderr.strip()[-300:]}")


def deb_version(package):
    r = run(["dpkg-query", "-W", "-f=${Version}", package], timeout=30)
    return r.stdout.strip() or "?"


def checked(cmd, timeout, what, **kw):
    try:
        r = run(cmd, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        raise BuildError(f"{what}: timed out after {timeout}s")
    except OSError as e:
        raise BuildError(f"{what}: {e}")
    if r.returncode != 0:
        tail = "\n".join((r.stdout + r.stderr).strip().splitlines()[-8:])
        raise BuildError(f"{what} failed (exit {r.returncode}):\n{tail}")
    return r


def libfuse3_path():
    for p in sorted(glob.glob("/usr/lib/*/libfuse3.so.3") + glob.glob("/lib/*/libfuse3.so.3")):
        return p
    raise BuildError("libfuse3.so.3 not found (apt-get install libfuse3-3)")


class Builds:
    """Builds shared by several peers, done once per run; a failure is remembered and re-raised."""

    def __init__(self, ctx):
        self.ctx = ctx
        self.done = {}

    def get(self, key, fn):
        if key not in self.done:
            try:
                self.done[key] = ("ok", fn())
            except BuildError as e:
                self.done[key] = ("error", str(e))
        status, value = self.done[key]
        if status == "error":
            raise BuildError(value)
        return value

    # --- the builds -------------------------------------------------------------------------------
    def passthrough_ll(self):
        def build():
            apt_install("libfuse3-dev", "fuse3", "pkg-config", "gcc")
            src = "/usr/share/doc/libfuse3-dev/examples/passthrough_ll.c"
            if not os.path.exists(src):
                raise BuildError(f"{src} missing (Debian's libfuse3-dev ships it)")
            out = os.path.join(self.ctx.bin, "passthrough_ll")
            flags = checked(["pkg-config", "--cflags", "--libs", "fuse3"], 30, "pkg-config fuse3").stdout.split()
            cmd = ["gcc", "-O2", "-Wall", "-DHAVE_FALLOCATE", "-DHAVE_COPY_FILE_RANGE",
                   "-I", os.path.dirname(src), src, "-o", out, *flags]
            checked(cmd, 120, "compiling passthrough_ll")
            self.ctx.commands.append(" ".join(cmd))
            return {"bin": out, "version": f"libfuse {deb_version('libfuse3-dev')} (Debian libfuse3-dev)"}
        return self.get("passthrough_ll", build)

    def maven_peer(self, name, version_note):
        def build():
            pom = os.path.join(self.ctx.home, "bench", "peers", name, "pom.xml")
            cmd = ["mvn", "-B", "-q", "-Dstyle.color=never", "-f", pom, "package"]
            checked(cmd, 900, f"building the {name} peer (Maven Central)")
            self.ctx.commands.append(" ".join(cmd))
            target = os.path.join(os.path.dirname(pom), "target")
            return {"cp": f"{target}/classes:{target}/lib/*", "version": version_note}
        return self.get(name, build)

    def go_fuse(self, example):
        def build():
            if shutil.which("go") is None:
                raise BuildError("no Go toolchain (go) on PATH")
            gobin = os.path.join(self.ctx.bin, "go")
            os.makedirs(gobin, exist_ok=True)
            cmd = ["go", "install", f"github.com/hanwen/go-fuse/v2/example/{example}@{GO_FUSE_VERSION}"]
            checked(cmd, 900, f"go install go-fuse {example}", env=dict(os.environ, GOBIN=gobin, GOFLAGS="-mod=mod"))
            self.ctx.commands.append(f"GOBIN={gobin} " + " ".join(cmd))
            return {"bin": os.path.join(gobin, example), "version": f"go-fuse {GO_FUSE_VERSION}"}
        return self.get("go-fuse-" + example, build)

    def ringfuse(self):
        def build():
            script = os.path.join(self.ctx.home, "ringfuse")
            r = checked([script, "mount", "--help"], 900, "building the ringfuse CLI")
            rev = run(["git", "-C", self.ctx.home, "describe", "--always", "--dirty"], timeout=30).stdout.strip()
            return {"script": script, "help": r.stdout + r.stderr, "version": f"ringfuse {rev or '?'}"}
        return self.get("ringfuse", build)


class Peer:
    """One server to measure (servers inherit the environment: RINGFUSE_JAVA_OPTS reaches ringfuse's JVM). `start(ctx, builds, mnt, backing)` returns (argv, env) or None (kernel)."""

    def __init__(self, name, label, transport, language, start, needs_backing=False, available=None):
        self.name, self.label, self.transport, self.language = name, label, transport, language
        self._start = start
        self.needs_backing = needs_backing
        self.available = available  # optional: (builds) -> None or a reason to skip

    def command(self, ctx, builds, mnt, backing):
        return self._start(ctx, builds, mnt, backing)


def _passthrough_ll(single):
    def start(ctx, b, mnt, backing):
        info = b.passthrough_ll()
        argv = [info["bin"], "-f", *(["-s"] if single else []), "-o", f"source={backing}", mnt]
        return argv, None, info["version"]
    return start


def _jnr(ctx, b, mnt, backing):
    apt_install("libfuse2")  # jnr-fuse binds the libfuse 2 high-level API
    info = b.maven_peer("jnr-fuse", f"jnr-fuse {JNR_FUSE_VERSION} on libfuse {deb_version('libfuse2')}")
    argv = [ctx.java, "--enable-native-access=ALL-UNNAMED", "-cp", info["cp"],
            "dev.ringfuse.bench.peers.jnr.JnrMemFs", mnt, "-o", "big_writes"]
    return argv, None, info["version"]


def _jfuse(ctx, b, mnt, backing):
    apt_install("libfuse3-3")
    info = b.maven_peer("jfuse", f"jFUSE {JFUSE_VERSION} on libfuse {deb_version('libfuse3-3')}")
    argv = [ctx.java, "--enable-native-access=ALL-UNNAMED", f"-Dfuse.lib.path={libfuse3_path()}", "-cp", info["cp"],
            "dev.ringfuse.bench.peers.jfuse.JfuseMirror", backing, mnt]
    return argv, None, info["version"]


def _go_loopback(ctx, b, mnt, backing):
    info = b.go_fuse("loopback")
    return [info["bin"], "-q", mnt, backing], None, info["version"]


def _go_memfs(ctx, b, mnt, backing):
    info = b.go_fuse("memfs")
    # the example keeps file contents in files named <prefix><n>: the prefix points into the tmpfs
    return [info["bin"], mnt, os.path.join(backing, "data-")], None, info["version"]


def _ringfuse_memfs(transport):
    def start(ctx, b, mnt, backing):
        info = b.ringfuse()
        return [info["script"], "mount", "memfs", mnt, "--transport", transport], None, info["version"]
    return start


def _ringfuse_passthrough(mode, transport="dev"):
    # the transport named, not the CLI's auto (io_uring when enabled): until session 7 these peers were
    # labelled /dev/fuse but ran over io_uring whenever enable_uring was on
    def start(ctx, b, mnt, backing):
        info = b.ringfuse()
        return ([info["script"], "mount", "passthrough", backing, mnt, "--passthrough", mode,
                 "--transport", transport], None, info["version"])
    return start


def _ringfuse_sql_sqlite(transport):
    def start(ctx, b, mnt, backing):
        info = b.ringfuse()
        # the database file on the run's tmpfs, as memfs keeps its bytes in memory
        return ([info["script"], "mount", "sql", os.path.join(backing, "fs.db"), mnt, "--transport", transport], None,
                info["version"] + " + SQLite (sqlite-jdbc)")
    return start


def _ringfuse_sql_pg(ctx, b, mnt, backing):
    """A PostgreSQL server from Debian's package, its data directory on the run's tmpfs, stopped at exit."""
    import atexit
    import socket
    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not bins:
        apt_install("postgresql")
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not bins:
        raise BuildError("PostgreSQL is not installed (apt-get install postgresql)")
    pg = bins[-1]
    as_pg = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"] if os.geteuid() == 0 else []
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    os.chmod(backing, 0o755)
    with open(os.path.join(backing, "pw"), "w") as f:
        f.write("bench\n")
    if os.geteuid() == 0:
        shutil.chown(backing, "postgres", "postgres")
        shutil.chown(os.path.join(backing, "pw"), "postgres", "postgres")
    data = os.path.join(backing, "data")
    checked(as_pg + [os.path.join(pg, "initdb"), "-D", data, "-U", "postgres", "--pwfile=" + os.path.join(backing, "pw"),
                     "-A", "scram-sha-256", "--no-sync"], 120, "initdb")
    checked(as_pg + [os.path.join(pg, "pg_ctl"), "-D", data, "-w", "-l", os.path.join(backing, "log"), "-o",
                     f"-p {port} -k {backing} -c listen_addresses=127.0.0.1", "start"], 120, "pg_ctl start")
    def stop():
        if os.path.isdir(data):
            run(as_pg + [os.path.join(pg, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"], timeout=60)
    # stopped when the harness releases this peer (before its backing directory is removed), or at exit
    ctx.release_hooks.setdefault(backing, []).append(stop)
    atexit.register(stop)
    info = b.ringfuse()
    url = f"jdbc:postgresql://127.0.0.1:{port}/postgres?user=postgres&password=bench"
    version = run([os.path.join(pg, "postgres"), "--version"], timeout=30).stdout.strip()
    return [info["script"], "mount", "sql", url, mnt, "--transport", "dev"], None, info["version"] + " + " + version


def _needs_sql_cli(b):
    if "sql" not in b.ringfuse()["help"]:
        return "this ringfuse CLI has no sql filesystem (branch sql)"
    return None


def _needs_uring(b):
    try:
        with open("/sys/module/fuse/parameters/enable_uring") as f:
            if f.read().strip() not in ("Y", "1"):
                return "FUSE-over-io_uring is off (/sys/module/fuse/parameters/enable_uring)"
    except OSError:
        return "this kernel has no FUSE-over-io_uring (enable_uring parameter absent)"
    return None


def _needs_passthrough_cli(b):
    help_text = b.ringfuse()["help"]
    if "passthrough" not in help_text:
        return "this ringfuse CLI has no passthrough filesystem yet (branch pathapi)"
    return None


def all_peers():
    """In the order they run: the kernel limit first, then C, the Java peers, Go, and ringfuse."""
    return [
        Peer("kernel-tmpfs", "kernel tmpfs (the limit)", "kernel", "kernel", None),
        Peer("libfuse-passthrough_ll-mt", "libfuse passthrough_ll, multi-threaded", "dev", "C",
             _passthrough_ll(False), needs_backing=True),
        Peer("libfuse-passthrough_ll-st", "libfuse passthrough_ll, single-threaded (-s)", "dev", "C",
             _passthrough_ll(True), needs_backing=True),
        Peer("jnr-fuse-memfs", "jnr-fuse memory FS", "dev", "Java", _jnr),
        Peer("jfuse-mirror", "jFUSE mirror", "dev", "Java", _jfuse, needs_backing=True),
        Peer("go-fuse-loopback", "go-fuse loopback (FUSE passthrough: the kernel reads and writes the backing file)", "dev", "Go", _go_loopback, needs_backing=True),
        Peer("go-fuse-memfs", "go-fuse memfs example", "dev", "Go", _go_memfs, needs_backing=True),
        Peer("ringfuse-memfs-dev", "ringfuse memfs, /dev/fuse", "dev", "Java", _ringfuse_memfs("dev")),
        Peer("ringfuse-memfs-uring", "ringfuse memfs, io_uring", "uring", "Java", _ringfuse_memfs("uring"),
             available=_needs_uring),
        Peer("ringfuse-passthrough", "ringfuse passthrough (--passthrough auto: kernel passthrough where offered)",
             "dev", "Java", _ringfuse_passthrough("auto"), needs_backing=True, available=_needs_passthrough_cli),
        # off: the daemon serves every read and write, like libfuse passthrough_ll (libfuse 3.14 has no
        # kernel passthrough), so this is the like-for-like comparison with the C peer
        Peer("ringfuse-passthrough-off", "ringfuse passthrough (--passthrough off: the daemon moves the data), /dev/fuse",
             "dev", "Java", _ringfuse_passthrough("off"), needs_backing=True, available=_needs_passthrough_cli),
        Peer("ringfuse-passthrough-off-uring", "ringfuse passthrough (--passthrough off), io_uring",
             "uring", "Java", _ringfuse_passthrough("off", "uring"), needs_backing=True,
             available=lambda b: _needs_uring(b) or _needs_passthrough_cli(b)),
        Peer("ringfuse-sql-sqlite", "ringfuse sql on SQLite (file on tmpfs), /dev/fuse", "dev", "Java",
             _ringfuse_sql_sqlite("dev"), needs_backing=True, available=_needs_sql_cli),
        Peer("ringfuse-sql-pg", "ringfuse sql on PostgreSQL (data on tmpfs, localhost), /dev/fuse", "dev", "Java",
             _ringfuse_sql_pg, needs_backing=True, available=_needs_sql_cli),
    ]
