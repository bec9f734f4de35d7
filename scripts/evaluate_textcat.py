"""Train and evaluate adf_textcat on a Blitzer sentiment domain.

Two protocols (both on spacy_adf.BlitzerCorpus.v1's fixed split, seed 0):
- split: train on the 1,600 training reviews, report test (400) accuracy
  after every pass;
- cv: k-fold cross-validation inside the 1,600 training reviews only (the
  test reviews are never read), mean and sd of the held-out accuracy; with
  --cv-split all, over all 2,000 reviews (for reporting a fixed setting,
  not for choosing one);
- curve: a learning curve. For each training-set size, several seeded
  class-balanced random subsets of the 1,600 training reviews are trained
  with one fixed setting and scored on the 400 test reviews; the summary line
  gives mean and sd per size, the gain per doubling between neighbouring
  sizes and a least-squares fit of accuracy against log2(size). It shows
  how much the accuracy depends on the amount of labelled data.

The component is trained through its own API by
benchmarks.online_loop.train_online (``update(batch, sgd=...)`` on
Examples shuffled every pass by a seeded RNG, spaCy batches of 100), which
runs the same code as `spacy train` without spaCy's per-step Doc copies.

    python -m scripts.evaluate_textcat split --data DIR [--value count]
        [--c 0.005] [--sigma 1] [--epochs 30]
    python -m scripts.evaluate_textcat cv --data DIR --folds 4
        --value count binary log1p --c 0.005 0.01 0.05 0.1 --sigma 1 2 5
    python -m scripts.evaluate_textcat curve --data DIR --sizes 200 400 800 1600
        --subsets 5 [--output metrics/sentiment_learning_curve.json]

Prints one JSON line per run.
"""
import argparse
import itertools
import json
import statistics
import sys

import spacy
import srsly

from spacy_adf.corpora.blitzer import BlitzerCorpus
from benchmarks.textcat_protocols import METHODS, learning_curve, train_eval


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("protocol", choices=["split", "cv", "curve"])
    ap.add_argument("--data", required=True, help="Blitzer domain directory (e.g. .../books)")
    ap.add_argument("--value", nargs="+", default=["count"])
    ap.add_argument("--c", nargs="+", type=float, default=[0.005])
    ap.add_argument("--sigma", nargs="+", type=float, default=[1.0])
    ap.add_argument("--min-count", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--cv-split", default="train", choices=["train", "all"],
                    help="cross-validate inside the 1,600 training reviews (default) or all 2,000")
    ap.add_argument("--optimizer", default="adf", choices=list(METHODS))
    ap.add_argument("--minibatch", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sizes", nargs="+", type=int, default=[200, 400, 800, 1200, 1600],
                    help="curve: training-set sizes (even; at most 1,600)")
    ap.add_argument("--subsets", type=int, default=5, help="curve: random subsets per size")
    ap.add_argument("--output", default=None, help="curve: also write the summary to this JSON file")
    args = ap.parse_args(argv)
    if args.protocol == "curve" and len(args.sizes) < 2:
        ap.error("curve needs at least two --sizes")
    nlp = spacy.blank("en")
    grid = itertools.product(args.value, args.c, args.sigma)
    for value, c, sigma in grid:
        common = dict(value=value, c=c, sigma=sigma, epochs=args.epochs, optimizer=args.optimizer,
                      minibatch=args.minibatch, seed=args.seed, min_count=args.min_count)
        if args.protocol == "curve":
            train = list(BlitzerCorpus(args.data, split="train")(nlp))
            test = list(BlitzerCorpus(args.data, split="test")(nlp))
            out = learning_curve(train, test, sorted(set(args.sizes)), args.subsets, common)
            if args.output:
                srsly.write_json(args.output, out)
        elif args.protocol == "split":
            train = list(BlitzerCorpus(args.data, split="train")(nlp))
            test = list(BlitzerCorpus(args.data, split="test")(nlp))
            res = train_eval(train, {"test": test, "train": train}, every_epoch=True, **common)
            out = {"protocol": "split", **common, **res, "test_accuracy": res["curve"][-1]["test"]}
        else:
            accs = []
            for fold in range(args.folds):
                kw = dict(split=args.cv_split, n_folds=args.folds, fold=fold)
                train = list(BlitzerCorpus(args.data, fold_part="train", **kw)(nlp))
                held = list(BlitzerCorpus(args.data, fold_part="heldout", **kw)(nlp))
                res = train_eval(train, {"heldout": held}, **common)
                accs.append(res["curve"][-1]["heldout"])
            out = {"protocol": f"cv{args.folds}", "cv_split": args.cv_split, **common, "fold_accuracy": accs,
                   "mean": statistics.mean(accs), "sd": statistics.stdev(accs) if len(accs) > 1 else 0.0}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
