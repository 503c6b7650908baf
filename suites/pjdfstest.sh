#!/usr/bin/env bash
# Run pjdfstest (the Rust rewrite, from crates.io) against a mounted directory.
# See suites/README.md.
set -euo pipefail

SUITE_NAME=pjdfstest
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

PJDFSTEST_VERSION=${PJDFSTEST_VERSION:-0.2.2}
NAPTIME=${PJDFSTEST_NAPTIME:-0.05}
TIMEOUT=${PJDFSTEST_TIMEOUT:-3600}
# Second dummy user/group (the first one is nobody). Created if missing.
DUMMY_USER=${PJDFSTEST_DUMMY_USER:-tests}

usage() {
    cat <<EOF
usage: $0 [options] <dir> [label] [-- test-name-patterns...]

Runs pjdfstest $PJDFSTEST_VERSION inside <dir> (which must be writable and
should be empty apart from what pjdfstest creates), installing it first with
'cargo install' if needed.

options:
  --max-failures N      exit 1 if more than N tests fail (default: never)
  --secondary-fs DIR    a directory on another filesystem, enables the EXDEV tests
  --config FILE         use this pjdfstest TOML config instead of the generated one
  -h, --help            this text

environment:
  LOGDIR               where the full output goes (default /tmp)
  PJDFSTEST_NAPTIME    seconds between timestamp-sensitive steps (default 0.05)
  PJDFSTEST_TIMEOUT    seconds before the run is killed (default 3600)
  PJDFSTEST_VERSION    crate version to install (default $PJDFSTEST_VERSION)

Prints '$SUITE_NAME <label>: N passed, M failed, K skipped'. Exit code 0 when the
run completed, 1 when --max-failures was exceeded, 2 on setup errors or an
incomplete run (crash, timeout).
EOF
}

SECONDARY_FS=""
USER_CONFIG=""
suite_option() {
    case $1 in
        --secondary-fs) SECONDARY_FS=$2 ;;
        --config) USER_CONFIG=$2 ;;
        *) return 1 ;;
    esac
}

parse_args "$@"
[[ $NAPTIME =~ ^[0-9]*\.?[0-9]+$ ]] || die "PJDFSTEST_NAPTIME must be a number of seconds, got '$NAPTIME'"
is_uint "$TIMEOUT" || die "PJDFSTEST_TIMEOUT must be whole seconds, got '$TIMEOUT'"
if [[ -n $SECONDARY_FS ]]; then
    # pjdfstest runs from inside <dir>: a relative path would resolve there.
    [[ -d $SECONDARY_FS ]] || die "--secondary-fs '$SECONDARY_FS' is not a directory"
    SECONDARY_FS=$(cd "$SECONDARY_FS" && pwd -P)
fi
if [[ -n $USER_CONFIG ]]; then
    [[ -f $USER_CONFIG ]] || die "--config '$USER_CONFIG' is not a file"
    USER_CONFIG=$(cd "$(dirname "$USER_CONFIG")" && pwd -P)/$(basename "$USER_CONFIG")
fi
LOG="$LOG_STEM.log"
INSTALL_LOG="$LOG_STEM.install.log"

# ---------------------------------------------------------------- install
CARGO_BIN=${CARGO_HOME:-$HOME/.cargo}/bin
export PATH="$CARGO_BIN:$PATH"

have_pjdfstest() {
    local v
    v=$(pjdfstest --version 2>/dev/null) || return 1
    [[ $v == "pjdfstest $PJDFSTEST_VERSION" ]]
}

install_pjdfstest() {
    command -v cargo >/dev/null ||
        die "cargo not found (looked in PATH and $CARGO_BIN); pjdfstest needs Rust >= 1.85"
    # exacl (a dependency) links against libacl.so, shipped by libacl1-dev.
    if [[ ! -e /usr/include/sys/acl.h ]] && ! ldconfig -p 2>/dev/null | grep -q 'libacl\.so '; then
        if ! dpkg -s libacl1-dev >/dev/null 2>&1; then
            ((EUID == 0)) || die "libacl1-dev is missing and we are not root: apt-get install libacl1-dev"
            { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libacl1-dev; } \
                >>"$INSTALL_LOG" 2>&1 || { show_tail "$INSTALL_LOG"; die "apt-get install libacl1-dev failed"; }
        fi
    fi
    local start=$SECONDS
    cargo install --locked --quiet pjdfstest --version "=$PJDFSTEST_VERSION" >>"$INSTALL_LOG" 2>&1 ||
        { show_tail "$INSTALL_LOG"; die "cargo install pjdfstest failed (log: $INSTALL_LOG)"; }
    have_pjdfstest || die "pjdfstest $PJDFSTEST_VERSION still not runnable after cargo install"
    echo "$SUITE_NAME: installed pjdfstest $PJDFSTEST_VERSION in $((SECONDS - start)) s" >&2
}

if ! have_pjdfstest; then
    # Serialise concurrent runs so only one of them compiles.
    mkdir -p "$CARGO_BIN"
    exec 9>"$CARGO_BIN/.pjdfstest-install.lock"
    flock 9
    have_pjdfstest || install_pjdfstest
    flock -u 9
    exec 9>&-
fi

# ---------------------------------------------------------------- dummy users
# Tests that switch credentials (chown, permission checks, sticky bit...) need
# two unprivileged users, each with its own primary group.
getent passwd nobody >/dev/null || die "user 'nobody' does not exist"
NOBODY_GROUP=$(id -gn nobody)
if ! getent passwd "$DUMMY_USER" >/dev/null; then
    ((EUID == 0)) || die "dummy user '$DUMMY_USER' is missing and we are not root to create it"
    getent group "$DUMMY_USER" >/dev/null || groupadd --system "$DUMMY_USER"
    useradd --system --gid "$DUMMY_USER" --no-create-home --home-dir / \
        --shell /usr/sbin/nologin --comment "pjdfstest dummy user" "$DUMMY_USER"
fi
DUMMY_GROUP=$(id -gn "$DUMMY_USER")

# ---------------------------------------------------------------- config
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [[ -n $USER_CONFIG ]]; then
    CONFIG=$USER_CONFIG
else
    CONFIG=$TMP/pjdfstest.toml
    # Features of a tmpfs-like Linux filesystem. Not enabled: chflags,
    # chflags_sf_snapshot, stat_st_birthtime, nfsv4_acls (BSD-only or not
    # applicable). allow_remount stays off: the EROFS tests would remount the
    # filesystem under test read-only.
    cat >"$CONFIG" <<EOF
[features]
posix_fallocate = {}
rename_ctime = {}
utime_now = {}
utimensat = {}

[settings]
naptime = $NAPTIME
allow_remount = false

[dummy_auth]
entries = [
  ["nobody", "$NOBODY_GROUP"],
  ["$DUMMY_USER", "$DUMMY_GROUP"],
]
EOF
fi

# ---------------------------------------------------------------- run
args=(-c "$CONFIG" -p .)
[[ -n $SECONDARY_FS ]] && args+=(-s "$SECONDARY_FS")
args+=("${EXTRA_ARGS[@]}")
{
    echo "# pjdfstest $PJDFSTEST_VERSION in $DIR (label $LABEL), uid $EUID, $(date -u +%FT%TZ)"
    echo "# pjdfstest ${args[*]}"
    sed 's/^/# /' "$CONFIG"
} >"$LOG"
before=$(LC_ALL=C ls -A "$DIR")
rc=0
# Run from inside the directory with a relative path. pjdfstest exits non-zero
# when any test fails; that is counted below, not treated as an error.
(cd "$DIR" && NO_COLOR=1 CLICOLOR=0 timeout -k 30 "$TIMEOUT" pjdfstest "${args[@]}") >>"$LOG" 2>&1 || rc=$?
# pjdfstest works in a temporary directory that it removes at the end; if it
# completed and something is left, removal failed (unlink/rmdir trouble).
leftover=$(LC_ALL=C comm -13 <(printf '%s\n' "$before") <(LC_ALL=C ls -A "$DIR") | tr '\n' ' ')
if [[ -n ${leftover// /} ]]; then
    echo "# warning: left behind in $DIR: $leftover" >>"$LOG"
    echo "$SUITE_NAME: warning: pjdfstest left behind in $DIR: $leftover" >&2
fi
# Strip colour codes in case the terminal detection disagreed with NO_COLOR.
sed -i 's/\x1b\[[0-9;]*m//g' "$LOG"

summary=$(grep -E '^Summary: [0-9]+ failed, [0-9]+ skipped, [0-9]+ passed' "$LOG" | tail -n 1 || true)
if [[ -z $summary ]]; then
    show_tail "$LOG"
    ((rc == 124 || rc == 137)) && die "pjdfstest timed out after $TIMEOUT s (log: $LOG)"
    die "pjdfstest did not complete (exit $rc, log: $LOG)"
fi
read -r failed skipped passed expected < <(
    sed -E 's/^Summary: ([0-9]+) failed, ([0-9]+) skipped, ([0-9]+) passed, ([0-9]+) expected failures.*/\1 \2 \3 \4/' <<<"$summary"
)
# Failures listed in the config's expected_failures count as failures here:
# the baseline is tracked in suites/README.md, not in the config.
failed=$((failed + expected))
mapfile -t failed_names < <(grep -E ' (FAILED|PASSED UNEXPECTEDLY|failed as expected)$' "$LOG" | awk '{print $1}')
finish "$passed" "$failed" "$skipped" "${failed_names[@]}"
