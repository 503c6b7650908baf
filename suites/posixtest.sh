#!/usr/bin/env bash
# Run every test of go-fuse's posixtest package against a mounted directory.
# See suites/README.md.
set -euo pipefail

SUITE_NAME=posixtest
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

TIMEOUT=${POSIXTEST_TIMEOUT:-600}

usage() {
    cat <<EOF
usage: $0 [options] <dir> [label] [-- test binary flags, e.g. -test.run 'TestPosix/Link$']

Runs each test of github.com/hanwen/go-fuse/v2/posixtest (version pinned in
suites/posixtest/go.mod) in its own fresh subdirectory of <dir>.

options:
  --max-failures N   exit 1 if more than N tests fail (default: never)
  -h, --help         this text

environment:
  LOGDIR              where the full output goes (default /tmp)
  POSIXTEST_TIMEOUT   seconds for the whole 'go test' run (default 600)
  POSIXTEST_KEEP      if set, keep each test's subdirectory (default: removed)

Prints '$SUITE_NAME <label>: N passed, M failed, K skipped'. Exit code 0 when the
run completed, 1 when --max-failures was exceeded, 2 on setup errors or an
incomplete run (build failure, crash, timeout).
EOF
}

parse_args "$@"
is_uint "$TIMEOUT" || die "POSIXTEST_TIMEOUT must be whole seconds, got '$TIMEOUT'"
LOG="$LOG_STEM.log"

# ---------------------------------------------------------------- toolchain
export PATH="$PATH:/usr/local/go/bin"
command -v go >/dev/null || die "go not found (looked in PATH and /usr/local/go/bin); needs Go >= 1.22"
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=mod"

# Compile first (downloads the pinned modules on a fresh machine), so that a
# build problem is reported as such and not as a test failure.
BUILD_LOG="$LOG_STEM.build.log"
TESTBIN=$(mktemp -d)/posixtest.test
trap 'rm -rf "$(dirname "$TESTBIN")"' EXIT
(cd "$HERE/posixtest" && go test -c -o "$TESTBIN" .) >"$BUILD_LOG" 2>&1 ||
    { show_tail "$BUILD_LOG"; die "building the posixtest runner failed (log: $BUILD_LOG)"; }

# ---------------------------------------------------------------- run
{
    echo "# posixtest in $DIR (label $LABEL), uid $EUID, $(date -u +%FT%TZ)"
    echo "# $(go version); $(cd "$HERE/posixtest" && go list -m github.com/hanwen/go-fuse/v2)"
} >"$LOG"
rc=0
(
    cd "$HERE/posixtest"
    POSIXTEST_DIR=$DIR timeout -k 30 $((TIMEOUT + 60)) \
        "$TESTBIN" -test.count=1 -test.v -test.timeout "${TIMEOUT}s" "${EXTRA_ARGS[@]}"
) >>"$LOG" 2>&1 || rc=$?

# Subtest result lines look like '    --- PASS: TestPosix/Name (0.01s)'.
count() { grep -cE "^ +--- $1: TestPosix/" "$LOG" || true; }
passed=$(count PASS)
failed=$(count FAIL)
skipped=$(count SKIP)
mapfile -t failed_names < <(grep -E '^ +--- FAIL: TestPosix/' "$LOG" | sed -E 's#.*TestPosix/([^ ]+).*#\1#')

# A finished run ends TestPosix with its own PASS/FAIL line; a panic or a
# timeout kills the binary before that.
if ! grep -qE '^--- (PASS|FAIL): TestPosix ' "$LOG"; then
    show_tail "$LOG"
    echo "$SUITE_NAME $LABEL (incomplete): $passed passed, $failed failed, $skipped skipped" >&2
    ((rc == 124 || rc == 137)) && die "go test was killed after $((TIMEOUT + 60)) s (log: $LOG)"
    die "the run did not complete (exit $rc; a test panicked or timed out; log: $LOG)"
fi
finish "$passed" "$failed" "$skipped" "${failed_names[@]}"
