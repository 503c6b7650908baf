#!/usr/bin/env bash
# Run fsx (the File System eXerciser) against a mounted directory: several seeds at once, each on a file
# of its own. See suites/README.md.
set -euo pipefail

SUITE_NAME=fsx
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=lib.sh
source "$HERE/lib.sh"

FSX_VERSION=${FSX_VERSION:-0.3.2}
OPS=${FSX_OPS:-20000}
SEEDS=${FSX_SEEDS:-4}
TIMEOUT=${FSX_TIMEOUT:-600}

usage() {
    cat <<EOF
usage: $0 [options] <dir> [label]

Runs fsx $FSX_VERSION (crates.io, installed with 'cargo install' if needed) $SEEDS times at once inside
<dir>, each run on a file of its own with its own seed, $OPS operations each: reads, writes, mmap reads
and writes, msync invalidation, truncate, fsync, fdatasync, posix_fallocate, hole punching, sendfile,
posix_fadvise, copy_file_range and close/reopen (suites/fsx/fsx.toml). Every third run uses files of up
to 32 MiB and operations of up to 1 MiB. fsx checks every byte it reads against its model of the file.

options:
  --max-failures N   exit 1 if more than N runs fail (default: never)
  -h, --help         this text

environment:
  LOGDIR        where the output goes (default /tmp): fsx-<label>.log, and a failing run's fsx artifacts
  FSX_OPS       operations per run (default 20000)
  FSX_SEEDS     runs (default 4); run i uses seed i * 7919, so a failure is replayed with fsx -S
  FSX_TIMEOUT   seconds for each run (default 600)

Prints '$SUITE_NAME <label>: N passed, M failed, 0 skipped'. Exit code 0 when every run ended, 1 when
--max-failures was exceeded, 2 on setup errors or a run that did not end (timeout).
EOF
}

parse_args "$@"
is_uint "$OPS" || die "FSX_OPS must be a whole number, got '$OPS'"
{ is_uint "$SEEDS" && ((SEEDS > 0)); } || die "FSX_SEEDS must be a positive whole number, got '$SEEDS'"
is_uint "$TIMEOUT" || die "FSX_TIMEOUT must be whole seconds, got '$TIMEOUT'"
LOG="$LOG_STEM.log"
INSTALL_LOG="$LOG_STEM.install.log"

# ---------------------------------------------------------------- install
CARGO_BIN=${CARGO_HOME:-$HOME/.cargo}/bin
export PATH="$CARGO_BIN:$PATH"
have_fsx() { [[ $(fsx --version 2>/dev/null) == "fsx $FSX_VERSION" ]]; }
if ! have_fsx; then
    command -v cargo >/dev/null || die "cargo not found (looked in PATH and $CARGO_BIN)"
    mkdir -p "$CARGO_BIN"
    exec 9>"$CARGO_BIN/.fsx-install.lock" # one compile when several runs start at once
    flock 9
    if ! have_fsx; then
        start=$SECONDS
        cargo install --locked --quiet fsx --version "=$FSX_VERSION" >>"$INSTALL_LOG" 2>&1 ||
            { show_tail "$INSTALL_LOG"; die "cargo install fsx failed (log: $INSTALL_LOG)"; }
        have_fsx || die "fsx $FSX_VERSION still not runnable after cargo install"
        echo "$SUITE_NAME: installed fsx $FSX_VERSION in $((SECONDS - start)) s" >&2
    fi
    flock -u 9
    exec 9>&-
fi

# ---------------------------------------------------------------- run
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp "$HERE/fsx/fsx.toml" "$WORK/small.toml"
sed -e 's/^flen = .*/flen = 33554432/' -e 's/^max = .*/max = 1048576/' "$HERE/fsx/fsx.toml" >"$WORK/large.toml"
kind() { if (($1 % 3 == 0)); then echo large; else echo small; fi; }
echo "# fsx $FSX_VERSION in $DIR (label $LABEL), $SEEDS runs of $OPS operations, uid $EUID, $(date -u +%FT%TZ)" >"$LOG"
pids=()
for i in $(seq 1 "$SEEDS"); do
    mkdir -p "$WORK/$i"
    # -P: where fsx leaves its artifacts (the good and the bad file, its log) when a run fails
    (cd "$WORK/$i" && rc=0 && timeout -k 10 "$TIMEOUT" fsx -f "$WORK/$(kind "$i").toml" -N "$OPS" -S $((i * 7919)) \
        -P "$WORK/$i" "$DIR/fsx-$i" >"$WORK/$i/out" 2>&1 || rc=$?; echo "$rc" >"$WORK/$i/rc") &
    pids+=($!)
done
wait "${pids[@]}"
passed=0 failed=0 incomplete=0 names=()
for i in $(seq 1 "$SEEDS"); do
    rc=$(cat "$WORK/$i/rc")
    { echo "## run $i: seed $((i * 7919)), $(kind "$i") files, exit $rc"; tail -50 "$WORK/$i/out"; } >>"$LOG"
    if ((rc == 0)) && grep -q "All operations completed A-OK" "$WORK/$i/out"; then
        passed=$((passed + 1))
        continue
    fi
    failed=$((failed + 1))
    names+=("seed=$((i * 7919))/$(kind "$i")")
    ((rc == 124 || rc == 137)) && incomplete=$((incomplete + 1))
    for a in "$WORK/$i"/*; do
        [[ -f $a && $a != */rc ]] && cp "$a" "$LOG_STEM-run$i-$(basename "$a")"
    done
done
if ((incomplete > 0)); then
    show_tail "$LOG"
    echo "$SUITE_NAME $LABEL (incomplete): $passed passed, $failed failed, 0 skipped" >&2
    die "$incomplete run(s) did not end within $TIMEOUT s (log: $LOG)"
fi
rm -f "$DIR"/fsx-*
finish "$passed" "$failed" 0 "${names[@]}"
