#!/usr/bin/env bash
# Runs the coherence stress (testkit CoherenceStress: locked byte-region writers, O_DIRECT and aio writers,
# buffered/mmap/O_DIRECT readers) for MINUTES per configuration: memfs (/dev/fuse 4 threads and 1, io_uring),
# passthrough (kernel passthrough on/off x both transports), volume (kernel passthrough auto/off x both
# transports), pool (/dev/fuse 4 threads and 1, io_uring), sql on SQLite (/dev/fuse 4 threads and 1,
# io_uring) and on PostgreSQL (/dev/fuse 1 thread, io_uring). 19 configurations, so 30 minutes each take
# 9.5 hours in one run (plus two 5-second fio checks that do not stretch).
# Usage: tools/coherence-soak.sh [MINUTES] [SELECTION]     (default 30, every configuration)
#        tools/coherence-soak.sh --list                    (one configuration per line, as SELECTION takes it)
# SELECTION is surefire's -Dtest: a class pattern ('CoherenceStressPool*Test'), or ONE configuration,
# 'CoherenceStressPoolTest#uring', so that several configurations can run at once in separate clones.
# A new filesystem joins by adding a test class CoherenceStress*Test in its module (see testkit DESIGN.md)
# and its module to MODULES below.
set -euo pipefail
cd "$(dirname "$0")/.."
MODULES=testkit,pool,sqlfs

# every @Test of every CoherenceStress*Test class, as Class#method
configurations() {
    find . -path ./examples -prune -o -name 'CoherenceStress*Test.java' -path '*/src/test/*' -print | sort |
        while read -r f; do
            c=$(basename "$f" .java)
            grep -A1 '@Test' "$f" | sed -n 's/^ *void \([A-Za-z0-9_]*\)().*/\1/p' | sed "s/^/$c#/"
        done
}

if [ "${1:-}" = "--list" ]; then
    configurations
    exit 0
fi
minutes=${1:-30}
selection=${2:-'CoherenceStress*Test'}
case "$minutes" in ''|*[!0-9]*) echo "MINUTES must be a whole number, not '$minutes'" >&2; exit 2 ;; esac
if [[ "$selection" == *#* ]] && ! configurations | grep -xF "$selection" >/dev/null; then
    echo "no configuration '$selection'; tools/coherence-soak.sh --list shows them" >&2
    exit 2
fi
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export PATH=$JAVA_HOME/bin:$PATH
echo 1 > /sys/module/fuse/parameters/enable_uring 2>/dev/null || true
mkdir -p target
log=target/coherence-soak-$(date -u +%Y%m%dT%H%M%S)-${selection//[^A-Za-z0-9]/_}.log
echo "coherence soak: $minutes min per configuration, tests $selection; log $log"
marker=target/coherence-soak-start.$$
touch "$marker"
# A failed test must not stop the reactor before pool and sqlfs ran theirs (they depend on testkit), so
# failures are collected (testFailureIgnore) and the exit status comes from the reports below.
set +e
mvn -B -pl "$MODULES" -am verify -Dstyle.color=never -Dtest="$selection" -Dsurefire.failIfNoSpecifiedTests=false \
    -Dringfuse.skipOneCpu=true -Dmaven.test.failure.ignore=true \
    -Dringfuse.coherence.seconds=$((minutes * 60)) >"$log" 2>&1
rc=$?
set -e
grep -E "Tests run:.*in dev|CORRUPT|FAIL" "$log" || true
# what each configuration checked (the tests' own output goes to surefire's *-output.txt files)
find . -path '*/target/surefire-reports/*-output.txt' -newer "$marker" -exec grep -h "coherence stress on" {} + || true
rm -f "$marker"
bad=$(grep -E "Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+" "$log" | grep -vc "Failures: 0, Errors: 0" || true)
ran=$(grep -E "^\[INFO\] Tests run: [1-9]" "$log" | grep -c "in dev" || true)
if [ "$rc" -eq 0 ] && [ "$bad" -ne 0 ]; then rc=1; fi
if [ "$rc" -eq 0 ] && [ "$ran" -eq 0 ]; then echo "coherence soak: no test ran for '$selection'"; rc=1; fi
echo "coherence soak: exit $rc"
exit $rc
