"""results.md and the PNG charts, from the records the harness collected (or from a results.json:
`python3 report.py <dir>` regenerates both without measuring again)."""
import json
import math
import os
import sys

from jobs import JOBS, METADATA_PHASES

CHARTS = [
    ("iops.png", "4 KiB random I/O (IOPS, log scale; bar = median, whisker = min..max)",
     ["j1", "j1-awake", "j2", "j4", "j4-awake"]),
    ("throughput.png", "Sequential 1 MiB I/O (MiB/s; bar = median, whisker = min..max)", ["j3-read", "j3-write"]),
    ("metadata.png", "Metadata, 10,000 files (operations/s, log scale)", [f"meta:{p}" for p in METADATA_PHASES]),
]
JOB_BY_KEY = {j.key: j for j in JOBS}


def fmt(v, metric="iops"):
    if v is None:
        return "-"
    if metric == "mibps":
        return f"{v:,.0f}"
    return f"{v / 1e3:,.1f}k" if v >= 1e3 else f"{v:,.0f}"


def cell(s, metric="iops"):
    if not s:
        return "-"
    if s["n"] == 1:
        return fmt(s["median"], metric)
    return f"{fmt(s['median'], metric)} ({fmt(s['min'], metric)}–{fmt(s['max'], metric)})"


def stat(rec, key):
    """The summary of one figure: a job key ("j1") or a metadata phase ("meta:create")."""
    if key.startswith("meta:"):
        return (rec.get("metadata") or {}).get(key[5:])
    j = rec.get("jobs", {}).get(key)
    return j["value"] if j else None


def median(rec, key):
    s = stat(rec, key)
    return s["median"] if s else None


def rounds(rec, key):
    """The figure of each round (None where that round failed), in round order."""
    return (rec.get("rounds") or {}).get(key) or []


def paired(num_rounds, den_rounds):
    """The ratio of each round where both sides have a figure: peers alternate within a round, so round i
    of one and round i of the other saw the same machine."""
    return [n / d for n, d in zip(num_rounds, den_rounds) if n is not None and d]


def spread_note(ratios, *lines):
    """`[lo–hi]` of the paired ratios; ⚠ when the rounds disagree about which side of a line (1.0, the
    goal) the ratio is on."""
    if len(ratios) < 2:
        return ""
    lo, hi = min(ratios), max(ratios)
    split = [f"{x:g}" for x in sorted(set(lines)) if lo < x <= hi]
    warn = f" ⚠ rounds disagree about {', '.join(split)}" if split else ""
    return f" [{lo:.2f}–{hi:.2f}{warn}]"


def ratio_cell(num, den, target, ratios=()):
    if num is None or den is None or den == 0:
        return "-"
    r = num / den
    text = f"{r:.2f} ✓" if r >= target else f"**{r:.2f}** ✗"
    return text + spread_note(ratios, 1.0, target)


def plain_ratio(num, den, ratios=()):
    return f"{num / den:.2f}{spread_note(ratios, 1.0)}" if num is not None and den else "-"


def goals(results):
    """One row per (ringfuse server, comparison), one column per figure: ratio of medians, ✓ when the goal is met."""
    by = {r["name"]: r for r in results}
    keys = [j.key for j in JOBS] + [f"meta:{p}" for p in METADATA_PHASES]
    head = ["ringfuse server", "compared with", "goal"] + [k.replace("meta:", "meta ") for k in keys]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    jnr = by.get("jnr-fuse-memfs")
    c_peers = [by[n] for n in ("libfuse-passthrough_ll-mt", "libfuse-passthrough_ll-st") if n in by]
    mt = by.get("libfuse-passthrough_ll-mt")

    def row(rf, what, goal, target, den_of, den_rounds, goal_keys=None):
        # ✓/✗ only where the goal applies; elsewhere the bare ratio, for context
        cells = []
        for k in keys:
            ratios = paired(rounds(rf, k), den_rounds(k))
            cells.append(ratio_cell(median(rf, k), den_of(k), target, ratios) if goal_keys is None or k in goal_keys
                         else plain_ratio(median(rf, k), den_of(k), ratios))
        lines.append("| " + " | ".join([rf["name"], what, goal] + cells) + " |")

    def best_rounds(k):
        per = [rounds(c, k) for c in c_peers]
        n = max((len(x) for x in per), default=0)
        return [max((x[i] for x in per if i < len(x) and x[i] is not None), default=None) for i in range(n)]

    for rf in (r for r in results if r["name"].startswith("ringfuse-") and r.get("jobs")):
        if "memfs" in rf["name"] and jnr:
            row(rf, "jnr-fuse-memfs", "≥ 2x on j1", 2.0, lambda k: median(jnr, k), lambda k: rounds(jnr, k),
                goal_keys={"j1", "j1-awake"})
        if rf["transport"] == "dev" and mt:
            row(rf, "libfuse passthrough_ll mt", "≥ 1x", 1.0, lambda k: median(mt, k), lambda k: rounds(mt, k))
        if c_peers:
            what = "best C peer" + ("" if rf["transport"] == "dev" else " (on /dev/fuse: no C peer speaks io_uring here)")
            row(rf, what, "≥ 0.9x", 0.9,
                lambda k: max((median(c, k) for c in c_peers if median(c, k) is not None), default=None),
                best_rounds)
    lines += ["", "Ratios are of medians; `[lo–hi]` is the range of the per-round ratios (peers alternate "
              "within a round, so round i of both sides saw the same machine); ⚠ marks a ratio whose rounds "
              "disagree about which side of 1.0 it is on: do not quote it."]
    return lines


def table(results):
    head = ["peer", "transport"] + [j.key for j in JOBS] + [f"meta {p}/s" for p in METADATA_PHASES]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        if r.get("skipped") or r.get("build_error"):
            continue
        row = [r["name"], r["transport"]] + [cell(stat(r, j.key), j.metric) for j in JOBS]
        row += [cell(stat(r, f"meta:{p}")) for p in METADATA_PHASES]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def cpu_table(results):
    head = ["peer"] + [j.key for j in JOBS] + ["metadata"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        if not r.get("jobs") or r["transport"] == "kernel":
            continue
        row = [r["name"]]
        for j in JOBS:
            s = r["jobs"].get(j.key, {}).get("cpu_us_per_io")
            row.append(f"{s['median']:.1f}" if s else "-")
        s = r.get("metadata_cpu_us_per_op")
        row.append(f"{s['median']:.1f}" if s else "-")
        lines.append("| " + " | ".join(row) + " |")
    return lines


def write(out, run, results):
    m = run["machine"]
    a = run["args"]
    md = [f"# ringfuse vs peers: fio results{' (QUICK smoke run: not for quoting)' if run['quick'] else ''}", "",
          "Generated by `./ringfuse bench fio" + (" --quick" if run["quick"] else "") +
          (f" --only {a['only']}" if a.get("only") else "") + "`; do not edit (see README.md here for how to read it).", "",
          f"- date: {m['date']}; run took {run['duration_s']} s",
          f"- machine: {m['os']}, Linux {m['kernel']}, {m['cpus']} x {m['cpu']}, {m['memory_gib']} GiB; "
          f"FUSE enable_uring={m['enable_uring']}",
          f"- tools: {m['fio']}; {m['java']}; {m['gcc']}; {m['go']}",
          f"- {a['reps']} repetitions per job, figures are median (min–max); time-based jobs {a['runtime']} s each; "
          f"j3-read reads the 128 MiB file {a['loops']} time(s) per repetition; metadata with {a['files']} files",
          "- every server is mounted for the whole run and each job runs in rounds, every peer once per round "
          "in a rotated order, so load changes hit all peers alike; compare peers only within this file",
          f"- idle checks before the {len(run.get('idle_checks', []))} rounds: "
          f"{sum(1 for c in run.get('idle_checks', []) if c['calm'])} idle, "
          f"{sum(1 for c in run.get('idle_checks', []) if not c['calm'])} busy "
          f"(highest load1 {max((c['load1'] for c in run.get('idle_checks', [])), default=0)})",
          "", "## Results", ""]
    md += table(results)
    md += ["", "IOPS for j1, j2, j4 (k = thousands); MiB/s for j3; operations/s for metadata. "
           "`-awake` = the same job while two `nice -n 19` busy loops keep both CPUs from halting.", ""]
    for name, _, _ in CHARTS:
        md.append(f"![{name}]({name})")
    md += ["", "## Ratios against the goals", ""] + goals(results)
    md += ["", "## Server CPU time per operation (µs, median; utime+stime of the server process)", ""]
    md += cpu_table(results)
    md += ["", "## Peers: versions, commands, machine state", "",
           "| peer | version | server command | problems |", "|---|---|---|---|"]
    for r in results:
        problems = r.get("skipped") or (("build failed: " + r["build_error"]) if r.get("build_error") else "")
        problems = "; ".join(filter(None, [problems] + r.get("errors", []) + r.get("notes", [])))
        problems = problems.replace("\n", " ").replace("|", "/")
        md.append(f"| {r['name']} | {r.get('version', '-')} | `{r.get('server_command', '-')}` | "
                  f"{problems or 'none'} |")
    md += ["", "## Exact commands", "", "Builds:", "", "```"] + run["build_commands"] + ["```", "",
           "Jobs (`<dir>` = the peer's mount point, `/data`):", "", "```"]
    md += [f"# {k}\n{v}" for k, v in run["job_commands"].items()] + ["```", ""]
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md))
    try:
        charts(out, results, run)
    except ImportError as e:  # the table is the result; charts are a view of it
        print(f"bench fio: no charts ({e}); apt-get install python3-matplotlib", file=sys.stderr)


def whiskers(measured, summary_of):
    """Per record: the median and its distances to the min and the max, for a bar with whiskers (0, 0, 0 where
    the record has no figure)."""
    meds, lo, hi = [], [], []
    for rec in measured:
        s = summary_of(rec)
        meds.append(s["median"] if s else 0)
        lo.append(s["median"] - s["min"] if s else 0)
        hi.append(s["max"] - s["median"] if s else 0)
    return meds, lo, hi


def redraw(write, json_name, argv):
    """The report and charts again from the records saved in DIR/json_name (argv: [DIR], default docs/bench),
    without measuring."""
    d = argv[0] if argv else "docs/bench"
    with open(os.path.join(d, json_name)) as f:
        data = json.load(f)
    write(d, data["run"], data["peers"])


def charts(out, results, run):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    measured = [r for r in results if r.get("jobs") or r.get("metadata")]
    names = [r["name"] for r in measured]
    colors = ["#d62728" if n.startswith("ringfuse") else "#7f7f7f" if n.startswith("kernel") else "#1f77b4"
              for n in names]
    for file, title, keys in CHARTS:
        fig, axes = plt.subplots(1, len(keys), figsize=(3.4 * len(keys) + 2.2, 0.42 * len(names) + 1.8),
                                 sharey=True, squeeze=False)
        for ax, key in zip(axes[0], keys):
            meds, lo, hi = whiskers(measured, lambda r: stat(r, key))
            y = range(len(names))
            ax.barh(y, meds, xerr=[lo, hi], color=colors, capsize=2, error_kw={"elinewidth": 0.8})
            ax.set_title(key.replace("meta:", "metadata "), fontsize=10)
            positive = [m for m in meds if m > 0]
            top = max([m + h for m, h in zip(meds, hi)] + [1])
            if file != "throughput.png" and positive:
                # a log axis with a fixed base (a power of ten below the smallest bar): bar lengths compare
                ax.set_xscale("log")
                left = 10 ** math.floor(math.log10(min(positive) / 3))  # room for the shortest label
                ax.set_xlim(left=left, right=top * 1.5)
            else:
                left = 0
                ax.set_xlim(left=0, right=top * 1.1)
            for yi, m in zip(y, meds):
                if m > 0:  # the figure inside the bar's base, clear of the whiskers at its end
                    ax.text(left * 1.15 if left else top * 0.01, yi,
                            fmt(m, "mibps" if file == "throughput.png" else "iops"),
                            va="center", fontsize=7, color="white", fontweight="bold")
            ax.grid(axis="x", alpha=0.3)
            ax.tick_params(axis="x", labelsize=8)
        axes[0][0].set_yticks(range(len(names)))
        axes[0][0].set_yticklabels(names, fontsize=8)
        axes[0][0].invert_yaxis()
        fig.suptitle(f"{title}\n{run['machine']['date']}, Linux {run['machine']['kernel']}, "
                     f"{run['machine']['cpus']} CPUs{' — QUICK run' if run['quick'] else ''}", fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(out, file), dpi=110)
        plt.close(fig)


if __name__ == "__main__":
    redraw(write, "results.json", sys.argv[1:])
