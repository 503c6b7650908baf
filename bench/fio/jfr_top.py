#!/usr/bin/env python3
"""Where a JFR recording's CPU samples go: `jfr_top.py <recording.jfr> [N]`.

Prints the N hottest top frames (self time) and the N hottest methods anywhere on the stack (total time)
of jdk.ExecutionSample, plus how many jdk.NativeMethodSample fell in each native method (threads blocked
in read(2) or io_uring_enter show up there, not as CPU). Used for the profile in docs/bench/README.md:

    RINGFUSE_JAVA_OPTS='-XX:StartFlightRecording=filename=/tmp/rf.jfr,settings=profile' \\
        ./ringfuse mount memfs /tmp/mnt --transport dev &
    fio ... ; kill %1 ; python3 bench/fio/jfr_top.py /tmp/rf.jfr
"""
import collections
import json
import os
import subprocess
import sys


def frames(event):
    st = event["values"].get("stackTrace") or {}
    for f in st.get("frames") or []:
        m = f["method"]
        yield f"{m['type']['name']}.{m['name']}"


def load(jfr, event):
    java = os.path.join(os.environ.get("JAVA_HOME", "/usr"), "bin", "jfr")
    out = subprocess.run([java, "print", "--json", "--stack-depth", "64", "--events", event, jfr],
                         capture_output=True, text=True, timeout=600, check=True).stdout
    return json.loads(out)["recording"]["events"]


def main():
    jfr, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 25
    samples = load(jfr, "jdk.ExecutionSample")
    top, total = collections.Counter(), collections.Counter()
    for e in samples:
        fs = list(frames(e))
        if fs:
            top[fs[0]] += 1
        for f in set(fs):
            total[f] += 1
    print(f"{len(samples)} execution samples")
    print("\n-- self (top frame) --")
    for f, c in top.most_common(n):
        print(f"{100 * c / len(samples):5.1f}%  {f}")
    print("\n-- total (anywhere on the stack) --")
    for f, c in total.most_common(n):
        print(f"{100 * c / len(samples):5.1f}%  {f}")
    native = collections.Counter(next(frames(e), "?") for e in load(jfr, "jdk.NativeMethodSample"))
    print(f"\n-- native method samples ({sum(native.values())}) --")
    for f, c in native.most_common(8):
        print(f"{c:6d}  {f}")


if __name__ == "__main__":
    main()
