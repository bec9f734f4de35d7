"""On-line training passes over a fixed list of Examples, outside `spacy train`.

``train_online`` runs the protocol of the ADF paper's comparisons (and of
the sentiment learning curves): every pass shuffles the same training
Examples with one seeded RNG, cuts them into spaCy batches and calls each
trainable component's own ``update(batch, sgd=optimizer)``; after every pass
an optional ``evaluate`` callback scores the model, outside the timed
section. Calling the components directly with the same Example objects
every pass avoids ``nlp.update``'s copy of every predicted Doc per batch,
which costs more than the CRF steps; the components still check their
cached features against each Doc.

``online_optimizer`` builds the compared on-line methods (ADF, SGD, the
perceptron and the averaged perceptron) with the paper's other settings.
"""
import random
import time
from typing import Callable, Dict, List, Optional, Sequence

from spacy.training import Example


def online_optimizer(name: str, learn_rate: float, sigma: Optional[float], *,
                     minibatch: int = 1, decay: float = 0.9):
    """The on-line method `name` (adf, sgd, perc, avgperc) with the paper's
    other settings (ADF alpha 0.995, beta 0.6; SGD's rate falls by `decay`
    a pass; the perceptrons take neither rate nor prior)."""
    from spacy_adf.optimizers.adf import ADF
    from spacy_adf.optimizers.perceptron import Perceptron
    from spacy_adf.optimizers.sgd import SGD

    if name == "adf":
        return ADF(learn_rate, sigma=sigma, minibatch=minibatch)
    if name == "sgd":
        return SGD(learn_rate, decay=decay, sigma=sigma, minibatch=minibatch)
    if name in ("perc", "avgperc"):
        return Perceptron(averaged=name == "avgperc", minibatch=minibatch)
    raise ValueError(f"unknown on-line method {name!r}")


def train_online(
    pipes: Sequence,
    train: Sequence[Example],
    optimizer,
    *,
    max_passes: int,
    batch_size: int = 64,
    seed: int = 0,
    evaluate: Optional[Callable[[int], Dict]] = None,
    end_of_pass: Optional[Callable[[], None]] = None,
    callback: Optional[Callable[[Dict], bool]] = None,
) -> List[Dict]:
    """Train `pipes` on `train` with `optimizer` for up to `max_passes` passes.

    Each pass shuffles the order of `train` with ``random.Random(seed)`` (the
    same RNG throughout, so pass k's order depends only on the seed), then
    calls ``pipe.update(batch, sgd=optimizer, losses=...)`` for every pipe on
    consecutive batches of `batch_size` Examples. `end_of_pass` (e.g. applying
    a component's pending lazy updates) runs inside the timed section.

    Returns one record per pass: ``pass`` (1-based), cumulative training
    ``seconds`` (wall) and ``cpu_seconds`` (process CPU), the entries of
    ``evaluate(pass)`` (called after the pass, not timed) and ``loss`` (the
    sum of the pass's losses). `callback` gets each record once it is
    complete; returning True stops the training after that pass.
    """
    rng = random.Random(seed)
    order = list(range(len(train)))
    curve: List[Dict] = []
    seconds = cpu = 0.0
    for n_pass in range(1, max_passes + 1):
        rng.shuffle(order)
        losses: Dict[str, float] = {}
        t0, c0 = time.perf_counter(), time.process_time()
        for i in range(0, len(order), batch_size):
            batch = [train[j] for j in order[i:i + batch_size]]
            for pipe in pipes:
                pipe.update(batch, sgd=optimizer, losses=losses)
        if end_of_pass is not None:
            end_of_pass()
        seconds += time.perf_counter() - t0
        cpu += time.process_time() - c0
        record = {"pass": n_pass, "seconds": seconds, "cpu_seconds": cpu}
        if evaluate is not None:
            record.update(evaluate(n_pass))
        record["loss"] = float(sum(losses.values()))
        curve.append(record)
        if callback is not None and callback(record):
            break
    return curve
