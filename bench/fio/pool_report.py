"""pool.md and its charts from the records of `ringfuse bench pool` (or from pool.json:
`python3 pool_report.py <dir>` redraws without measuring). The hand-written analysis at the end of an
existing pool.md (from the ANALYSIS marker on) is kept as it is."""
import os
import sys

import bonnie
import report
from jobs import FSYNC_JOBS, JOBS, METADATA_PHASES
from pool_peers import CEILING

ANALYSIS = "<!-- analysis: hand-written below this line; pool_report.py keeps it when it rewrites the file -->"
# the targets, as ratios to btrfs in the same run
TARGETS = {"block-write": 1.0, "block-read": 1.0, "rewrite": 1.0, "seeks": 0.8, "seq-create": 1.0,
           "seq-stat": 1.0, "seq-delete": 1.0, "rand-create": 1.0, "rand-stat": 1.0, "rand-delete": 1.0}
VERIFY_TARGET = 0.70


def bstat(rec, metric):
    return (rec.get("bonnie_summary") or {}).get(metric)


def fmt_b(v, metric):
    if v is None:
        return "-"
    if metric in bonnie.UNITS:
        return f"{v:,.0f}"
    return f"{v / 1e3:,.1f}k" if v >= 1e4 else f"{v:,.0f}"


def cell_b(s, metric):
    if not s:
        return "+++++" if s is None else "-"
    if s["n"] == 1:
        return fmt_b(s["median"], metric)
    return f"{fmt_b(s['median'], metric)} ({fmt_b(s['min'], metric)}–{fmt_b(s['max'], metric)})"


def bonnie_table(results):
    head = ["peer"] + [f"{m} {bonnie.UNITS.get(m, '/s')}" for m in bonnie.METRICS]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        if not r.get("bonnie"):
            continue
        lines.append("| " + " | ".join([r["name"]] + [cell_b(bstat(r, m), m) for m in bonnie.METRICS]) + " |")
    lines += ["", "Median (min–max) of the rounds; `+++++`: bonnie++ could not time the phase (under 0.5 s: "
              "more files with --bonnie-files would time it)."]
    return lines


def bonnie_cpu_table(results):
    """bonnie++'s own %CPU per phase: for a kernel filesystem this is where its work shows (system time of
    the benchmark's process); for the pool most of the work is in the server (next table)."""
    head = ["peer"] + bonnie.METRICS
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        rs = [b for b in r.get("bonnie") or [] if b]
        if not rs:
            continue
        cells = []
        for m in bonnie.METRICS:
            v = [b["figures"].get(m + "-cpu") for b in rs if b["figures"].get(m + "-cpu") is not None]
            cells.append(f"{sorted(v)[len(v) // 2]:.0f}" if v else "-")
        lines.append("| " + " | ".join([r["name"]] + cells) + " |")
    return lines


def ratio_rows(results, metrics, get, rounds_key, targets):
    by = {r["name"]: r for r in results}
    head = ["peer", "compared with"] + metrics
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    pairs = []
    for r in results:
        if r.get("compare") and r["compare"] in by:
            pairs.append((r, by[r["compare"]], True))
        if r["name"] != "btrfs" and "btrfs" in by and r.get("compare") != "btrfs":
            pairs.append((r, by["btrfs"], False))
    for num, den, target in pairs:
        cells = []
        for m in metrics:
            a, b = get(num, m), get(den, m)
            ratios = report.paired(num["rounds"].get(rounds_key(m), []), den["rounds"].get(rounds_key(m), []))
            cells.append(report.ratio_cell(a, b, targets[m], ratios) if target and m in targets
                         else report.plain_ratio(a, b, ratios))
        lines.append("| " + " | ".join([num["name"], den["name"] + (" (target)" if target else "")] + cells) + " |")
    return lines


def ceiling_lines(results, metrics, get, rounds_key, what):
    """The pools against memfs, the same FUSE mount with no storage (the ceiling), and memfs against btrfs: a
    target over memfs's ratio is out of reach of any FUSE server on this machine for that job."""
    by = {r["name"]: r for r in results}
    top = by.get(CEILING)
    pools = [r for r in results if r["kind"] == "pool"]
    if not top or not pools or not any(get(top, m) is not None for m in metrics):
        return []
    head = ["peer", "compared with"] + metrics
    lines = ["", f"Against the FUSE ceiling ({what}): each pool over memfs (what its storage costs on the same "
             "mount path), and memfs over btrfs (the most a FUSE server reached here; a target above it is out "
             "of reach of any FUSE server for that job on this machine):", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    rows = [(p, top) for p in pools] + ([(top, by["btrfs"])] if "btrfs" in by else [])
    for num, den in rows:
        cells = [report.plain_ratio(get(num, m), get(den, m),
                                    report.paired(num["rounds"].get(rounds_key(m), []), den["rounds"].get(rounds_key(m), [])))
                 for m in metrics]
        lines.append("| " + " | ".join([num["name"], den["name"]] + cells) + " |")
    return lines


def fsync_lines(results):
    """The durability jobs: writes/s, each write followed by its fsync or fdatasync, and that call's latency."""
    keys = [j.key for j in FSYNC_JOBS]
    have = [r for r in results if any(k in r.get("jobs", {}) for k in keys)]
    if not have:
        return []
    lines = ["", "## fsync (each 4 KiB write followed by fdatasync or fsync)", "",
             "; ".join(f"`{j.key}`: {j.title}" for j in FSYNC_JOBS) + ". Median (min–max) of the rounds, "
             "and the median over the rounds of the sync call's p50 and p99 latency (µs).", ""]
    head = ["peer"] + [f"{k} {w}" for k in keys for w in ("IOPS", "sync p50 µs", "sync p99 µs")]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in have:
        cells = [r["name"]]
        for k in keys:
            j = r["jobs"].get(k) or {}
            cells.append(report.cell(j.get("value")))
            cells += [f"{j[lat]['median']:,.0f}" if j.get(lat) else "-" for lat in ("sync_p50_us", "sync_p99_us")]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Ratios (IOPS):", ""]
    lines += ratio_rows(have, keys, report.median, lambda k: k, {})
    return lines


def med(s):
    return s["median"] if s else None


def phase_table(results):
    """Per bonnie++ phase of each pool peer, summed over the rounds: server CPU, FUSE requests, CPU per request."""
    lines = ["| peer | phase | wall s | server CPU s | FUSE requests (top opcodes) | CPU µs/request | "
             "server µs/request (mean) | CPU ms/MiB |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        rs = [b for b in r.get("bonnie") or [] if b]
        if r["kind"] == "kernel" or not rs:
            continue
        for ph in bonnie.PHASES.values():
            wall = sum(b["phases"].get(ph, {}).get("wall_s", 0) for b in rs)
            cpu = sum(b["phases"].get(ph, {}).get("cpu_s", 0) or 0 for b in rs)
            reqs = {}
            for b in rs:
                for op, (c, ns) in (b["phases"].get(ph, {}).get("requests") or {}).items():
                    c0, ns0 = reqs.get(op, (0, 0))
                    reqs[op] = (c0 + c, ns0 + ns)
            n = sum(c for c, _ in reqs.values())
            ns = sum(x for _, x in reqs.values())
            top = ", ".join(f"{op} {c:,}" for op, (c, _) in sorted(reqs.items(), key=lambda kv: -kv[1][0])[:3])
            mib = r["_bonnie_mib"] * len(rs) if ph in ("block-write", "block-read", "rewrite") else None
            lines.append(f"| {r['name']} | {ph} | {wall:.1f} | {cpu:.1f} | {top or '-'} | "
                         f"{cpu * 1e6 / n:.0f} | {ns / 1e3 / n:.0f} | " if n else
                         f"| {r['name']} | {ph} | {wall:.1f} | {cpu:.1f} | - | - | - | ")
            lines[-1] += (f"{cpu * 1e3 / mib:.1f} |" if mib else "- |")
    lines += ["", "Sums over the rounds. Wall time runs from bonnie++'s prompt for the phase to the next prompt "
              "(block-read includes the 3 s bonnie++ sleeps before seeking). Server CPU = utime+stime of the "
              "server process (/proc); requests and their mean time in the server from the mount's statistics "
              "socket (`ringfuse stats`), read at every prompt."]
    return lines


def verify_lines(run, results):
    v = run.get("verify")
    if not v:
        return ["(not run)"]
    before, after = v["device_before"], v["device_after"]
    dev = {qd: (before[qd] + after[qd]) / 2 for qd in ("qd1", "qd8")}
    best = max(dev.values())
    lines = [f"Device sequential read (O_DIRECT, 1 MiB, a dense {run['args']['verify_size']} MiB file beside the "
             f"images): QD1 {before['qd1']:.0f} / {after['qd1']:.0f} MiB/s, QD8 {before['qd8']:.0f} / "
             f"{after['qd8']:.0f} MiB/s (before / after the verifications); the device's bandwidth below is the "
             f"better mean, {best:.0f} MiB/s.", "",
             "| pool | data | blocks | read | seconds | MiB/s | of the device | target ≥ 70% | errors |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        x = r.get("verify")
        if not x:
            continue
        rate = x["bytes"] / (1 << 20) / max(x["seconds"], 1e-3)
        frac = rate / best if best else 0
        lines.append(f"| {r['name']} | {run['args']['verify_size']} MiB random + the fio files | {x['blocks']:,} | "
                     f"{x['bytes'] / (1 << 20):,.0f} MiB | {x['seconds']:.1f} (wall {x['wall_s']:.1f}) | "
                     f"{rate:.0f} | {frac:.0%} | {'✓' if frac >= VERIFY_TARGET else '✗'} | {x['errors']} |")
    lines += ["", "Seconds as `pool verify` reports them (the walk; wall includes the JVM's start and the "
              "import). Commands under \"Exact commands\"."]
    return lines


def write(out, run, results):
    for r in results:
        r["_bonnie_mib"] = run["args"]["bonnie_size"]
    m = run["machine"]
    a = run["args"]
    checks = run.get("idle_checks", [])
    busy = sum(1 for c in checks if not c["calm"])
    md = [f"# ringfuse pool vs ext4, xfs, btrfs on the same storage{' (QUICK smoke run: not for quoting)' if run['quick'] else ''}",
          "", "Generated by `./ringfuse bench pool" + (" --quick" if run["quick"] else "") +
          (f" --only {a['only']}" if a.get("only") else "") + "` (bench/fio/pool.py; see bench/DESIGN.md); the "
          "tables are rewritten by every run, the analysis at the end is kept.", "",
          f"- date: {m['date']}; run took {run['duration_s']} s; ringfuse at commit {run.get('ringfuse', '?')}" +
          ("; **the run was interrupted: partial results**" if run.get("interrupted") else ""),
          f"- machine: {m['os']}, Linux {m['kernel']}, {m['cpus']} x {m['cpu']}, {m['memory_gib']} GiB; images on "
          f"{m.get('images_on', '?')}; FUSE enable_uring={m['enable_uring']}",
          f"- tools: bonnie++ {m.get('bonnie', '?')}; {m['fio']}; {m['java']}",
          f"- every peer has its own sparse image of {a['size'] >> 20} MiB in one directory; kernel filesystems on "
          "`losetup --direct-io=on`, the pool opens its image with O_DIRECT: no peer is cached by the host",
          f"- {a['reps']} rounds: each round runs every peer once, in a rotated order, so that load changes hit "
          "all peers alike; compare peers only within this file",
          f"- idle checks before the {len(checks)} rounds: {len(checks) - busy} idle, {busy} busy (highest load1 "
          f"{max((c['load1'] for c in checks), default=0)})" +
          (". **The machine was busy: the figures are ratios taken side by side, not absolute performance.**"
           if busy else ""),
          "", "## bonnie++", "",
          f"`{run.get('bonnie_command') or 'bonnie++ (not run)'}` — file of {a['bonnie_size']} MiB, "
          f"{a['bonnie_files']}K files. bonnie++ waits at a prompt before each phase (`-y p`); the harness "
          "drops the page cache (`sync; echo 1 > /proc/sys/vm/drop_caches`) before rewrite, block read and "
          "seeks, and all caches (`echo 3`) before each run, so reads come from the filesystem and the device, "
          "not from RAM (this machine has 24 GiB; `-r` only tells bonnie++ a RAM size that lets the file size "
          "through). Block write ends with bonnie++'s fsync.", ""]
    md += bonnie_table(results)
    md += ["", "![bonnie++ per peer](pool.png)", "", "### Ratios to btrfs", ""]
    md += ratio_rows(results, bonnie.METRICS, lambda r, k: med(bstat(r, k)), lambda k: "bonnie:" + k, TARGETS)
    md += ["", "Targets (issue 10): block write and read ≥ 1.0, rewrite ≥ 1.0, seeks ≥ 0.8, create/stat/delete "
           "≥ 1.0, against btrfs with the same compression (pool-off ↔ btrfs, pool-lz4 ↔ btrfs compress=lzo). "
           "Other rows: ratio to plain btrfs, for context. `[lo–hi]`: per-round ratios; ⚠: the rounds disagree "
           "about which side of the line the ratio is on.", "", "![ratios to btrfs](pool-ratios.png)", "",
           "### bonnie++'s own CPU (%CP, median)", ""]
    md += bonnie_cpu_table(results)
    md += ceiling_lines(results, bonnie.METRICS, lambda r, k: med(bstat(r, k)), lambda k: "bonnie:" + k, "bonnie++")
    md += ["", "### Where the pool server's time goes, per phase", ""]
    md += phase_table(results)
    md += ["", "## fio jobs and metadata (the jobs of `ringfuse bench fio`)", ""]
    fio_results = [dict(r, transport=r.get("transport") or r["kind"]) for r in results]
    md += report.table(fio_results)
    keys = [j.key for j in JOBS] + [f"meta:{p}" for p in METADATA_PHASES]
    md += ["", "Ratios to btrfs:", ""]
    md += ratio_rows(results, keys, report.median, lambda k: k, {})
    md += ceiling_lines(results, keys, report.median, lambda k: k, "fio jobs")
    md += ["", "Server CPU per operation (µs; ringfuse servers only: a kernel filesystem's work is not in one process):", ""]
    md += report.cpu_table([r for r in fio_results if r["kind"] != "kernel"])
    md += fsync_lines(results)
    md += ["", "## `pool verify` against the device's sequential read bandwidth", ""]
    md += verify_lines(run, results)
    md += ["", "## Peers", "", "| peer | what | version, mount | problems |", "|---|---|---|---|"]
    for r in results:
        problems = "; ".join(r.get("errors", []) + r.get("notes", [])).replace("\n", " ").replace("|", "/")
        md.append(f"| {r['name']} | {r['label']} | {r.get('version', '-')} | {problems or 'none'} |")
    md += ["", "## Exact commands", "", "```"] + run.get("setup_commands", []) + ["```", "",
           "bonnie++ (`-y p`: the harness answers each prompt, after the drops described above):", "", "```",
           run.get("bonnie_command") or "-", "```", "", "fio jobs (`<dir>` = the peer's mount point, `/data`):", "",
           "```"] + [f"# {k}\n{v}" for k, v in run.get("job_commands", {}).items()] + ["```", ""]
    v = run.get("verify")
    if v:
        md += ["Verification:", "", "```", "# fill each pool, then stop its server (it commits)", v.get("fill_command", ""),
               "sync; echo 3 > /proc/sys/vm/drop_caches", "./ringfuse pool verify rfbench-PEER",
               "# the device, before and after", "fio --name=dense --filename=DENSE --size=... --rw=write --bs=1M "
               "--direct=1 --ioengine=libaio --iodepth=8 --end_fsync=1", v["device_before"]["qd1_command"],
               v["device_before"]["qd8_command"], "```", ""]
    path = os.path.join(out, "pool.md")
    kept = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        if ANALYSIS in old:
            kept = old[old.index(ANALYSIS):]
    md.append(kept or ANALYSIS + "\n\n## Analysis\n\n(to be written from the figures above)\n")
    with open(path, "w") as f:
        f.write("\n".join(md))
    try:
        charts(out, results, run)
    except ImportError as e:
        print(f"bench pool: no charts ({e}); apt-get install python3-matplotlib", file=sys.stderr)


def color(name):
    return ("#d62728" if name.startswith("pool") else "#1f77b4" if name.startswith("btrfs")
            else "#2ca02c" if name == CEILING else "#7f7f7f")


def charts(out, results, run):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    measured = [r for r in results if any(r.get("bonnie") or [])]
    if not measured:
        return
    names = [r["name"] for r in measured]
    sub = f"{run['machine']['date']}, Linux {run['machine']['kernel']}, {run['machine']['cpus']} CPUs" + \
          (" — QUICK run" if run["quick"] else "")
    fig, axes = plt.subplots(2, 5, figsize=(17, 0.4 * len(names) * 2 + 2.6), sharey=True, squeeze=False)
    for ax, metric in zip(axes.flat, bonnie.METRICS):
        meds, lo, hi = report.whiskers(measured, lambda r: bstat(r, metric))
        y = range(len(names))
        ax.barh(y, meds, xerr=[lo, hi], color=[color(n) for n in names], capsize=2, error_kw={"elinewidth": 0.8})
        ax.set_title(f"{metric} ({bonnie.UNITS.get(metric, 'ops/s')})", fontsize=9)
        top = max([mm + h for mm, h in zip(meds, hi)] + [1])
        ax.set_xlim(0, top * 1.1)
        for yi, mm in zip(y, meds):
            ax.text(top * 0.01, yi, fmt_b(mm, metric) if mm else "+++++ / -", va="center", fontsize=7,
                    color="white" if mm else "black", fontweight="bold")
        ax.grid(axis="x", alpha=0.3)
        ax.tick_params(axis="x", labelsize=7)
    for row in axes:
        row[0].set_yticks(range(len(names)))
        row[0].set_yticklabels(names, fontsize=8)
    axes[0][0].invert_yaxis()
    fig.suptitle(f"bonnie++ on the same storage (bar = median, whisker = min..max)\n{sub}", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "pool.png"), dpi=100)
    plt.close(fig)
    # ratios of the pool peers to their btrfs, with the targets
    by = {r["name"]: r for r in results}
    pools = [r for r in measured if r.get("compare") in by]
    if not pools:
        return
    fig, ax = plt.subplots(figsize=(11, 4))
    width = 0.8 / len(pools)
    for i, r in enumerate(pools):
        den = by[r["compare"]]
        vals = []
        for metric in bonnie.METRICS:
            a, b = med(bstat(r, metric)), med(bstat(den, metric))
            vals.append(a / b if a is not None and b else 0)
        xs = [j + (i - (len(pools) - 1) / 2) * width for j in range(len(bonnie.METRICS))]
        shown = [(x, v) for x, v in zip(xs, vals) if v > 0]   # n/a (a phase not timed) has no bar
        ax.bar([x for x, _ in shown], [v for _, v in shown], width, label=f"{r['name']} / {den['name']}",
               color=["#d62728", "#ff9896"][i % 2])
        for x, v in zip(xs, vals):
            ax.text(x, v if v else 1, f"{v:.2f}" if v else "n/a", ha="center", va="bottom", fontsize=7)
    for j, metric in enumerate(bonnie.METRICS):
        ax.plot([j - 0.45, j + 0.45], [TARGETS[metric]] * 2, color="black", linewidth=1)
    ax.set_xticks(range(len(bonnie.METRICS)))
    ax.set_xticklabels(bonnie.METRICS, fontsize=8, rotation=20)
    ax.set_ylabel("ratio to btrfs (higher is better)")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.set_title(f"bonnie++: pool / btrfs, median of the rounds; black line = target\n{sub}", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "pool-ratios.png"), dpi=100)
    plt.close(fig)


if __name__ == "__main__":
    report.redraw(write, "pool.json", sys.argv[1:])
