"""The sentiment protocols of adf_textcat on a Blitzer domain: train and
score one setting (`train_eval`), class-balanced seeded subsets
(`balanced_subset`) and the learning curve over training-set sizes
(`learning_curve`), for the reproduction benchmarks. `scripts/evaluate_textcat.py` is the command line over
them (its docstring describes the protocols)."""
import json
import math
import random
import statistics
from typing import Dict, List

import spacy

from benchmarks.online_loop import online_optimizer, train_online

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
