#!/usr/bin/env bash
# Runs the pool's random power-cut test with many crash points (default 10,000), half with every
# unflushed write kept in order (PREFIX), half with a random subset of unflushed sectors (SUBSET).
# Usage: pool/crash-soak.sh [POINTS] [SEED]      (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
POINTS=${1:-10000}
SEED=${2:-$RANDOM$RANDOM}
export JAVA_HOME=${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
export PATH=$JAVA_HOME/bin:$PATH
echo "crash soak: $POINTS points, master seed $SEED"
mvn -B -q -pl pool -am verify -Dtest=CrashPointTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Dpool.crash.points="$POINTS" -Dpool.crash.seed="$SEED" -Dsurefire.timeout=0
cat pool/target/surefire-reports/dev.ringfuse.pool.txg.CrashPointTest-output.txt
