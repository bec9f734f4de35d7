"""Merge the runs of benchmarks/reproduce.py into metrics/reproduction.json and
write docs/reproduction.md with PNG plots (matplotlib, Agg backend)."""
import json
from pathlib import Path
from typing import Dict, List, Optional

from benchmarks.harness import REPO, write_json
ORDER = ["adf", "sgd", "perc", "avgperc", "lbfgs", "adf_mb10", "sgd_mb10"]
LABELS = {"adf": "ADF", "sgd": "SGD", "perc": "Perc", "avgperc": "Avg-Perc",
          "lbfgs": "L-BFGS (batch)", "adf_mb10": "ADF, mini-batch 10",
          "sgd_mb10": "SGD, mini-batch 10"}
COLORS = {"adf": "C3", "sgd": "C0", "perc": "C2", "avgperc": "C1", "lbfgs": "C4",
          "adf_mb10": "C3", "sgd_mb10": "C0"}
TABLE4 = ["chunking", "bioner", "segmentation"]
ONLINE = ["sgd", "perc", "avgperc"]


def load_runs(run_dir: Path) -> Dict[str, Dict]:
    tasks: Dict[str, Dict] = {}
    for path in sorted(run_dir.glob("*__*.json")):
        rec = json.loads(path.read_text())
        t = tasks.setdefault(rec["task"], {"spec": rec["spec"], "machine": rec["machine"],
                                           "methods": {}})
        rec["result"]["wall_seconds"] = rec.get("wall_seconds")
        rec["result"]["load_at_start"] = (rec["machine"].get("load_average_at_start") or [None])[0]
        t["methods"][rec["method"]] = rec["result"]
    return tasks


def _passes(r: Dict) -> str:
    return f"{r['passes']}" if r["converged"] else f"> {r['passes']} (cap, not converged)"


def _secs(r: Dict) -> str:
    return f"{r['seconds']:.1f}" if r["converged"] else f"> {r['seconds']:.1f}"


def _last5(r: Dict) -> float:
    scores = [c["score"] for c in r["curve"]][-5:]
    return sum(scores) / len(scores)


def _load(r: Dict) -> str:
    load = r.get("load_at_start")
    return "n/a" if load is None else f"{load:.1f}"


def _paper(spec: Dict, key: str, method: str) -> str:
    value = spec.get(key, {}).get(method)
    return "n/a" if value is None else f"{value}"


def stable_point(r: Dict, tol: float = 0.1) -> Dict:
    """First curve point from which every later score stays within `tol`
    points of the run's last score (a looser stability measure than the
    paper's five-pass rule)."""
    curve = r["curve"]
    last = curve[-1]["score"]
    k = len(curve) - 1
    while k > 0 and abs(curve[k - 1]["score"] - last) <= tol:
        k -= 1
    return curve[k]


def first_reaching(r: Dict, target: float) -> Optional[Dict]:
    for c in r["curve"]:
        if c["score"] >= target - 1e-9:
            return c
    return None


def best_baseline(runs: Dict[str, Dict]):
    """(method, score) of the baseline with the best reported score."""
    base = [(m, runs[m]["score"]) for m in ONLINE + ["lbfgs"] if m in runs]
    return max(base, key=lambda x: x[1]) if base else (None, None)


def checks(task: str, runs: Dict[str, Dict]) -> List[str]:
    """The issue's done-when comparisons for one task, as sentences. Times
    are process CPU seconds when every run of the task has them (immune to
    machine load), else wall seconds."""
    out = []
    adf = runs.get("adf")
    if adf is None:
        return ["ADF was not run"]
    key = "cpu_seconds" if all(r.get("cpu_seconds") is not None for r in runs.values()) else "seconds"
    unit = "CPU s" if key == "cpu_seconds" else "s"
    for m in ["sgd", "perc", "avgperc", "lbfgs"]:
        r = runs.get(m)
        if r is None:
            continue
        verdict = "yes" if adf["score"] >= r["score"] else "NO"
        out.append(f"score: ADF {adf['score']:.2f} >= {LABELS[m]} {r['score']:.2f}: {verdict}")
    for m in ONLINE + ["lbfgs"]:
        r = runs.get(m)
        if r is None:
            continue
        limit = r[key] / 5 if m == "lbfgs" else r[key]
        what = "1/5 of " if m == "lbfgs" else ""
        if not adf["converged"]:
            verdict = "ADF did not converge within its cap"
        elif adf[key] <= limit:
            verdict = "yes" + ("" if r["converged"] else f" ({LABELS[m]} not converged by its cap)")
        elif not r["converged"]:
            verdict = f"undecided ({LABELS[m]} stopped unconverged at its cap)"
        else:
            verdict = "NO"
        out.append(f"time to convergence: ADF {adf[key]:.1f} {unit} <= {what}{LABELS[m]} "
                   f"{r[key]:.1f} {unit}: {verdict}")
    lb = runs.get("lbfgs")
    if lb is not None:
        a, b = first_reaching(adf, lb["score"]), first_reaching(lb, lb["score"])
        if a is not None:
            out.append(f"time to L-BFGS's final score ({lb['score']:.2f}): ADF {a[key]:.1f} {unit} "
                       f"(pass {a['pass']}), L-BFGS {b[key]:.1f} {unit} (pass {b['pass']}): "
                       f"{b[key] / max(a[key], 1e-9):.1f}x"
                       f" ({'>=' if b[key] >= 5 * a[key] else '<'} 5x)")
    m, target = best_baseline(runs)
    if m is not None:
        a, b = first_reaching(adf, target), first_reaching(runs[m], target)
        if a is None:
            out.append(f"time to the best baseline's score ({LABELS[m]}, {target:.2f}): ADF never "
                       f"reached it (best {adf['best_score']:.2f})")
        else:
            out.append(f"time to the best baseline's score ({LABELS[m]}, {target:.2f}): ADF "
                       f"{a[key]:.1f} {unit} (pass {a['pass']}), {LABELS[m]} {b[key]:.1f} {unit} "
                       f"(pass {b['pass']}): {b[key] / max(a[key], 1e-9):.1f}x")
    return out


def plot_task(task: str, data: Dict, img_dir: Path) -> Optional[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = data["methods"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    best = max(r["best_score"] for r in runs.values())
    for m in ORDER:
        r = runs.get(m)
        if r is None:
            continue
        style = "--" if m.endswith("_mb10") else "-"
        xs = [c["pass"] for c in r["curve"]]
        ts = [c["seconds"] for c in r["curve"]]
        ys = [c["score"] for c in r["curve"]]
        axes[0].plot(xs, ys, style, color=COLORS[m], label=LABELS[m], marker=".", markersize=3)
        axes[1].plot(ts, ys, style, color=COLORS[m], label=LABELS[m], marker=".", markersize=3)
    low = best - (6.0 if data["spec"]["metric"] == "F1" else 8.0)
    for ax, xl in zip(axes, ["passes over the training data", "training seconds"]):
        ax.set_ylim(low, best + 0.5)
        ax.set_xlabel(xl)
        ax.set_ylabel(data["spec"]["metric"])
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=8, loc="lower right")
    fig.suptitle(data["spec"]["title"])
    fig.tight_layout()
    name = f"reproduction_{task}.png"
    fig.savefig(img_dir / name, dpi=90)
    plt.close(fig)
    return name


def plot_one_pass(tasks: Dict, img_dir: Path) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [t for t in TABLE4 + ["sentiment"] if t in tasks]
    methods = ["adf", "sgd", "perc", "avgperc"]
    fig, axes = plt.subplots(1, len(names), figsize=(3.2 * len(names), 3.4), squeeze=False)
    for ax, t in zip(axes[0], names):
        runs = tasks[t]["methods"]
        vals = [runs[m]["one_pass_score"] if m in runs else 0.0 for m in methods]
        ax.bar([LABELS[m] for m in methods], vals, color=[COLORS[m] for m in methods])
        lo = min(v for v in vals if v) - 2.0
        ax.set_ylim(lo, max(vals) + 1.0)
        ax.set_title(t, fontsize=9)
        ax.tick_params(axis="x", labelsize=7, rotation=30)
    fig.suptitle("One-pass learning (score after a single pass)")
    fig.tight_layout()
    name = "reproduction_one_pass.png"
    fig.savefig(img_dir / name, dpi=90)
    plt.close(fig)
    return name


def write_report(run_dir: Path, total_seconds: Optional[float] = None) -> Dict:
    tasks = load_runs(Path(run_dir))
    if not tasks:
        raise SystemExit(f"no runs in {run_dir}; run `python -m benchmarks.reproduce all` first")
    img_dir = REPO / "docs" / "img"
    img_dir.mkdir(parents=True, exist_ok=True)
    merged = {"total_wall_seconds": total_seconds,
              "unit_wall_seconds": sum(r.get("wall_seconds") or 0.0 for t in tasks.values()
                                       for r in t["methods"].values()),
              "tasks": {}}
    for t, data in tasks.items():
        merged["tasks"][t] = {
            "title": data["spec"]["title"], "metric": data["spec"]["metric"],
            "settings": {k: data["spec"][k] for k in ("c", "sigma", "sgd_lr", "passes", "lbfgs_iter")},
            "paper": data["spec"].get("paper", {}), "machine": data["machine"],
            "methods": data["methods"], "checks": checks(t, data["methods"]),
        }
    write_json(REPO / "metrics" / "reproduction.json", merged, indent=1)

    lines = [
        "# The ADF paper's comparisons, regenerated",
        "",
        "Generated by `spacy project run reproduce` (`python -m benchmarks.reproduce all`); raw "
        "figures and every curve are in `metrics/reproduction.json`. Do not edit by hand: the "
        "analysis is in [reproduction_analysis.md](reproduction_analysis.md).",
        "",
    ]
    machine = next(iter(tasks.values()))["machine"]
    lines.append(f"Machine: {machine['cpu']}, {machine['cores']} cores, Python {machine['python']}."
                 + (f" Whole workflow: {total_seconds / 60:.1f} min wall, two runs at a time."
                    if total_seconds else ""))
    unit_wall = sum(r.get("wall_seconds") or 0.0 for t in tasks.values() for r in t["methods"].values())
    lines.append(f"Units (task x method, each in its own process, including initialisation and "
                 f"scoring): {unit_wall / 60:.1f} min of wall time in all, "
                 f"{unit_wall / 120:.1f} min when run two at a time (`--jobs 2`).")
    lines += [
        "",
        "Protocol: every method of a task trains the same pipeline config (same features) from "
        "zero weights; on-line methods see the same seeded shuffle each pass (spaCy batches of "
        "64, one optimizer step per sample unless mini-batch 10); the test set is scored after "
        "every pass (L-BFGS: after every iteration; a pass is one function evaluation) and "
        "scoring time is excluded. Seconds are wall seconds and, where recorded, process CPU "
        "seconds (the machine may be shared: see the load column). Converged = the first pass at which the last five scores "
        "differ by less than 0.01 points (the paper's criterion); runs stop there or at the "
        "task's pass cap. Seconds are training seconds to that pass. Hyperparameters are the "
        "paper's (c and sigma per task, alpha 0.995, beta 0.6, q = n/10); SGD: rate decays by "
        "0.9 per pass; L-BFGS: memory m = 10.",
        "",
    ]

    def table(names: List[str], heading: str, with_paper_passes: bool = False):
        lines.append(f"## {heading}")
        lines.append("")
        for t in names:
            if t not in tasks:
                lines.append(f"- {t}: not run")
                continue
            data = tasks[t]
            spec, runs = data["spec"], data["methods"]
            lines.append(f"### {spec['title']}")
            lines.append("")
            head = (f"| method | {spec['metric']} | paper | passes | train s | train CPU s | best {spec['metric']} "
                    f"| mean of last 5 | 1-pass | within 0.1 of last from pass (s) | unit wall s "
                    f"| load at start |")
            if with_paper_passes:
                head += " paper passes | paper s |"
            lines.append(head)
            lines.append("|---" * (head.count("|") - 1) + "|")
            for m in ["lbfgs", "sgd", "perc", "avgperc", "adf"]:
                r = runs.get(m)
                if r is None:
                    continue
                one = r.get("one_pass_score")
                cpu = r.get("cpu_seconds")
                row = (f"| {LABELS[m]} | {r['score']:.2f} | {_paper(spec, 'paper', m)} | {_passes(r)} | "
                       f"{_secs(r)} | {'n/a' if cpu is None else f'{cpu:.1f}'} | {r['best_score']:.2f} | "
                       f"{_last5(r):.2f} | "
                       f"{'' if one is None else f'{one:.2f}'} | "
                       f"{stable_point(r)['pass']} ({stable_point(r)['seconds']:.1f}) | "
                       f"{r.get('wall_seconds') or 0:.0f} | {_load(r)} |")
                if with_paper_passes:
                    row += f" {_paper(spec, 'paper_passes', m)} | {_paper(spec, 'paper_seconds', m)} |"
                lines.append(row)
            lines.append("")
            lines.append("Checks (the issue's done-when):")
            lines.append("")
            lines.extend(f"- {c}" for c in checks(t, runs))
            lines.append("")
            img = plot_task(t, data, img_dir)
            lines.append(f"![{spec['title']}](img/{img})")
            lines.append("")

    table(TABLE4, "Table 4: structured tasks (CRF)")
    lines.append("The paper's Table 4 cells other than ADF's published scores did not survive in "
                 "our copy of the paper (shared/papers/sun2014_adf.md); those cells say n/a.")
    lines.append("")
    table(["sentiment"], "Table 6: sentiment (MaxEnt)", with_paper_passes=True)

    lines.append("## One-pass learning")
    lines.append("")
    lines.append("| task | " + " | ".join(LABELS[m] for m in ["adf", "sgd", "perc", "avgperc"]) + " |")
    lines.append("|---|---|---|---|---|")
    for t in TABLE4 + ["sentiment"]:
        if t in tasks:
            runs = tasks[t]["methods"]
            cells = [f"{runs[m]['one_pass_score']:.2f}" if m in runs else "n/a"
                     for m in ["adf", "sgd", "perc", "avgperc"]]
            lines.append(f"| {t} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(f"![one pass](img/{plot_one_pass(tasks, img_dir)})")
    lines.append("")

    lines.append("## Mini-batch 10 vs 1")
    lines.append("")
    lines.append("| task | method | mini-batch | score | passes | train s | train CPU s |")
    lines.append("|---|---|---|---|---|---|---|")
    for t, data in tasks.items():
        runs = data["methods"]
        if "adf_mb10" not in runs and "sgd_mb10" not in runs:
            continue
        for base in ["adf", "sgd"]:
            for m, mb in [(base, 1), (f"{base}_mb10", 10)]:
                r = runs.get(m)
                if r is not None:
                    cpu = r.get("cpu_seconds")
                    lines.append(f"| {t} | {LABELS[base]} | {mb} | {r['score']:.2f} | {_passes(r)} | "
                                 f"{_secs(r)} | {'n/a' if cpu is None else f'{cpu:.1f}'} |")
    lines.append("")
    lines.append("The curves of the mini-batch runs are the dashed lines in the task plots above.")
    lines.append("")
    (REPO / "docs" / "reproduction.md").write_text("\n".join(lines))
    print("\n".join(lines))
    return merged
