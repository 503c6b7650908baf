#!/usr/bin/env bash
# The project's test command (`./ringfuse test`): installs what the tests need, enables FUSE-over-io_uring,
# runs every module's tests on real mounts, then the external suites (pjdfstest, go-fuse posixtest)
# against memfs and passthrough (kernel passthrough on and off), each with and without default_permissions,
# and ends with one summary line.
#   --no-external   skip the external suites
#   --no-bench      skip the smoke run of the fio benchmark harness
set -euo pipefail
cd "$RINGFUSE_HOME"
external=1
bench=1
for a in "$@"; do
  case "$a" in
    --no-external) external=0 ;;
    --no-bench) bench=0 ;;
    *) echo "usage: ringfuse test [--no-external] [--no-bench]" >&2; exit 2 ;;
  esac
done

log() { echo "== $*"; }
LOGDIR=${LOGDIR:-$RINGFUSE_HOME/target/test-logs}
export LOGDIR
mkdir -p "$LOGDIR"

fuse_mounts() { awk '$3 ~ /^fuse/ {print $2}' /proc/self/mounts | sort; }
mounts_before=$(fuse_mounts)

# --- what the tests need from the system -----------------------------------------------------------
need=()
command -v fusermount3 >/dev/null || need+=(fuse3)
command -v fio >/dev/null || need+=(fio)
command -v mkfs.ext4 >/dev/null || need+=(e2fsprogs)
command -v setpriv >/dev/null || need+=(util-linux)
command -v python3 >/dev/null || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || { echo "ringfuse test: needs root to install ${need[*]} (or install them yourself)" >&2; exit 2; }
  log "installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null; }
fi
# FUSE-over-io_uring is off until root turns it on (it must be on before the mount)
if [ -w /sys/module/fuse/parameters/enable_uring ]; then echo 1 > /sys/module/fuse/parameters/enable_uring; fi
log "enable_uring=$(cat /sys/module/fuse/parameters/enable_uring 2>/dev/null || echo absent)"

# --- the Java tests: every module, on real mounts ---------------------------------------------------
log "mvn verify"
mvn_status=0
mvn -B -Dstyle.color=never verify 2>&1 | grep -v '^WARNING: ' | tee "$LOGDIR/mvn.log" | grep -E 'Tests run:|FAIL|ERROR|BUILD' || true
mvn_status=${PIPESTATUS[0]}

count() { # sums an attribute over the surefire reports
  find . -path '*/target/surefire-reports*/TEST-*.xml' -exec grep -ho "<testsuite [^>]*" {} + 2>/dev/null \
    | grep -o " $1=\"[0-9]*\"" | grep -o '[0-9]*' | awk '{s+=$1} END {print s+0}'
}
java_tests=$(count tests); java_failed=$(( $(count failures) + $(count errors) )); java_skipped=$(count skipped)
log "java tests: $((java_tests - java_failed - java_skipped)) passed, $java_failed failed, $java_skipped skipped"

# --- external suites against memfs and passthrough (kernel passthrough on and off) -----------------
ext_passed=0; ext_failed=0; ext_status=0
run_external() { # transport [filesystem: memfs, passthrough-on, passthrough-off] [variant: dp, nodp]
  local transport=$1 fs=${2:-memfs} variant=${3:-dp} mnt server pid rc=0 src= args opts=allow_other label
  # nodp: no_default_permissions, the filesystem checks every permission itself (memfs, passthrough as
  # the caller); the suites switch users, so they see whether it does
  [ "$variant" = nodp ] && opts=allow_other,no_default_permissions
  label=$fs-$transport; [ "$variant" = nodp ] && label=$label-nodp
  mnt=$(mktemp -d /tmp/ringfuse-ext-XXXXXX)
  server=$LOGDIR/$label.log
  case $fs in # passthrough mirrors a fresh source directory on tmpfs, kernel passthrough on or off
    passthrough-*) src=$(mktemp -d /dev/shm/ringfuse-src-XXXXXX); chmod 755 "$src"; args=(passthrough "$src" "$mnt" --passthrough "${fs#passthrough-}") ;;
    *) args=("$fs" "$mnt") ;;
  esac
  "$RINGFUSE_HOME/ringfuse" mount "${args[@]}" --transport "$transport" -o "$opts" >"$server" 2>&1 &
  pid=$!
  for _ in $(seq 1 120); do grep -q "mounted at" "$server" && break; kill -0 $pid 2>/dev/null || break; sleep 0.5; done
  if ! grep -q "mounted at" "$server"; then
    echo "$fs ($transport) did not mount:"; cat "$server"; kill $pid 2>/dev/null || true
    ext_status=1; return
  fi
  mkdir -p "$mnt/pjd" "$mnt/posix"
  local out
  out=$(suites/pjdfstest.sh --max-failures "${PJD_MAX_FAILURES:-0}" "$mnt/pjd" "$label") || rc=$?
  echo "$out" | tail -5
  tally "$out"
  out=$(POSIXTEST_SKIP=FcntlFlockLocksFile suites/posixtest.sh --max-failures "${POSIX_MAX_FAILURES:-0}" "$mnt/posix" "$label") || rc=$?
  echo "$out" | tail -5
  tally "$out"
  kill -TERM $pid; wait $pid || true
  if grep -qs " $mnt " /proc/self/mounts; then echo "$fs left mounted: unmounting"; umount -l "$mnt"; rc=1; fi
  rmdir "$mnt" 2>/dev/null || true
  [ -z "$src" ] || rm -rf "$src"
  [ $rc = 0 ] || ext_status=1
}
tally() {
  local line
  line=$(echo "$1" | grep -Eo '[0-9]+ passed, [0-9]+ failed' | tail -1)
  [ -n "$line" ] || { ext_status=1; return; }
  ext_passed=$((ext_passed + $(echo "$line" | cut -d' ' -f1)))
  ext_failed=$((ext_failed + $(echo "$line" | cut -d' ' -f3)))
}
if [ $external = 1 ]; then
  for t in ${RINGFUSE_TRANSPORTS:-dev uring}; do
    for f in ${RINGFUSE_EXTERNAL_FS:-memfs passthrough-on passthrough-off}; do
      # every filesystem twice: with default_permissions (the kernel checks) and without (it checks);
      # a run of both suites takes about 20 s
      for v in ${RINGFUSE_EXTERNAL_VARIANTS:-dp nodp}; do
        log "external suites on $f, transport $t, $([ "$v" = nodp ] && echo no_default_permissions || echo default_permissions)"
        run_external "$t" "$f" "$v"
      done
    done
  done
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

left=$(comm -13 <(echo "$mounts_before") <(fuse_mounts))
if [ -n "$left" ]; then echo "FUSE mounts left behind by the tests:"; echo "$left"; mvn_status=1; fi

passed=$((java_tests - java_failed - java_skipped + ext_passed))
failed=$((java_failed + ext_failed))
echo "tests: $passed passed, $failed failed, $java_skipped skipped"
[ "$mvn_status" = 0 ] && [ "$ext_status" = 0 ] && [ "$bench_status" = 0 ]
