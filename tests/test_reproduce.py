"""The reproduction report's convergence rule and done-when checks."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

from reproduce import converged_at  # noqa: E402
from reproduce_report import checks  # noqa: E402


def test_convergence_is_five_passes_within_001():
    assert converged_at([90.0, 91.0, 91.5, 91.5, 91.5, 91.5]) is None
    assert converged_at([90.0, 91.0, 91.5, 91.5, 91.5, 91.5, 91.509]) == 7
    assert converged_at([1, 1, 1, 1, 1]) == 5
    assert converged_at([1, 1, 1, 1, 1.01, 1.01, 1.01, 1.01, 1.01]) == 9


def _run(score, seconds, converged=True):
    return {"score": score, "seconds": seconds, "converged": converged, "passes": 10}


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
