"""The on-line trainer of the polynomial-kernel models: averaged PA-I over
the explicit subset features, streamed example by example
(`subset_learner.SubsetLearner`), straight to PKE's subset weights
(docs/architecture.md, "The on-line trainer")."""
import os
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Optional

import numpy

from .free_memory import release_free_memory
from .progress import Progress
from .primal import PrimalSVM
from .subset_learner import SubsetLearner
from .svm import binary_rows

DEFAULT_EPOCHS = 10
# examples per learner call: small enough to come back for progress lines often
_CHUNK = 8192
_MIN_COUNT_ROWS = 20000  # fewer rows a thread: counting on one thread is as quick


def count_support(learner: SubsetLearner, indptr, indices, n: int, threads: Optional[int] = None) -> numpy.ndarray:
    """`learner.count` over all n rows, split into one row range per core
    (the table is read-only then and the counts are atomic): the decision
    value of every row. The supports do not depend on the split."""
    if threads is None:
        threads = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    threads = max(1, min(int(threads), n // _MIN_COUNT_ROWS)) if learner.atomic_counts else 1
    if threads == 1:
        return learner.count(indptr, indices)
    cuts = numpy.linspace(0, n, threads + 1).astype(numpy.int64)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        parts = list(pool.map(lambda k: learner.count(indptr, indices, int(cuts[k]), int(cuts[k + 1])),
                              range(threads)))
    return numpy.concatenate(parts)


def train_online(X, y, degree: int = 3, C: float = 1.0, epochs: int = DEFAULT_EPOCHS, seed: int = 0,
                 progress: Optional[Progress] = None, stats: Optional[dict] = None) -> PrimalSVM:
    """Train (1 + |X & Y|)^degree on binary CSR X and two-class y (classes[1]
    positive) by up to `epochs` passes of averaged PA-I with aggressiveness C
    (docs/architecture.md). A dict `stats` gets the per-pass steps, mistakes
    and hinge loss, the table's size and the seconds."""
    if int(epochs) != epochs or epochs < 1:
        raise ValueError(f"epochs (passes over the training examples) must be an integer >= 1, not {epochs!r}")
    if not C > 0:
        raise ValueError(f"C must be > 0, not {C!r}")
    progress = progress or Progress("kernel SVM", quiet=True)
    t0 = time.perf_counter()
    indptr, indices, n_features = binary_rows(X)  # sorted, unique ids per row: what the learner's enumeration needs
    n = indptr.shape[0] - 1
    y = numpy.asarray(y)
    if y.shape[0] != n:
        raise ValueError("X and y have different numbers of rows")
    classes = numpy.unique(y)
    if classes.shape[0] != 2:
        raise ValueError("the online trainer trains binary classifiers: y needs exactly two classes")
    signs = numpy.where(y == classes[1], 1, -1).astype(numpy.int8)
    release_free_memory()  # the corpus read before is freed: its pages go back before the table grows
    learner = SubsetLearner(int(degree), float(C))
    rng = numpy.random.default_rng(seed)
    passes = []
    for epoch in range(int(epochs)):
        start = time.perf_counter()
        order = rng.permutation(n).astype(numpy.int64)
        steps = mistakes = 0
        loss = 0.0
        for lo in range(0, n, _CHUNK):
            s, m, h = learner.run(indptr, indices, signs, order, lo, min(lo + _CHUNK, n))
            steps += s
            mistakes += m
            loss += h
            progress.tick(lambda: f"online pass {epoch + 1}/{epochs}: {min(lo + _CHUNK, n):,} of {n:,} "
                                  f"examples, {learner.n_subsets:,} subsets ({learner.nbytes / 2**20:,.0f} MB)")
        seconds = time.perf_counter() - start
        passes.append({"steps": steps, "mistakes": mistakes, "hinge_loss": loss, "seconds": seconds,
                       "n_subsets": learner.n_subsets})
        progress.say(f"online pass {epoch + 1}/{epochs}: {n:,} examples, {mistakes:,} mistakes, "
                     f"{steps:,} steps, {learner.n_subsets:,} subsets ({learner.nbytes / 2**20:,.0f} MB), "
                     f"{seconds:.1f} s")
        if steps == 0:
            break
    # after a pass without a step every example is beyond the margin: those
    # last weights are kept (the average would mix in the earlier, worse ones)
    learner.finish(average=passes[-1]["steps"] > 0)
    t1 = time.perf_counter()
    with progress.running(f"online trainer: support of {learner.n_subsets:,} subsets over {n:,} examples"):
        decisions = count_support(learner, indptr, indices, n)
    on = signs * decisions <= 1.0 + 1e-6  # the averaged model's support vectors (for sigma)
    n_pos = int((on & (signs > 0)).sum())
    n_neg = int((on & (signs < 0)).sum())
    training_errors = int((signs * decisions <= 0).sum())
    table_bytes = learner.nbytes
    bias = float(learner.bias)
    arrays = learner.take_arrays()  # the table goes as its columns are copied: no peak of both
    del learner
    weight = arrays["weight"]
    weight[0] = 0.0  # the empty set's weight is the bias
    info = {"trainer": "online", "n_examples": int(n), "epochs": len(passes), "C": float(C), "seed": int(seed),
            "passes": passes, "n_subsets": int(weight.shape[0] - 1), "table_bytes": int(table_bytes),
            "training_errors": training_errors, "n_pos_sv": n_pos, "n_neg_sv": n_neg,
            "train_seconds": t1 - t0, "count_seconds": time.perf_counter() - t1}
    if stats is not None:
        stats.update(info)
    return PrimalSVM(degree, n_features, arrays["parent"], arrays["item"], arrays["size"], arrays["support"],
                     weight, bias, n_pos, n_neg, classes, info, trainer="online")
