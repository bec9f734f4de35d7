"""Tune PKE's pruning (sigma, xi) of a pke_dependency trained as a shipped
config trains it, on dev only: accuracy against speed and table size.

The on-line trainer keeps every subset weight in memory after training
(they are not saved), so one training in this process serves every PKE
form: for each (sigma, xi) of the grid the classifier is rebuilt
(`set_classifier`) and parses the dev files with gold bunsetsu (dependency
accuracy, whole-parse sentences/s of the Cython path, best of `--repeats`,
and |Omega|, the subsets kept). Pick the form on these dev rows; the test
set is never read here.

    python -m benchmarks.dependency_pruning configs/dep_ja_kwdlc.cfg \\
        --dev DEV.knp[,DEV2.knp] [--sigmas 0.001,0.002] [--xis 1,2,3] \\
        --paths.train TRAIN.knp --paths.jackknifed ANNOTATIONS.spacy ...

Extra ``--section.key value`` arguments override the config (as spacy
train's). Output: JSON rows (`--out-json`) and a printed table.
"""
import argparse
import os
import sys
import time
from pathlib import Path
from typing import Dict, List

import spacy
from spacy.cli._util import parse_config_overrides
from spacy.training.initialize import init_nlp

from benchmarks.dependency import bench_form, read_docs
from benchmarks.harness import REPO, machine_info, write_json


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("config", type=Path)
    p.add_argument("--dev", required=True, help="KNP dev files, comma-separated (gold bunsetsu and heads)")
    p.add_argument("--sigmas", default="0.0005,0.001,0.002,0.003,0.005")
    p.add_argument("--xis", default="1,2,3")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / "dep_pruning_dev.json")
    args, extra = p.parse_known_args(argv)
    return args, parse_config_overrides(extra)


def main(argv=None) -> int:
    args, overrides = parse_args(argv)
    config = spacy.util.load_config(args.config, overrides=overrides, interpolate=False)
    start = time.perf_counter()
    print(f"[pruning] training {args.config} (the classifier is trained in initialize)", flush=True)
    nlp = init_nlp(config)
    train_seconds = time.perf_counter() - start
    print(f"[pruning] trained in {train_seconds:.0f} s", flush=True)
    pipe = nlp.get_pipe("pke_dependency")
    refs: List = []
    for path in args.dev.split(","):
        refs.extend(read_docs(Path(path), nlp.vocab))
    print(f"[pruning] {len(refs):,} dev sentences from {args.dev}", flush=True)
    rows: List[Dict] = []
    for xi in [int(x) for x in args.xis.split(",")]:
        for sigma in [float(s) for s in args.sigmas.split(",")]:
            row = bench_form(pipe, refs, "pke", sigma=sigma, xi=xi, repeats=args.repeats)
            row.pop("heads", None)
            row["sent_per_s"] = 1.0 / row["parse_s_per_sent"] if row["parse_s_per_sent"] else None
            rows.append(row)
            print(f"[pruning] sigma {sigma:g} xi {xi}: dev acc {row['dep_acc']:.2f}, "
                  f"{row['sent_per_s']:,.0f} sent/s, |Omega| {row['omega']:,}", flush=True)
    report = {"config": str(args.config), "overrides": overrides, "dev": args.dev, "n_dev": len(refs),
              "train_seconds": train_seconds, "machine": machine_info(),
              "load_average_at_end": list(os.getloadavg()), "rows": rows}
    write_json(args.out_json, report)
    print(f"{'sigma':>7} {'xi':>3} {'dev acc':>8} {'sent/s':>9} {'|Omega|':>12}")
    for r in rows:
        print(f"{r['sigma']:>7g} {r['xi']:>3} {r['dep_acc']:>8.2f} {r['sent_per_s']:>9,.0f} {r['omega']:>12,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
