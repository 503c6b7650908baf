#!/usr/bin/env bash
# Runs the pool's random power-cut test with many crash points (default 10,000), half with every
# unflushed write kept in order (PREFIX), half with a random subset of unflushed sectors (SUBSET).
# Then (unless BIGDIR=0) a directory of BIGDIR entries (default 1,000,000) through a mount: created, listed,
# looked up, exported and imported (BigDirectoryTest; `mvn verify` runs it with 20,000).
# Then (unless MIRROR=0) MIRROR power cuts (default POINTS/20) during mirror scrub repairs and as many during
# resilvers and replace's config switch (MirrorCrashTest; `mvn verify` runs 20 of each).
# Usage: [BIGDIR=N] [MIRROR=N] pool/crash-soak.sh [POINTS] [SEED]      (from the repository root)
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
MIRROR=${MIRROR:-$((POINTS / 20))}
if [ "$MIRROR" != 0 ]; then
  echo "mirror crash points: $MIRROR per kind"
  mvn -B -q -pl pool -am verify -Dtest=MirrorCrashTest -Dsurefire.failIfNoSpecifiedTests=false \
      -Dpool.mirror.crash.points="$MIRROR" -Dpool.crash.seed="$SEED" -Dsurefire.timeout=0 \
      -Djunit.jupiter.execution.timeout.mode=disabled
  cat pool/target/surefire-reports/dev.ringfuse.pool.txg.MirrorCrashTest-output.txt 2>/dev/null || true
fi
BIGDIR=${BIGDIR:-1000000}
if [ "$BIGDIR" != 0 ]; then
  echo "big directory: $BIGDIR entries"
  mvn -B -q -pl pool -am verify -Dtest=BigDirectoryTest -Dsurefire.failIfNoSpecifiedTests=false \
      -Dpool.bigdir.entries="$BIGDIR" -Dsurefire.timeout=0
  cat pool/target/surefire-reports/dev.ringfuse.pool.fs.BigDirectoryTest-output.txt
fi
