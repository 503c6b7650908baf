#!/usr/bin/env bash
# Builds and runs the examples against ringfuse artifacts in a Maven repository (not the reactor):
#   examples/run.sh [--repo DIR] [--no-install]
# --repo DIR: the local Maven repository to install ringfuse into and build the examples from
#             (default: Maven's own, ~/.m2/repository). --no-install: use what is installed there already.
# Each hello filesystem is mounted on the class path and on the module path, read with cat, unmounted;
# the testkit example runs its JUnit tests (the mount extension and the POSIX scenario suite) on the module
# path and on the class path. Needs root (or fusermount3) and /dev/fuse. Exits non-zero on the first failure.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=""; install=1
while [ $# -gt 0 ]; do
  case "$1" in
    --repo) repo=$2; shift 2 ;;
    --no-install) install=0; shift ;;
    *) echo "usage: $0 [--repo DIR] [--no-install]" >&2; exit 2 ;;
  esac
done
mvn_args=(-B -q)
if [ -n "$repo" ]; then
  # a fresh repository starts as a copy of the user's, so nothing already downloaded is fetched again
  [ -d "$repo" ] || { mkdir -p "$repo"; [ -d "$HOME/.m2/repository" ] && cp -r "$HOME/.m2/repository/." "$repo/"; rm -rf "$repo/dev/ringfuse"; }
  repo=$(cd "$repo" && pwd)
  mvn_args+=("-Dmaven.repo.local=$repo")
fi
java=${JAVA_HOME:+$JAVA_HOME/bin/}java
work=$(mktemp -d /tmp/ringfuse-examples-XXXXXX)
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null
  grep -qs " $work/mnt " /proc/self/mounts && umount -l "$work/mnt"
  rm -rf "$work"
}
trap cleanup EXIT

if [ "$install" = 1 ]; then
  echo "== installing ringfuse (mvn install -DskipTests)"
  (cd "$here/.." && mvn "${mvn_args[@]}" -DskipTests -Dmaven.javadoc.skip=true install) # tools/test.sh checked the javadoc
fi

# mount_and_read NAME MAINCLASS MODULE: runs the example both ways, checks the file's content each time
mount_and_read() {
  local dir=$here/$1 main=$2 module=$3 how
  echo "== $1: build"
  (cd "$dir" && mvn "${mvn_args[@]}" package)
  for how in class-path module-path; do
    mkdir -p "$work/mnt"
    if [ "$how" = class-path ]; then
      "$java" --enable-native-access=ALL-UNNAMED -cp "$dir/target/$1-1.0.jar:$dir/target/lib/*" "$main" "$work/mnt" >"$work/log" 2>&1 &
    else
      "$java" --enable-native-access=dev.ringfuse,dev.ringfuse.uring -p "$dir/target/$1-1.0.jar:$dir/target/lib" \
        -m "$module/$main" "$work/mnt" >"$work/log" 2>&1 &
    fi
    server=$!
    for _ in $(seq 1 100); do grep -q mounted "$work/log" && break; sleep 0.2; done
    got=$(cat "$work/mnt/hello") || { cat "$work/log"; exit 1; }
    [ "$got" = "Hello from ringfuse" ] || { echo "$1 ($how): read '$got'" >&2; exit 1; }
    umount "$work/mnt"
    wait "$server"; server=""
    echo "   $how: $(head -1 "$work/log") -> cat hello: $got"
  done
}
mount_and_read hello-lowlevel example.hello.Hello example.hello
mount_and_read hello-path example.hellopath.HelloPath example.hellopath

# the testkit example: its JUnit tests (the mount extension and the POSIX scenario suite on NotesFs), run by
# surefire on the module path (`mvn test`: the tests are a module of their own) and on the class path
# (-Pclass-path). NotesFsTest fails if a run did not get the path it asked for; its line shows where
# each module came from.
for how in module-path class-path; do
  echo "== testkit-junit: mvn test on the $how"
  profile=(); [ "$how" = class-path ] && profile=(-Pclass-path)
  (cd "$here/testkit-junit" && mvn "${mvn_args[@]}" "${profile[@]}" test)
  reports=$here/testkit-junit/target/surefire-reports
  grep -h "Tests run" "$reports/"*.txt | sed "s/^/   $how: /"
  grep -h "^NotesFs in" "$reports/example.notes.test.NotesFsTest-output.txt" | sed "s/^/   $how: /"
done
echo "== examples passed"
