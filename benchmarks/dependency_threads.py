"""The shipped pke_dependency model's whole parse through ``nlp.pipe``, on
one thread and on two (the component's ``n_threads``), side by side in one
process.

Model: a trained pke_dependency pipeline (`--model`, the `train-dep` output
by default). Input: every sentence of KWDLC test and of KU Wikipedia test
as a Doc with gold bunsetsu, POS and morph and no tree (`make_predicted`,
built outside the clock). A pass is ``list(nlp.pipe(docs, batch_size=...))``:
sentence ends, features, the model's algorithm (cascade or tournament) with
PKE, token tree. One warm-up
pass, then the settings interleaved, best of `--repeats` per setting; every
pass's trees are compared with the first one-thread pass. Times are wall
clock: a second thread is worth only the wall time it saves.

    python -m benchmarks.dependency_threads --model training/dep_kwdlc/model-last

Output: JSON (`--out-json`) and a Markdown section between
`<!-- bench_dependency_threads:start -->` and `<!-- ...:end -->` in `--out-md`.
"""
import argparse
import os
import sys
from pathlib import Path
from typing import Dict

import spacy

from benchmarks.dependency import read_docs
from benchmarks.dependency_speed import one_pass, trees
from benchmarks.harness import BENCHMARKS_MD, DATA, REPO, machine_info, publish

NAME = "bench_dependency_threads"
SETTINGS = (1, 2)


def bench(nlp, refs, repeats: int, batch_size: int) -> Dict:
    pipe = nlp.get_pipe("pke_dependency")
    pipe.n_threads = 1
    one_pass(nlp, refs, batch_size)  # warm-up: the token table fills
    best = {n: float("inf") for n in SETTINGS}
    reference = None
    same = True
    for r in range(repeats):
        for n in SETTINGS:
            pipe.n_threads = n
            seconds, out = one_pass(nlp, refs, batch_size)
            best[n] = min(best[n], seconds)
            got = trees(out)
            if reference is None:
                reference = got
            same = same and got == reference
            print(f"  round {r + 1}/{repeats}, {n} thread(s): {len(refs) / seconds:,.0f} sentences/s", flush=True)
    pipe.n_threads = 1
    return {"sentences": len(refs), "identical_trees": same,
            **{f"threads_{n}_s": best[n] for n in SETTINGS},
            **{f"threads_{n}_sent_per_s": len(refs) / best[n] for n in SETTINGS},
            "speedup_2_vs_1": best[1] / best[2]}


def markdown(report: Dict) -> str:
    m = report["machine"]
    lines = [
        "## pke_dependency whole parse of the shipped model: one thread and two",
        "",
        f"`{report['command']}`; commit {m['git_commit']}, {m['cores']} cores ({m['cpu']}); load average "
        f"{m['load_average_at_start'][0]:.1f} at the start, {report['load_average_at_end'][0]:.1f} at the end. "
        f"Model `{report['model']}` (PKE, {report['n_kept']:,} subsets). Input: each test set's sentences "
        f"with gold bunsetsu, POS and morph, `nlp.pipe(docs, batch_size={report['batch_size']})`, Docs built "
        f"outside the clock; one warm-up pass, then best of {report['repeats']} interleaved passes per setting.",
        "",
        "| test set | sentences | 1 thread, sentences/s | 2 threads, sentences/s | 2 / 1 | same trees |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in report["sets"].items():
        lines.append(f"| {name} | {row['sentences']:,} | {row['threads_1_sent_per_s']:,.0f} "
                     f"| {row['threads_2_sent_per_s']:,.0f} | {row['speedup_2_vs_1']:.2f}x "
                     f"| {'yes' if row['identical_trees'] else 'NO'} |")
    algorithm = report.get("algorithm", "cascade")
    lines += ["", f"Two threads share the {algorithm} parse and its classifier (parts of a batch's sentences); "
              "reading the Docs, sentence ends and setting the trees stay on the calling thread.", ""]
    return "\n".join(lines)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--model", type=Path, default=REPO / "training" / "dep_kwdlc" / "model-last")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / "bench_dependency_threads.json")
    p.add_argument("--out-md", type=Path, default=BENCHMARKS_MD)
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    command = "python -m benchmarks.dependency_threads " + " ".join(argv if argv is not None else sys.argv[1:])
    if not (args.model / "config.cfg").exists():
        raise SystemExit(f"no trained pipeline at {args.model}: run `spacy project run train-dep` first")
    machine = machine_info()
    nlp = spacy.load(args.model)
    sets = {"KWDLC test": args.data / "kwdlc" / "test.knp",
            "KU Wikipedia test": args.data / "ku_wikipedia_annotated" / "test.knp"}
    rows = {}
    for name, path in sets.items():
        print(f"{name}: reading {path}", flush=True)
        refs = read_docs(path, nlp.vocab)
        rows[name] = bench(nlp, refs, args.repeats, args.batch_size)
    report = {"command": command.strip(), "machine": machine, "load_average_at_end": list(os.getloadavg()),
              "model": str(args.model), "algorithm": nlp.get_pipe("pke_dependency").cfg.get("algorithm", "cascade"),
              "n_kept": nlp.get_pipe("pke_dependency").plain_model.classifier.n_kept,
              "repeats": args.repeats, "batch_size": args.batch_size, "sets": rows}
    publish(report, args.out_json, args.out_md, NAME, markdown(report))
    return 0 if all(r["identical_trees"] for r in rows.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
