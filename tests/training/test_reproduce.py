"""The reproduction report's convergence rule and done-when checks, and the
on-line training loop (benchmarks.online_loop) the reproduction runs."""
from benchmarks.reproduce import converged_at
from benchmarks.reproduce_report import checks


def test_convergence_is_five_passes_within_001():
    assert converged_at([90.0, 91.0, 91.5, 91.5, 91.5, 91.5]) is None
    assert converged_at([90.0, 91.0, 91.5, 91.5, 91.5, 91.5, 91.509]) == 7
    assert converged_at([1, 1, 1, 1, 1]) == 5
    assert converged_at([1, 1, 1, 1, 1.01, 1.01, 1.01, 1.01, 1.01]) == 9


def _run(score, seconds, converged=True):
    curve = [{"pass": p, "seconds": seconds * p / 10, "score": score - (10 - p) * 0.1}
             for p in range(1, 11)]
    return {"score": score, "seconds": seconds, "converged": converged, "passes": 10,
            "curve": curve, "best_score": score}


def test_checks_compare_scores_and_times():
    runs = {"adf": _run(94.5, 10.0), "sgd": _run(94.0, 30.0), "perc": _run(95.0, 5.0, False),
            "lbfgs": _run(94.2, 40.0)}
    lines = checks("chunking", runs)
    assert "score: ADF 94.50 >= SGD 94.00: yes" in lines
    assert "score: ADF 94.50 >= Perc 95.00: NO" in lines
    assert any(l.startswith("time to convergence: ADF 10.0 s <= SGD") and l.endswith("yes") for l in lines)
    assert any("Perc" in l and "undecided" in l for l in lines)
    # 10 s is more than a fifth of L-BFGS's 40 s
    assert any("1/5 of L-BFGS" in l and l.endswith("NO") for l in lines)
    # ADF first reaches L-BFGS's 94.2 at pass 7 (7 s); L-BFGS at pass 10 (40 s)
    assert "time to L-BFGS's final score (94.20): ADF 7.0 s (pass 7), L-BFGS 40.0 s (pass 10): 5.7x (>= 5x)" in lines
    # the best baseline by score is the perceptron (95.0), which ADF never reaches
    assert any(l.startswith("time to the best baseline's score (Perc, 95.00): ADF never") for l in lines)


class _RecordingPipe:
    """Stands in for a component: records the batches update() gets."""

    def __init__(self):
        self.batches = []

    def update(self, batch, sgd=None, losses=None):
        self.batches.append(list(batch))
        losses["pipe"] = losses.get("pipe", 0.0) + len(batch)


def test_train_online_shuffles_batches_evaluates_and_stops():
    import random

    from benchmarks.online_loop import train_online

    train = list(range(10))
    pipe, ends, seen = _RecordingPipe(), [], []
    curve = train_online([pipe], train, "opt", max_passes=5, batch_size=4, seed=7,
                         evaluate=lambda p: {"score": float(p)},
                         end_of_pass=lambda: ends.append(len(pipe.batches)),
                         callback=lambda point: seen.append(point) or point["pass"] == 3)
    # stopped by the callback after pass 3; batches of 4, 4, 2 per pass
    assert [c["pass"] for c in curve] == [1, 2, 3] and seen == curve
    assert [len(b) for b in pipe.batches] == [4, 4, 2] * 3 and ends == [3, 6, 9]
    assert [list(c) for c in curve] == [["pass", "seconds", "cpu_seconds", "score", "loss"]] * 3
    assert all(c["loss"] == 10.0 and c["score"] == c["pass"] for c in curve)
    assert curve[0]["seconds"] <= curve[1]["seconds"] <= curve[2]["seconds"]
    # one RNG over all passes: the order of pass k is the k-th shuffle in place
    rng, order = random.Random(7), list(range(10))
    for k in range(3):
        rng.shuffle(order)
        assert sum(pipe.batches[3 * k:3 * k + 3], []) == order
