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
spacy_adf.training.online_loop.train_online (``update(batch, sgd=...)`` on
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
import math
import random
import statistics
import sys
from typing import Dict, List

import spacy
import srsly

from spacy_adf.corpora.blitzer import BlitzerCorpus
from spacy_adf.training.online_loop import online_optimizer, train_online


# this script's optimizer names -> online_optimizer's method names
METHODS = {"adf": "adf", "sgd": "sgd", "perceptron": "perc", "avg-perceptron": "avgperc"}


def accuracy(nlp, pipe, examples) -> float:
    docs = [eg.predicted for eg in examples]
    probs = pipe.predict(docs)
    gold = [pipe.labels.index(max(eg.reference.cats, key=eg.reference.cats.get)) for eg in examples]
    return float((probs.argmax(1) == gold).mean())


def train_eval(train, evals: Dict[str, list], *, value: str, c: float, sigma: float, epochs: int,
               optimizer: str = "adf", minibatch: int = 1, batch_size: int = 100, seed: int = 0,
               min_count: int = 1, every_epoch: bool = False) -> Dict:
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("adf_textcat", config={"model": {
        "@architectures": "spacy_adf.MaxEntTextcat.v1", "ngram_sizes": [1, 2],
        "lowercase": True, "value": value, "min_count": min_count}})
    nlp.initialize(lambda: train)
    sgd = online_optimizer(METHODS[optimizer], c, sigma, minibatch=minibatch)

    def scored(epoch: int) -> bool:
        return every_epoch or epoch == epochs

    def evaluate(epoch: int) -> Dict:
        if not scored(epoch):
            return {}
        with nlp.use_params(sgd.averages):
            return {"accuracy": {name: accuracy(nlp, pipe, egs) for name, egs in evals.items()}}

    # the pass's pending lazy updates are applied inside the timed section
    passes = train_online([pipe], train, sgd, max_passes=epochs, batch_size=batch_size, seed=seed,
                          evaluate=evaluate, end_of_pass=pipe.trainer.model.settle)
    curve = [{"epoch": p["pass"], "loss": p["loss"], **p["accuracy"]}
             for p in passes if scored(p["pass"])]
    t_train = passes[-1]["seconds"]
    mem = pipe.memory_report()
    return {"curve": curve, "train_seconds": t_train, "seconds_per_pass": t_train / epochs,
            "n_features": mem["n_features"], "n_weights": mem["n_weights"],
            "model_bytes_per_weight": mem["inference_bytes_per_weight"],
            "training_bytes_per_weight": mem["training_bytes_per_weight"]}


def balanced_subset(examples: list, size: int, seed: int) -> list:
    """`size` examples, half per class (two classes), drawn with `seed`."""
    by_label: Dict[str, list] = {}
    for eg in examples:
        by_label.setdefault(max(eg.reference.cats, key=eg.reference.cats.get), []).append(eg)
    rng = random.Random(seed)
    per_class = size // len(by_label)
    if any(per_class > len(v) for v in by_label.values()):
        raise SystemExit(f"size {size} needs {per_class} reviews per class; the training split "
                         f"has {min(len(v) for v in by_label.values())}")
    return [eg for label in sorted(by_label) for eg in rng.sample(by_label[label], per_class)]


def learning_curve(train: list, test: list, sizes: List[int], subsets: int, common: Dict) -> Dict:
    rows, points = [], []
    for size in sizes:
        # the full training set has one subset only: itself
        seeds = [0] if size >= len(train) else list(range(subsets))
        accs = []
        for seed in seeds:
            res = train_eval(balanced_subset(train, size, seed), {"test": test}, **common)
            accs.append(res["curve"][-1]["test"])
            rows.append({"size": size, "subset_seed": seed, "test_accuracy": accs[-1],
                         "train_seconds": res["train_seconds"]})
            print(json.dumps(rows[-1]), flush=True)
        points.append({"size": size, "subsets": len(accs), "mean": statistics.mean(accs),
                       "sd": statistics.stdev(accs) if len(accs) > 1 else 0.0})
    xs = [math.log2(p["size"]) for p in points]
    ys = [p["mean"] for p in points]
    xm, ym = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - xm) * (y - ym) for x, y in zip(xs, ys)) / sum((x - xm) ** 2 for x in xs)
    # the gain per doubling between neighbouring sizes shows whether the curve flattens
    steps = [{"from": a["size"], "to": b["size"],
              "accuracy_per_doubling": (b["mean"] - a["mean"]) / math.log2(b["size"] / a["size"])}
             for a, b in zip(points, points[1:])]
    return {"protocol": "curve", **common, "points": points, "steps": steps, "runs": rows,
            "fit": {"accuracy_per_doubling": slope, "intercept_log2": ym - slope * xm}}


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
