"""Train and evaluate adf_textcat on a Blitzer sentiment domain.

Two protocols (both on spacy_adf.BlitzerCorpus.v1's fixed split, seed 0):
- split: train on the 1,600 training reviews, report test (400) accuracy
  after every pass;
- cv: k-fold cross-validation inside the 1,600 training reviews only (the
  test reviews are never read), mean and sd of the held-out accuracy; with
  --cv-split all, over all 2,000 reviews (for reporting a fixed setting,
  not for choosing one).

The component is trained through its own API (``update(batch, sgd=...)`` on
Examples shuffled every pass by a seeded RNG, spaCy batches of 100), which
runs the same code as `spacy train` without spaCy's per-step Doc copies.

    python scripts/evaluate_textcat.py split --data DIR [--value count]
        [--c 0.005] [--sigma 1] [--epochs 30]
    python scripts/evaluate_textcat.py cv --data DIR --folds 4
        --value count binary log1p --c 0.005 0.01 0.05 0.1 --sigma 1 2 5

Prints one JSON line per run.
"""
import argparse
import itertools
import json
import random
import statistics
import sys
import time
from typing import Dict, List

import spacy

from spacy_adf.corpora.blitzer import BlitzerCorpus


def make_optimizer(name: str, c: float, sigma: float, minibatch: int):
    if name == "adf":
        from spacy_adf.optimizers.adf import ADF

        return ADF(c, alpha=0.995, beta=0.6, sigma=sigma, minibatch=minibatch)
    if name == "sgd":
        from spacy_adf.optimizers.sgd import SGD

        return SGD(c, sigma=sigma, minibatch=minibatch)
    if name in ("perceptron", "avg-perceptron"):
        from spacy_adf.optimizers.perceptron import Perceptron

        return Perceptron(averaged=name == "avg-perceptron", minibatch=minibatch)
    raise ValueError(f"unknown optimizer {name!r}")


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
    sgd = make_optimizer(optimizer, c, sigma, minibatch)
    rng = random.Random(seed)
    order = list(train)
    curve: List[Dict] = []
    t_train = 0.0
    for epoch in range(1, epochs + 1):
        rng.shuffle(order)
        losses: Dict[str, float] = {}
        t0 = time.perf_counter()
        for i in range(0, len(order), batch_size):
            pipe.update(order[i:i + batch_size], sgd=sgd, losses=losses)
        pipe._sync()
        t_train += time.perf_counter() - t0
        if every_epoch or epoch == epochs:
            with nlp.use_params(sgd.averages):
                row = {name: accuracy(nlp, pipe, egs) for name, egs in evals.items()}
            curve.append({"epoch": epoch, "loss": losses.get("adf_textcat", 0.0), **row})
    mem = pipe.memory_report()
    return {"curve": curve, "train_seconds": t_train, "seconds_per_pass": t_train / epochs,
            "n_features": mem["n_features"], "n_weights": mem["n_weights"],
            "model_bytes_per_weight": mem["inference_bytes_per_weight"],
            "training_bytes_per_weight": mem["training_bytes_per_weight"]}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("protocol", choices=["split", "cv"])
    ap.add_argument("--data", required=True, help="Blitzer domain directory (e.g. .../books)")
    ap.add_argument("--value", nargs="+", default=["count"])
    ap.add_argument("--c", nargs="+", type=float, default=[0.005])
    ap.add_argument("--sigma", nargs="+", type=float, default=[1.0])
    ap.add_argument("--min-count", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--folds", type=int, default=4)
    ap.add_argument("--cv-split", default="train", choices=["train", "all"],
                    help="cross-validate inside the 1,600 training reviews (default) or all 2,000")
    ap.add_argument("--optimizer", default="adf", choices=["adf", "sgd", "perceptron", "avg-perceptron"])
    ap.add_argument("--minibatch", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    nlp = spacy.blank("en")
    grid = itertools.product(args.value, args.c, args.sigma)
    for value, c, sigma in grid:
        common = dict(value=value, c=c, sigma=sigma, epochs=args.epochs, optimizer=args.optimizer,
                      minibatch=args.minibatch, seed=args.seed, min_count=args.min_count)
        if args.protocol == "split":
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
