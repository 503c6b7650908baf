#!/usr/bin/env bash
# Runs the coherence stress (testkit CoherenceStress: locked byte-region writers, O_DIRECT and aio writers,
# buffered/mmap/O_DIRECT readers) for MINUTES per configuration: memfs (/dev/fuse 4 threads and 1, io_uring),
# passthrough (kernel passthrough on/off x both transports), volume (kernel passthrough auto/off x both
# transports). 11 configurations, so 30 minutes each take 5.5 hours.
# Usage: tools/coherence-soak.sh [MINUTES] [TEST_CLASS_PATTERN]   (default 30, 'CoherenceStress*Test')
# A new filesystem joins by adding a test class that calls CoherenceStress.inDirectory (see testkit DESIGN.md).
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-30}
pattern=${2:-'CoherenceStress*Test'}
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export PATH=$JAVA_HOME/bin:$PATH
echo 1 > /sys/module/fuse/parameters/enable_uring 2>/dev/null || true
log=target/coherence-soak-$(date -u +%Y%m%dT%H%M%S).log
mkdir -p target
echo "coherence soak: $minutes min per configuration, tests $pattern; log $log"
set +e
mvn -B -pl testkit -am verify -Dstyle.color=never -Dtest="$pattern" -Dsurefire.failIfNoSpecifiedTests=false -Dringfuse.skipOneCpu=true \
    -Dringfuse.coherence.seconds=$((minutes * 60)) >"$log" 2>&1
rc=$?
set -e
grep -E "Tests run:|CORRUPT|FAIL" "$log" | grep -v "^\[INFO\] Tests run: 0" || true
echo "coherence soak: exit $rc"
exit $rc
