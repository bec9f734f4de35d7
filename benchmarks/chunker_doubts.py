"""Where the Japanese bunsetsu chunker's misses lie, and whether the parser could
recover them: a dev-only analysis of a trained Japanese pipeline.

On dev files with gold words and POS, the pipeline's chunker (`bunsetsu_chunker`,
its marginals on) marks bunsetsu starts. For the gold starts it misses, the
marginal P(B) is counted in bands. The doubtful positions (not a Viterbi start,
`--low` < P(B) < 0.5) are then ranked three ways, against which of them are gold
starts:
- the chunker's logit;
- a parse score difference: the sentence is parsed by the pipeline's
  `pke_dependency` (tournament) with and without the extra start, and a parse
  scores the sum of log sigmoid(a |margin|) over its games;
- the logit plus lambda times that difference (a joint decision).
For each ranking: its AUC, and the best net gain (gold starts minus spurious
ones over the best prefix, the cut chosen on the answers, so an upper bound).
The test files are never read here.

    python -m benchmarks.chunker_doubts training/pipeline_ja \\
        --dev ../shared/data/kwdlc/dev.knp [--out-json metrics/chunker_doubts_dev.json]
"""
import argparse
import math
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import numpy
import spacy
from spacy.tokens import Doc, Span
from spacy.util import registry

from benchmarks.harness import REPO, machine_info, write_json
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY
from tests.helpers.reference_parsers import ReferenceParser

P_BANDS = (0.5, 0.3, 0.2, 0.1, 0.05, 0.02, 0.01, 0.001)
SCALES = (0.5, 1.0, 3.0)
LAMBDAS = (0.25, 0.5, 1.0, 2.0, 4.0)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("pipeline", type=Path, help="a trained Japanese pipeline (bunsetsu_chunker, pke_dependency)")
    p.add_argument("--dev", required=True, help="one KNP dev file (gold words, POS and bunsetsu)")
    p.add_argument("--low", type=float, default=0.05, help="lower P(B) bound of a doubtful position")
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / "chunker_doubts_dev.json")
    return p.parse_args(argv)


class GameMargins:
    """Tournament parses of one pipeline's parser, with every game's margin,
    for bunsetsu given by their start tokens (the Python reference parse,
    which plays the games one by one)."""

    def __init__(self, parser):
        if parser.algorithm != "tournament":
            raise ValueError(f"chunker_doubts: the parser must be a tournament parser, got {parser.algorithm!r}")
        self.reference = ReferenceParser(parser)

    def __call__(self, doc: Doc, starts: Sequence[int]) -> Tuple[List[int], List[float]]:
        """The heads of the bunsetsu that start at `starts` (the first 0) and
        the margin of every game played for them."""
        bounds = list(starts) + [len(doc)]
        return self.reference.tournament_margins(doc, [Span(doc, bounds[k], bounds[k + 1]) for k in range(len(starts))])


def parse_score(margins: Sequence[float], scale: float) -> float:
    return -sum(math.log1p(math.exp(-scale * abs(m))) for m in margins)


def auc(gold: Sequence[bool], score: Sequence[float]) -> float:
    y, s = numpy.asarray(gold, dtype=bool), numpy.asarray(score, dtype=float)
    pos, neg = s[y][:, None], s[~y][None, :]
    return float((pos > neg).mean() + 0.5 * (pos == neg).mean()) if len(pos) and neg.size else float("nan")


def best_net(gold: Sequence[bool], score: Sequence[float]) -> Dict:
    y = numpy.asarray(gold, dtype=bool)[numpy.argsort(-numpy.asarray(score, dtype=float), kind="stable")]
    net = numpy.cumsum(numpy.where(y, 1, -1))
    k = int(net.argmax()) if len(net) else -1
    if k < 0 or net[k] <= 0:
        return {"net": 0, "taken": 0, "gold_taken": 0}
    return {"net": int(net[k]), "taken": k + 1, "gold_taken": int(y[:k + 1].sum())}


def main(argv=None) -> int:
    args = parse_args(argv)
    nlp = spacy.load(args.pipeline)
    chunker = nlp.get_pipe("bunsetsu_chunker")
    chunker.cfg["store_marginals"] = True
    margins_of = GameMargins(nlp.get_pipe("pke_dependency").plain_model)
    reader = registry.readers.get("spacy_adf.BunsetsuCorpus.v1")(
        path=args.dev, format="knp", limit=0, bad_heads="repair", predicted_bunsetsu=False)
    examples = list(reader(nlp))
    print(f"[chunker_doubts] {len(examples):,} dev sentences from {args.dev}", flush=True)
    docs = [eg.predicted for eg in examples]
    for doc in docs:
        doc.spans.pop(BUNSETSU_KEY, None)
    docs = list(chunker.pipe(docs))
    b_cols = [k for k, tag in enumerate(chunker.target.tag_names(chunker.cfg["labels"])) if tag.startswith("B")]
    missed: List[float] = []
    rows = []  # (gold start?, chunker logit, margins without, margins with the start)
    n_gold = 0
    for n, (eg, doc) in enumerate(zip(examples, docs)):
        p_b = doc._.adf_marginals["bunsetsu_chunker"][:, b_cols].sum(axis=1)
        gold = {s.start for s in eg.reference.spans[BUNSETSU_KEY]} - {0}
        starts = sorted({s.start for s in doc.spans[BUNSETSU_KEY]} | {0})
        n_gold += len(gold)
        missed.extend(float(p_b[i]) for i in gold - set(starts))
        doubts = [i for i in range(1, len(doc)) if i not in starts and args.low < p_b[i] < 0.5]
        if doubts:
            without = margins_of(doc, starts)[1]
            for i in doubts:
                p = float(p_b[i])
                rows.append((i in gold, math.log(p / (1.0 - p)), without, margins_of(doc, sorted(starts + [i]))[1]))
        if (n + 1) % 500 == 0:
            print(f"[chunker_doubts] {n + 1:,} sentences, {len(rows)} doubtful positions", flush=True)
    gold_flags = [r[0] for r in rows]
    logits = [r[1] for r in rows]
    result: Dict = {
        "command": "python -m benchmarks.chunker_doubts", "pipeline": str(args.pipeline), "dev": args.dev,
        "machine": machine_info(), "gold_starts": n_gold, "missed": len(missed),
        "missed_above": {str(t): int(sum(p > t for p in missed)) for t in P_BANDS},
        "doubtful": len(rows), "doubtful_gold": int(sum(gold_flags)), "low": args.low,
        "chunker": {"auc": auc(gold_flags, logits), **best_net(gold_flags, logits)},
        "parse": {}, "joint": {},
    }
    print(f"gold starts {n_gold:,}, missed {len(missed)}; P(B) of the misses above "
          + ", ".join(f"{t}: {v}" for t, v in result["missed_above"].items()))
    print(f"doubtful positions ({args.low} < P(B) < 0.5, not Viterbi starts): {len(rows)}, gold starts among them "
          f"{sum(gold_flags)}")
    print(f"chunker logit: AUC {result['chunker']['auc']:.3f}, best net {result['chunker']['net']}")
    for a in SCALES:
        delta = [parse_score(r[3], a) - parse_score(r[2], a) for r in rows]
        result["parse"][str(a)] = {"auc": auc(gold_flags, delta), **best_net(gold_flags, delta)}
        line = [f"a={a}: parse difference AUC {result['parse'][str(a)]['auc']:.3f}"]
        for lam in LAMBDAS:
            joint = [x + lam * d for x, d in zip(logits, delta)]
            cell = result["joint"][f"a={a},lambda={lam}"] = {"auc": auc(gold_flags, joint), **best_net(gold_flags, joint)}
            line.append(f"lambda {lam}: {cell['auc']:.3f} (net {cell['net']})")
        print(", ".join(line))
    write_json(args.out_json, result)
    print(f"[chunker_doubts] wrote {args.out_json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
