"""`spacy_adf.TimingLogger.v1`: spaCy's console logger plus a JSON-lines
record of every evaluation with precise timings, for benchmarks.

Each record: {"epoch", "step", "score", "other_scores", "losses",
"wall_seconds" (since training started), "train_seconds" (the same, minus the
time spent in evaluations)}. spaCy evaluates inside the step that logs, so an
evaluation's cost is that step's duration minus the mean duration of the
steps before it.
"""
import json
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, Optional, Tuple

from spacy import Language
from spacy.util import registry


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


@registry.loggers("spacy_adf.TimingLogger.v1")
def timing_logger(path: Optional[str] = None, console: bool = True, progress_bar: bool = False):
    console_logger = registry.loggers.get("spacy.ConsoleLogger.v3")(
        progress_bar="train" if progress_bar else None, console_output=console
    )

    def setup(nlp: Language, stdout: IO, stderr: IO) -> Tuple[Callable, Callable]:
        log_console, finalize_console = console_logger(nlp, stdout, stderr)
        out = None
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            out = open(path, "w", encoding="utf8")
        state = {"start": time.perf_counter(), "last": None, "eval": 0.0,
                 "n_steps": 0, "step_time": 0.0}

        def log_step(info: Optional[Dict[str, Any]]) -> None:
            now = time.perf_counter()
            last = state["last"] if state["last"] is not None else state["start"]
            gap = now - last
            state["last"] = now
            if info is None:
                state["n_steps"] += 1
                state["step_time"] += gap
            else:
                mean_step = state["step_time"] / state["n_steps"] if state["n_steps"] else 0.0
                state["eval"] += max(gap - mean_step, 0.0)
                if out is not None:
                    wall = now - state["start"]
                    record = {
                        "epoch": info.get("epoch"),
                        "step": info.get("step"),
                        "score": info.get("score"),
                        "other_scores": _plain(info.get("other_scores", {})),
                        "losses": _plain(info.get("losses", {})),
                        "wall_seconds": wall,
                        "train_seconds": wall - state["eval"],
                    }
                    out.write(json.dumps(record) + "\n")
                    out.flush()
            log_console(info)

        def finalize() -> None:
            finalize_console()
            if out is not None:
                out.close()

        return log_step, finalize

    return setup
