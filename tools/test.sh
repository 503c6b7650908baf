#!/usr/bin/env bash
# The project's test command (`./ringfuse test`): installs what the tests need, enables FUSE-over-io_uring,
# runs every module's tests on real mounts, then the external suites (pjdfstest, go-fuse posixtest, fsx)
# against memfs and passthrough (kernel passthrough on and off), each with and without default_permissions,
# sql (SQLite; PostgreSQL on one transport), a pool dataset, and on one transport each a clone and a
# dataset received by send/receive (then `pool verify`), and ends with one summary line.
#   --no-java       skip the Java tests (mvn verify): with RINGFUSE_EXTERNAL_FS and RINGFUSE_TRANSPORTS, a
#                   run of some external suites alone, e.g.
#                   RINGFUSE_EXTERNAL_FS='pool-clone pool-recv' RINGFUSE_TRANSPORTS=dev ./ringfuse test --no-java --no-bench --no-examples
#   --no-external   skip the external suites
#   --no-bench      skip the smoke run of the fio benchmark harness
#   --no-examples   skip examples/run.sh (install into target/examples-m2, build and run the examples)
#   --fresh         run as on a freshly booted machine: in a private mount namespace where fusectl is not
#                   mounted, with an empty environment (what CI does, so that a run never depends on what an
#                   earlier run left on the machine)
# The run fails if it leaves a FUSE mount behind or anything new in `git status --porcelain`; with --fresh
# what the tests left (FUSE mounts, loop devices on files in them) is also taken down, however the run ends.
set -euo pipefail
RINGFUSE_HOME=${RINGFUSE_HOME:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$RINGFUSE_HOME"
java=1
external=1
bench=1
examples=1
fresh=0
for a in "$@"; do
  case "$a" in
    --no-java) java=0 ;;
    --no-external) external=0 ;;
    --no-bench) bench=0 ;;
    --no-examples) examples=0 ;;
    --fresh) fresh=1 ;;
    *) echo "usage: ringfuse test [--no-java] [--no-external] [--no-bench] [--no-examples] [--fresh]" >&2; exit 2 ;;
  esac
done

# CI runs on a machine that earlier runs (and sessions) left mounted and configured: there the run is always
# --fresh, so that it passes or fails as on a freshly booted machine.
[ "${CI:-}" = true ] && fresh=1
# A fresh boot has no fusectl at /sys/fs/fuse/connections until something mounts it (the abort tests do),
# and mount(8)/CI give an almost empty environment. --fresh re-runs this script like that, in a private
# mount namespace so that the machine's own fusectl mount (and other users' mounts) stay as they are.
if [ $fresh = 1 ] && [ -z "${RINGFUSE_FRESH_NS:-}" ]; then
  [ "$(id -u)" = 0 ] || { echo "ringfuse test --fresh: needs root (unshare --mount)" >&2; exit 2; }
  args=()
  for a in "$@"; do [ "$a" = --fresh ] || args+=("$a"); done
  exec unshare --mount --propagation private env -i RINGFUSE_FRESH_NS=1 ${LOGDIR:+LOGDIR="$LOGDIR"} \
    /bin/bash -c 'umount /sys/fs/fuse/connections 2>/dev/null || true; exec "$0" "$@"' "$RINGFUSE_HOME/ringfuse" test "${args[@]}"
fi
# Java names files in the locale's charset: under `env -i` (mount(8), CI --fresh) that is ASCII and a
# non-ASCII path fails, so take a UTF-8 locale when none is set (C.UTF-8 is in every glibc since 2.35)
case "${LC_ALL:-${LC_CTYPE:-${LANG:-}}}" in *UTF-8*|*utf-8*|*utf8*|*UTF8*) ;; *) export LC_ALL=C.UTF-8 ;; esac
# mount(8), cron and `env -i` give no HOME; Maven, cargo and pip want one
if [ -z "${HOME:-}" ]; then HOME=$(getent passwd "$(id -u)" | cut -d: -f6); HOME=${HOME:-/root}; export HOME; fi
export PATH=${PATH:-/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin}

log() { echo "== $*"; }
LOGDIR=${LOGDIR:-$RINGFUSE_HOME/target/test-logs}
export LOGDIR
mkdir -p "$LOGDIR"

# FUSE filesystem mounts only: fuse, fuseblk, fuse.<subtype>. Not fusectl, the control filesystem the abort
# tests mount at /sys/fs/fuse/connections when nothing had (a fresh boot): it is no mount of a test.
fuse_mounts() { awk '$3 == "fuse" || $3 == "fuseblk" || $3 ~ /^fuse[.]/ {print $2}' /proc/self/mounts | sort; }
mounts_before=$(fuse_mounts)
left_mounts() { comm -13 <(echo "$mounts_before") <(fuse_mounts); }
# loop devices on files under mount point $1 (a test's volume under ext4): they pin the FUSE mount, and they
# are the machine's, not the mount namespace's, so they outlive even a --fresh run
loops_under() { losetup --list --noheadings --output NAME,BACK-FILE 2>/dev/null | awk -v p="$1/" 'index($2, p) == 1 {print $1}'; }
take_down() { # mount point $1: the loop devices on files in it and what is mounted from them, then the mount
  local dev m
  for dev in $(loops_under "$1"); do
    for m in $(awk -v d="$dev" '$1 == d {print $2}' /proc/self/mounts); do umount -l "$m" || true; done
    losetup -d "$dev" || true
  done
  umount -l "$1" || true
}
# every way out (the end, set -e, Ctrl-C, timeout): the external step the run stopped in, then what the tests
# left. Taken down only in the private mount namespace of --fresh (CI), where every new mount is this run's:
# in the machine's own namespace a mount that appeared meanwhile may be another user's (reported below only)
source "$RINGFUSE_HOME/tools/external.sh"
on_exit() {
  ext_cleanup
  if [ -n "${RINGFUSE_FRESH_NS:-}" ]; then
    local m
    for m in $(left_mounts); do take_down "$m"; done
  fi
  return 0 # the run's own status stands
}
trap on_exit EXIT
# what the tree looked like before: a run may not add to it (fio state files, logs, images, ...)
tree_status() { git -C "$RINGFUSE_HOME" status --porcelain --untracked-files=all 2>/dev/null | sort; }
in_git=0
git -C "$RINGFUSE_HOME" rev-parse --is-inside-work-tree >/dev/null 2>&1 && in_git=1
tree_before=$(tree_status)

# --- what the tests need from the system -----------------------------------------------------------
need=()
command -v fusermount3 >/dev/null || need+=(fuse3)
command -v fio >/dev/null || need+=(fio)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
command -v setpriv >/dev/null || need+=(util-linux)
command -v setfacl >/dev/null || need+=(acl)          # the POSIX ACL scenarios and memfs AclTest
command -v python3 >/dev/null || need+=(python3)
ls -d /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql) # sqlfs tests start a real server
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "ringfuse test: needs root to install ${need[*]} (or install them yourself)" >&2; exit 2; }
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null; }
fi
# the external suites build pjdfstest and fsx (Rust >= 1.85) and go-fuse's posixtest (Go >= 1.22); Debian's
# packages are older, so a fresh machine needs rustup and a Go toolchain: say so now, not after the Java run
if [ $external = 1 ]; then
  export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH:/usr/local/go/bin"
  missing=()
  { command -v pjdfstest && command -v fsx; } >/dev/null || command -v cargo >/dev/null || missing+=("Rust >= 1.85 for pjdfstest and fsx (curl --proto '=https' -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal)")
  command -v go >/dev/null || missing+=("Go >= 1.22 for go-fuse posixtest (https://go.dev/dl, into /usr/local/go)")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "ringfuse test: the external suites need:" >&2
    printf '  %s\n' "${missing[@]}" >&2
    echo "install them, or run: ringfuse test --no-external" >&2
    exit 2
  fi
fi
# FUSE-over-io_uring is off until root turns it on (it must be on before the mount)
if [ -w /sys/module/fuse/parameters/enable_uring ]; then echo 1 > /sys/module/fuse/parameters/enable_uring; fi
log "enable_uring=$(cat /sys/module/fuse/parameters/enable_uring 2>/dev/null || echo absent)"

# --- the Java tests: every module, on real mounts ---------------------------------------------------
mvn_status=0
if [ $java = 1 ]; then
  log "mvn verify"
  # Maven's own status goes through a file: with pipefail, `|| true` (a grep that matched nothing) would run
  # whenever Maven failed and leave PIPESTATUS holding true's 0 — a failed build then passed the run
  { mvn -B -fae -Dstyle.color=never verify 2>&1; echo $? > "$LOGDIR/mvn.status"; } | grep -v '^WARNING: ' \
    | tee "$LOGDIR/mvn.log" | grep -E 'Tests run:|FAIL|ERROR|BUILD' || true
  mvn_status=$(cat "$LOGDIR/mvn.status" 2>/dev/null || echo 1)
fi

count() { # sums an attribute over the surefire reports; 0 when there are none (a build that failed early:
  # a grep that matched nothing failed the pipeline, and set -e ended the run here without a word)
  { find . -path '*/target/surefire-reports*/TEST-*.xml' -exec grep -ho "<testsuite [^>]*" {} + 2>/dev/null || true; } \
    | awk -v a=" $1=\"" '{ i = index($0, a); if (i) s += substr($0, i + length(a)) + 0 } END { print s + 0 }'
}
java_tests=0; java_failed=0; java_skipped=0
if [ $java = 1 ]; then java_tests=$(count tests); java_failed=$(( $(count failures) + $(count errors) )); java_skipped=$(count skipped); fi
log "java tests: $((java_tests - java_failed - java_skipped)) passed, $java_failed failed, $java_skipped skipped"

# --- external suites against memfs, passthrough (kernel passthrough on and off) and sql ---------------
# each step cleans up after itself on any way out, and the EXIT trap takes down a step the run stopped in
if [ $external = 1 ]; then
  for t in ${RINGFUSE_TRANSPORTS:-dev uring}; do
    for f in ${RINGFUSE_EXTERNAL_FS:-memfs passthrough-on passthrough-off sql-sqlite pool}; do
      # every filesystem twice: with default_permissions (the kernel checks) and without (it checks);
      # a run of both suites takes about 20 s
      variants=${RINGFUSE_EXTERNAL_VARIANTS:-dp nodp}
      case $f in sql-*|pool*) variants=dp ;; esac   # sql and pool leave permission checks to the kernel (default_permissions)
      for v in $variants; do
        log "external suites on $f, transport $t, $([ "$v" = nodp ] && echo no_default_permissions || echo default_permissions)"
        run_external "$t" "$f" "$v"
      done
    done
  done
  # sql on PostgreSQL: one transport keeps the run short (the database, not the transport, is what differs)
  if [ -z "${RINGFUSE_EXTERNAL_FS:-}" ]; then
    log "external suites on sql-pg, transport dev"
    run_external dev sql-pg
    # a clone of a pool snapshot and a dataset received from a full and an incremental stream (after checking
    # that each shows its snapshot's tree): one transport each, as the plain pool dataset runs on both (what
    # differs is how the dataset was made, not how it is served); 31 s and 2 min (a dozen CLI starts) measured
    # at load average 17-26 on 2 CPUs
    log "external suites on a pool clone (pool-clone), transport uring"
    run_external uring pool-clone
    log "external suites on a received pool dataset (pool-recv), transport dev"
    run_external dev pool-recv
  fi
fi

# --- smoke run of the fio benchmark harness ---------------------------------------------------------
# Checks that the harness still works end to end; the figures are not asserted (a shared 2-CPU machine
# cannot time anything). A peer that fails to build is reported by the harness and exits 0; a harness
# crash exits non-zero and fails the run. Results go to target/bench-fio-quick, never docs/bench.
bench_status=0
if [ $bench = 1 ]; then
  log "bench fio --quick (smoke run, not timed)"
  if ! timeout 900 "$RINGFUSE_HOME/ringfuse" bench fio --quick \
      --only 'kernel-tmpfs,libfuse-passthrough_ll-mt,jnr-fuse-memfs,ringfuse-*' >"$LOGDIR/bench-fio.log" 2>&1; then
    echo "bench fio --quick crashed:"; tail -20 "$LOGDIR/bench-fio.log"; bench_status=1
  else
    grep -E 'BUILD FAILED|FAILED|done in' "$LOGDIR/bench-fio.log" || true
  fi
fi

# --- examples/: separate Maven projects against the installed artifacts (in a repository of their own) --
examples_status=0
if [ $examples = 1 ]; then
  log "examples (install into target/examples-m2, build, mount on class and module path, test)"
  if ! timeout 1200 "$RINGFUSE_HOME/examples/run.sh" --repo "$RINGFUSE_HOME/target/examples-m2" >"$LOGDIR/examples.log" 2>&1; then
    echo "examples failed:"; tail -20 "$LOGDIR/examples.log"; examples_status=1
  else
    grep -E 'class-path|module-path|Tests run|passed' "$LOGDIR/examples.log" || true
  fi
fi

left=$(left_mounts)
if [ -n "$left" ]; then
  echo "FUSE mounts left behind by the tests:"; echo "$left"; mvn_status=1
  for m in $left; do loops_under "$m" | sed "s|\$| on a file in $m|"; done
fi
if [ $in_git = 1 ]; then
  dirty=$(comm -13 <(echo "$tree_before") <(tree_status))
  if [ -n "$dirty" ]; then
    echo "the run changed the source tree (write under target/ or a temp dir, or add it to .gitignore):"
    echo "$dirty" | head -20; mvn_status=1
  fi
fi

passed=$((java_tests - java_failed - java_skipped + ext_passed))
failed=$((java_failed + ext_failed))
echo "tests: $passed passed, $failed failed, $java_skipped skipped"
[ "$mvn_status" = 0 ] && [ "$ext_status" = 0 ] && [ "$bench_status" = 0 ] && [ "$examples_status" = 0 ]
