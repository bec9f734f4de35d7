"""Iterative parameter mixing (McDonald, Hall and Mann 2010) of the shards' states; how each
part is mixed, and why: docs/distributed.md, "Training". No Ray here.

A shard's state is a dict per sparse component:
{"weights": float32[W], "rates": float64[G] or None, "averages": float32[W] or None}.
"""
from typing import Dict, List, Optional, Sequence

import numpy

State = Dict[str, Optional[numpy.ndarray]]


def average(arrays: Sequence[numpy.ndarray]) -> numpy.ndarray:
    """The plain mean, summed in float64, rounded once to float32."""
    if not arrays:
        raise ValueError("nothing to average")
    total = numpy.zeros(arrays[0].shape, dtype=numpy.float64)
    for a in arrays:
        if a.shape != total.shape:
            raise ValueError(f"cannot mix arrays of shapes {a.shape} and {total.shape}")
        total += a
    return (total / len(arrays)).astype(numpy.float32)


def geometric_mean(arrays: Sequence[numpy.ndarray]) -> numpy.ndarray:
    """exp(mean(log r)) in float64: the mean of the shards' log-decays."""
    logs = numpy.zeros(arrays[0].shape, dtype=numpy.float64)
    for a in arrays:
        logs += numpy.log(a)
    return numpy.exp(logs / len(arrays))


def mix(shards: List[Dict[str, State]]) -> Dict[str, State]:
    """One mixed state per component from the states of all shards."""
    if not shards:
        raise ValueError("no shard states to mix")
    mixed: Dict[str, State] = {}
    for name in shards[0]:
        states = [s[name] for s in shards]
        out: State = {"weights": average([s["weights"] for s in states]), "rates": None, "averages": None}
        if all(s.get("rates") is not None for s in states):
            out["rates"] = geometric_mean([s["rates"] for s in states])
        if all(s.get("averages") is not None for s in states):
            out["averages"] = average([s["averages"] for s in states])
        mixed[name] = out
    return mixed


def state_nbytes(state: Dict[str, State]) -> int:
    """Bytes of one shard's state (what crosses the network each way)."""
    return sum(a.nbytes for s in state.values() for a in s.values() if a is not None)
