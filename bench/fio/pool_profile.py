#!/usr/bin/env python3
"""Where a pool server's CPU samples go in each bonnie++ phase: `pool_profile.py REC.jfr POOL.json PEER`.

`ringfuse bench pool --jfr DIR` records each pool server with `ringfuse mount ... --jfr` and calls this
with the phase windows (wall-clock start and end of each phase, from bench/fio/bonnie.py). Per phase it
prints the share of each thread and the hottest frames, self (top of stack) and total (anywhere on the
stack, ringfuse's own methods only), of jdk.ExecutionSample.
"""
import collections
import datetime
import json
import os
import subprocess
import sys


def when(text):
    """Seconds since the epoch of a JFR JSON timestamp ("2026-11-24T03:10:01.123456789Z" or with an offset)."""
    t = text.replace("Z", "+00:00")
    if "." in t:
        head, rest = t.split(".", 1)
        i = 0
        while i < len(rest) and rest[i].isdigit():
            i += 1
        t = f"{head}.{rest[:i][:6].ljust(6, '0')}{rest[i:]}"
    return datetime.datetime.fromisoformat(t).timestamp()


def samples(jfr):
    java = os.path.join(os.environ.get("JAVA_HOME", "/usr"), "bin", "jfr")
    out = subprocess.run([java, "print", "--json", "--stack-depth", "48", "--events", "jdk.ExecutionSample", jfr],
                         capture_output=True, text=True, timeout=1800, check=True).stdout
    for e in json.loads(out)["recording"]["events"]:
        v = e["values"]
        frames = [f"{f['method']['type']['name'].split('.')[-1]}.{f['method']['name']}"
                  if f.get("method") else "?" for f in (v.get("stackTrace") or {}).get("frames") or []]
        full = [f"{f['method']['type']['name']}.{f['method']['name']}" for f in (v.get("stackTrace") or {}).get("frames") or []
                if f.get("method")]
        thread = (v.get("sampledThread") or {}).get("javaName") or "?"
        yield when(v["startTime"]), thread, frames, full


def profile(jfr, runs, n=12):
    """The report text for one recording and the bonnie++ runs (their "phases") recorded in it."""
    windows = []
    for k, r in enumerate(runs):
        for ph, w in r["phases"].items():
            windows.append((w["start"], w["end"], ph))
    by_phase = collections.defaultdict(list)
    total = 0
    for t, thread, frames, full in samples(jfr):
        total += 1
        for a, b, ph in windows:
            if a <= t < b:
                by_phase[ph].append((thread, frames, full))
                break
    lines = [f"{jfr}: {total} execution samples, {sum(len(v) for v in by_phase.values())} inside bonnie++ phases",
             ""]
    for ph in dict.fromkeys(w[2] for w in windows):
        ss = by_phase.get(ph, [])
        if not ss:
            continue
        threads = collections.Counter(_group(t) for t, _, _ in ss)
        top = collections.Counter(fr[0] for _, fr, _ in ss if fr)
        tot = collections.Counter()
        for _, _, full in ss:
            for f in set(full):
                if f.startswith("dev.ringfuse."):
                    tot[f.removeprefix("dev.ringfuse.")] += 1
        lines.append(f"== {ph}: {len(ss)} samples; threads: " +
                     ", ".join(f"{t} {100 * c / len(ss):.0f}%" for t, c in threads.most_common(5)))
        lines.append("  self:  " + "; ".join(f"{f} {100 * c / len(ss):.0f}%" for f, c in top.most_common(n)))
        lines.append("  total: " + "; ".join(f"{f} {100 * c / len(ss):.0f}%" for f, c in tot.most_common(n)))
        lines.append("")
    return "\n".join(lines)


def _group(thread):
    """A thread name without its number: "fuse-uring-3" -> "fuse-uring-*"."""
    base = thread.rstrip("0123456789")
    return base + "*" if base != thread else thread


if __name__ == "__main__":
    with open(sys.argv[2]) as f:
        data = json.load(f)
    rec = next(r for r in data["peers"] if r["name"] == sys.argv[3])
    print(profile(sys.argv[1], [b for b in rec["bonnie"] if b]))
