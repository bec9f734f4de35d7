"""pke_dependency's whole-parse speed through ``nlp.pipe``, one process:
the Cython path (the component's) vs the Python reference path
(`tests/helpers/reference_parsers.py`, the Cython path's test oracle), with
PKE and with PKB, on the same model.

The model: pke_dependency, degree `--degree`, trained on the first
`--limit` KWDLC training sentences (libsvm; saved to / reused from
`--model-dir`), rebuilt as PKE (`--sigma`, `--xi`) and as PKB from the same
support vectors. Input: every KWDLC test sentence as a Doc with gold
bunsetsu, POS and morph, no tree (`make_predicted`, built outside the
clock). A pass is ``list(nlp.pipe(docs, batch_size=...))``: sentence split,
features, cascaded chunking, classifier, token tree. PKE: best of
`--repeats` passes per path, the paths interleaved; the first Cython pass of
a fresh parser (its token table empty: feature strings built for every
distinct token) is reported on its own as "cold". PKB: one pass per path
(`--pkb-limit` sentences, 0 = all). Every pass's trees are compared with the
Python path's.

    python -m benchmarks.dependency_speed                  # ~2 minutes once the model exists
    python -m benchmarks.dependency_speed --limit 300 --repeats 2 --pkb-limit 200

Output: JSON (`--out-json`) and a Markdown section between
`<!-- bench_dependency_speed:start -->` and `<!-- bench_dependency_speed:end -->`
in `--out-md`. It runs at `--nice` 10 (a shared machine); read the load
averages it records: other processes slow both paths, not always equally.
"""
import argparse
import os
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Dict, List
from unittest import mock

import spacy

from benchmarks.dependency import read_docs, train_parser
from benchmarks.harness import BENCHMARKS_MD, DATA, REPO, machine_info, publish
from spacy_adf.corpora.bunsetsu import make_predicted
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY
from spacy_adf.models import bunsetsu_parser
from tests.helpers.reference_parsers import reference_path

NAME = "bench_dependency_speed"


class CythonPathClock:
    """While the `with` block runs, the Cython path of `parser` (a
    `BunsetsuParser`) is counted and timed: ``n_questions`` (every question
    or game), ``n_calls`` (classifier calls: the cascade answers a repeated
    question from the round before) and ``seconds`` per stage of
    `parse_docs`: "read" (the Docs into arrays), "cascade" (the kernel:
    features, rounds or games, classifier), "tree" (the token-tree arrays).
    It wraps `parse_docs` and the kernel that it calls."""

    def __init__(self, parser):
        self.parser = parser
        self.n_questions = self.n_calls = 0
        self.seconds = {"read": 0.0, "cascade": 0.0, "tree": 0.0}
        self._marks: List[float] = []
        self._stack = ExitStack()

    def __enter__(self) -> "CythonPathClock":
        kernels = {"cascade_heads": bunsetsu_parser.cascade_heads,
                   "tournament_heads": bunsetsu_parser.tournament_heads}
        for name, kernel in kernels.items():
            self._stack.enter_context(mock.patch.object(bunsetsu_parser, name, self._counted(kernel)))
        self._stack.enter_context(mock.patch.object(self.parser, "parse_docs", self._timed(self.parser.parse_docs)))
        return self

    def __exit__(self, *exc) -> None:
        self._stack.close()

    def _counted(self, kernel):
        def run(*args, **kwargs):
            self._marks.append(time.perf_counter())
            out = kernel(*args, **kwargs)
            self._marks.append(time.perf_counter())
            self.n_questions += out[1]
            self.n_calls += out[-1]  # the tournament calls the classifier once per game
            return out
        return run

    def _timed(self, parse_docs):
        def run(*args, **kwargs):
            self._marks = [time.perf_counter()]
            out = parse_docs(*args, **kwargs)
            start, enter, leave = self._marks
            stages = self.seconds
            stages["read"] += enter - start
            stages["cascade"] += leave - enter
            stages["tree"] += time.perf_counter() - leave
            return out
        return run


def trees(docs) -> List:
    return [(d.spans[BUNSETSU_KEY].attrs["heads"], d.to_array(["HEAD", "DEP"]).tolist()) for d in docs]


def one_pass(nlp, refs, batch_size: int):
    """(seconds, parsed Docs) of one nlp.pipe pass on fresh Docs."""
    docs = [make_predicted(r) for r in refs]
    start = time.perf_counter()
    out = list(nlp.pipe(docs, batch_size=batch_size))
    return time.perf_counter() - start, out


def bench(nlp, refs, kind: str, repeats: int, batch_size: int, sigma: float, xi: int) -> Dict:
    pipe = nlp.get_pipe("pke_dependency")
    pipe.set_classifier(kind, sigma=sigma, xi=xi)
    parser = pipe.plain_model
    parser._table = None  # a cold start for the Cython path
    n = len(refs)
    row: Dict = {"kind": kind, "sentences": n}
    cold, out = one_pass(nlp, refs, batch_size)
    fast_trees = trees(out)
    row["cython_cold_s"] = cold
    best = {"python": float("inf"), "cython": float("inf")}
    same = True
    stages = {}
    for _ in range(max(repeats, 1)):
        with reference_path(pipe) as python:  # first in each round: the reference
            seconds, out = one_pass(nlp, refs, batch_size)
        best["python"] = min(best["python"], seconds)
        reference = trees(out)
        row["questions"] = python.n_decisions
        with CythonPathClock(parser) as clock:
            seconds, out = one_pass(nlp, refs, batch_size)
        if seconds < best["cython"]:
            stages = dict(clock.seconds, rest=seconds - sum(clock.seconds.values()))
        best["cython"] = min(best["cython"], seconds)
        row["classifier_calls"] = clock.n_calls
        same = same and trees(out) == reference
    same = same and fast_trees == reference
    row.update({
        "python_s": best["python"], "cython_s": best["cython"],
        "python_sent_per_s": n / best["python"], "cython_sent_per_s": n / best["cython"],
        "cython_cold_sent_per_s": n / cold, "speedup_cython_vs_python": best["python"] / best["cython"],
        "identical_trees": same,
        "cython_us_per_sent": {k: 1e6 * v / n for k, v in stages.items()},
    })
    print(f"{kind}: python {row['python_sent_per_s']:,.0f} sent/s, cython {row['cython_sent_per_s']:,.0f} "
          f"(cold {row['cython_cold_sent_per_s']:,.0f}), identical trees: {same}", flush=True)
    return row


def markdown(report: Dict) -> str:
    pke, pkb = report["pke"], report["pkb"]
    m = report["machine"]
    r = report["ratios"]
    lines = [
        "## pke_dependency whole-parse speed: Cython path vs Python path",
        "",
        f"`{report['command']}`; commit {m['git_commit']}, {m['cores']} cores ({m['cpu']}), measured "
        f"niced (load average {m['load_average_at_start'][0]:.1f} at the start, "
        f"{report['load_average_at_end'][0]:.1f} at the end; other jobs move the figures by tens of percent). "
        f"Model: degree {report['degree']}, libsvm-trained on "
        + ("all" if report['n_train'] == "all" else f"the first {report['n_train']}") + " KWDLC training sentences "
        f"({report['n_sv']:,} support vectors); PKE sigma {report['sigma']:g}, xi {report['xi']}; PKB from "
        f"the same support vectors. Input: KWDLC test, {pke['sentences']} sentences (PKB: "
        f"{pkb['sentences']}), gold bunsetsu, `nlp.pipe(docs, batch_size={report['batch_size']})` in one "
        "process, Docs built outside the clock. PKE: best of "
        f"{report['repeats']} interleaved passes per path; PKB: one pass per path.",
        "",
        "| classifier | path | sentences/s | ms / sentence | same trees as Python path |",
        "|---|---|---|---|---|",
    ]
    for row in (pke, pkb):
        for path in ("python", "cython"):
            lines.append(f"| {row['kind'].upper()} | {path} | {row[path + '_sent_per_s']:,.0f} "
                         f"| {1e3 / row[path + '_sent_per_s']:.3f} | {'yes' if row['identical_trees'] else 'NO'} |")
    lines.append(f"| PKE | cython, cold (first pass, token table empty) | {pke['cython_cold_sent_per_s']:,.0f} "
                 f"| {1e3 / pke['cython_cold_sent_per_s']:.3f} | yes |")
    lines += [
        "",
        f"PKE Cython path: {r['pke_cython_vs_python']:.1f}x the PKE Python path, "
        f"{r['pke_cython_vs_pkb_python']:.0f}x the PKB whole parse on the Python path, "
        f"{r['pke_cython_vs_pkb_cython']:.0f}x the PKB whole parse on the Cython path "
        f"(PKB Cython / Python {r['pkb_cython_vs_python']:.2f}x). Questions per sentence "
        f"{pke['questions'] / pke['sentences']:.2f}; classifier calls on the Cython path "
        f"{pke['classifier_calls'] / pke['sentences']:.2f} (a question asked again with nothing changed "
        "is answered from the previous round).",
        "",
        "Where the PKE Cython pass goes (microseconds per sentence, the fastest pass): "
        + ", ".join(f"{k} {v:.1f}" for k, v in pke["cython_us_per_sent"].items())
        + " (read: Doc token attributes and bunsetsu spans into arrays; cascade: pair features, "
        "rounds and classifier calls; tree: token-tree arrays; rest: spaCy's pipe, the component, "
        "`Doc.from_array` and the span attrs).",
        "",
    ]
    return "\n".join(lines)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--degree", type=int, default=3)
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--limit", type=int, default=0, help="training sentences (0 = all of KWDLC train)")
    p.add_argument("--sigma", type=float, default=0.001)
    p.add_argument("--xi", type=int, default=1)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=1000)
    p.add_argument("--pkb-limit", type=int, default=0, help="test sentences for PKB (0 = all)")
    p.add_argument("--model-dir", type=Path, default=None,
                   help="saved / reused model (default training/dep_kwdlc_d{degree}, bench-dependency's "
                        "model, for all of KWDLC; training/dep_kwdlc_d{degree}_{limit} with --limit)")
    p.add_argument("--nice", type=int, default=10, help="added to the process's niceness (a shared machine)")
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / "bench_dependency_speed.json")
    p.add_argument("--out-md", type=Path, default=BENCHMARKS_MD)
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.nice:
        os.nice(args.nice)
    command = "python -m benchmarks.dependency_speed " + " ".join(argv if argv is not None else sys.argv[1:])
    machine = machine_info()
    kw = args.data / "kwdlc"
    vocab = spacy.blank("xx").vocab
    model_dir = args.model_dir or REPO / "training" / (f"dep_kwdlc_d{args.degree}_{args.limit}" if args.limit
                                                      else f"dep_kwdlc_d{args.degree}")
    train_docs = [] if (model_dir / "config.cfg").exists() else read_docs(kw / "train.knp", vocab, args.limit)
    nlp = train_parser(train_docs, args.degree, args.C, model_dir)
    refs = read_docs(kw / "test.knp", nlp.vocab)
    pke = bench(nlp, refs, "pke", args.repeats, args.batch_size, args.sigma, args.xi)
    pkb_refs = refs[:args.pkb_limit] if args.pkb_limit else refs
    pkb = bench(nlp, pkb_refs, "pkb", 1, args.batch_size, args.sigma, args.xi)
    pipe = nlp.get_pipe("pke_dependency")
    pipe.set_classifier("pke", sigma=args.sigma, xi=args.xi)
    ratios = {
        "pke_cython_vs_python": pke["cython_sent_per_s"] / pke["python_sent_per_s"],
        "pke_cython_vs_pkb_python": pke["cython_sent_per_s"] / pkb["python_sent_per_s"],
        "pke_cython_vs_pkb_cython": pke["cython_sent_per_s"] / pkb["cython_sent_per_s"],
        "pkb_cython_vs_python": pkb["cython_sent_per_s"] / pkb["python_sent_per_s"],
    }
    report = {"command": command.strip(), "machine": machine, "load_average_at_end": list(os.getloadavg()),
              "degree": args.degree, "n_train": args.limit or "all", "n_sv": pipe.cfg["stats"].get("n_sv"),
              "sigma": args.sigma, "xi": args.xi, "repeats": args.repeats, "batch_size": args.batch_size,
              "pke": pke, "pkb": pkb, "ratios": ratios}
    publish(report, args.out_json, args.out_md, NAME, markdown(report))
    return 0 if pke["identical_trees"] and pkb["identical_trees"] else 1


if __name__ == "__main__":
    sys.exit(main())
