"""pke_dependency trained by the primal trainer on KWDLC: the PKE table
size and the sigma / xi sweeps in the shape of Kudo & Matsumoto (2003)
Tables 4 and 6, beside the libsvm-trained rows of `benchmarks.dependency`.

One primal SVM (degree `--degree`, C 1) is trained on KWDLC train (gold
bunsetsu and JUMAN POS) in this process; its full subset-weight table stays
in memory, so every PKE form is built from it without retraining: sigma in
{0.01, 0.005, 0.001, 0.0005} at xi = 1 (Table 4), xi in {1, 2, 3} at
`--xi-sigma` (Table 6). Each form parses KWDLC test with gold bunsetsu
(`benchmarks.dependency.bench_form`). Training time and the process's peak
RSS after training are recorded. The libsvm rows come from
`--libsvm-json` (metrics/bench_dependency.json, written by `python -m
benchmarks.dependency`; a separate run, on this machine), and the speedups
are over that run's PKB.

    python -m benchmarks.dependency_primal [--limit N] [--test-limit N]
"""
import argparse
import json
import resource
import time
from pathlib import Path
from typing import Dict, Optional

import spacy
from spacy.training import Example

from benchmarks.dependency import SIGMAS, XIS, bench_form, read_docs
from benchmarks.harness import BENCHMARKS_MD, DATA, REPO, fmt, machine_info, publish
from spacy_adf.corpora.bunsetsu import make_predicted

NAME = "bench_dependency_primal"


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def libsvm_rows(path: Path, degree: int) -> Optional[Dict]:
    """The stored libsvm-trained run's rows for `degree`, if any."""
    if not path.exists():
        return None
    data = json.loads(path.read_text())
    for entry in data.get("degrees", []):
        if entry.get("degree") == degree:
            return {"n_train": data.get("n_train"), "svm": entry.get("svm"), "rows": entry.get("rows"),
                    "machine": data.get("machine")}
    return None


def markdown(r: Dict) -> str:
    lines = ["## pke_dependency with the primal trainer: Tables 4 and 6", "",
             f"`{r['command']}`; KWDLC train ({r['n_train']:,} sentences) -> test ({r['n_test']:,}), "
             f"gold bunsetsu, d = {r['degree']}. Primal training: {r['train_seconds']:.0f} s "
             f"in `initialize`, peak RSS {r['peak_rss_mb']:,.0f} MB; {r['decisions']:,} training "
             f"decisions, {r['n_subsets']:,} subsets with a weight. Speedups are over the PKB "
             "classifier time of the libsvm run below (same machine, separate run).", "",
             "| trainer | form | sigma | xi | abs(Omega) | classifier ms/sent | whole parse ms/sent | "
             "speedup (classifier) | dep. acc. | sent. acc. |", "|---|---|---|---|---|---|---|---|---|---|"]
    pkb = None
    lib = r.get("libsvm")
    if lib and lib.get("rows"):
        pkb = lib["rows"][0]["classifier_s_per_sent"]
    for trainer, rows in (("primal", r["rows"]), ("libsvm", lib["rows"] if lib else [])):
        for row in rows:
            speed = pkb / max(row["classifier_s_per_sent"], 1e-12) if pkb else None
            lines.append(
                f"| {trainer} | {row['kind'].upper()} | {fmt(row['sigma'], 'g', '-')} | {fmt(row['xi'], 'd', '-')} | "
                f"{fmt(row['omega'], ',d', '-')} | {1e3 * row['classifier_s_per_sent']:.3f} | "
                f"{1e3 * row['parse_s_per_sent']:.3f} | {fmt(speed, ',.0f')} | {row['dep_acc']:.2f} | "
                f"{row['sent_acc']:.2f} |")
    if lib:
        lines += ["", f"libsvm rows: metrics/bench_dependency.json ({lib.get('n_train') or 0:,} training "
                  f"sentences; SVM training {fmt((lib.get('svm') or {}).get('svm_seconds'), ',.0f')} s)."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> Dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--degree", type=int, default=3)
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--limit", type=int, default=0, help="training sentences (0 = all)")
    p.add_argument("--test-limit", type=int, default=0)
    p.add_argument("--sigmas", default=",".join(str(s) for s in SIGMAS))
    p.add_argument("--xis", default=",".join(str(x) for x in XIS))
    p.add_argument("--xi-sigma", type=float, default=0.001)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--libsvm-json", type=Path, default=REPO / "metrics" / "bench_dependency.json")
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / "bench_dependency_primal.json")
    p.add_argument("--out-md", type=Path, default=BENCHMARKS_MD)
    args = p.parse_args(argv)
    nlp = spacy.blank("xx")
    pipe = nlp.add_pipe("pke_dependency", config={"degree": args.degree, "C": args.C, "classifier": "pke",
                                                  "sigma": 0.0, "trainer": "primal"})
    train = read_docs(args.data / "kwdlc" / "train.knp", nlp.vocab, args.limit)
    test = read_docs(args.data / "kwdlc" / "test.knp", nlp.vocab, args.test_limit)
    examples = [Example(make_predicted(ref), ref) for ref in train]
    start = time.perf_counter()
    nlp.initialize(lambda: examples)
    train_seconds = time.perf_counter() - start
    peak = peak_rss_mb()
    print(f"primal d={args.degree}: trained in {train_seconds:.0f} s, peak RSS {peak:,.0f} MB", flush=True)
    rows = [bench_form(pipe, test, "pke", float(s), 1, args.repeats) for s in args.sigmas.split(",")]
    for xi in (int(x) for x in args.xis.split(",")):
        if xi != 1 or str(args.xi_sigma) not in args.sigmas.split(","):
            rows.append(bench_form(pipe, test, "pke", args.xi_sigma, xi, args.repeats))
    for row in rows:
        row.pop("heads", None)
    primal = pipe.plain_model.primal
    report = {
        "command": "python -m benchmarks.dependency_primal", "machine": machine_info(),
        "degree": args.degree, "C": args.C, "n_train": len(train), "n_test": len(test),
        "train_seconds": train_seconds, "peak_rss_mb": peak, "stats": pipe.cfg.get("stats"),
        "decisions": int(pipe.cfg.get("stats", {}).get("n_decisions", 0)),
        "n_subsets": int(primal.n_subsets) if primal is not None else 0,
        "rows": rows, "libsvm": libsvm_rows(args.libsvm_json, args.degree),
    }
    publish(report, args.out_json, args.out_md, NAME, markdown(report))
    return report


if __name__ == "__main__":
    main()
