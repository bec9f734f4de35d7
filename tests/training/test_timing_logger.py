"""spacy_adf.TimingLogger.v1's process log (process_path): the process start,
the phase events in order, the measured evaluation and checkpoint times, and
the wrappers removed again after training."""
import io
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import spacy
from spacy.language import Language
from spacy.util import registry

from spacy_adf.training.loggers import process_start_time

REPO = Path(__file__).resolve().parents[2]


def _events(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


def test_process_start_time_of_a_fresh_interpreter():
    code = ("import time; t = time.time(); "
            "from spacy_adf.training.loggers import process_start_time; "
            "print(t - process_start_time())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    age_at_first_line = float(out.stdout)
    assert -0.05 < age_at_first_line < 10.0  # clock ticks of 10 ms; interpreter start-up
    assert process_start_time() <= time.time()


class _Stub:
    is_trainable = True

    def __init__(self):
        self.finished = 0

    def __call__(self, doc):
        return doc

    def finish_update(self, sgd):
        self.finished += 1


@Language.factory("test_timing_logger_stub")
def _make_stub(nlp, name):
    return _Stub()


def test_setup_instruments_and_finalize_restores(tmp_path):
    nlp = spacy.blank("en")
    stub = nlp.add_pipe("test_timing_logger_stub")
    nlp.evaluate = lambda examples, **kw: {"x": 1.0}  # a pre-existing instance attribute
    own_evaluate = nlp.evaluate
    make = registry.loggers.get("spacy_adf.TimingLogger.v1")
    make(console=False)  # as spaCy's init_nlp, then its train
    setup = make(path=str(tmp_path / "log.jsonl"), console=False,
                 process_path=str(tmp_path / "process.jsonl"))
    log_step, finalize = setup(nlp, io.StringIO(), io.StringIO())
    assert "update" in nlp.__dict__ and "finish_update" in stub.__dict__
    info = {"epoch": 0, "step": 0, "score": 0.5, "other_scores": {"f": 0.5},
            "losses": {"test_timing_logger_stub": 0.0}}
    nlp.update([])
    stub.finish_update(None)
    time.sleep(0.01)
    nlp.evaluate([])
    time.sleep(0.01)
    log_step(info)
    nlp.update([])
    stub.finish_update(None)
    log_step(None)
    finalize()
    assert stub.finished == 2
    assert "update" not in nlp.__dict__ and "finish_update" not in stub.__dict__
    assert nlp.evaluate is own_evaluate
    events = _events(tmp_path / "process.jsonl")
    names = [e["event"] for e in events]
    assert names == ["process", "init_start", "init_end", "setup", "first_update",
                     "evaluation", "finalize"]
    ev = events[names.index("evaluation")]
    assert ev["eval_seconds"] >= 0.01 and ev["save_seconds"] >= 0.01
    assert ev["update_end"] <= ev["evaluate_start"] <= ev["evaluate_end"] <= ev["logged"]
    rec = _events(tmp_path / "log.jsonl")[0]
    assert {"wall_seconds", "train_seconds", "process_seconds", "eval_seconds",
            "save_seconds"} <= set(rec)


def test_spacy_train_writes_the_process_time_line(tmp_path):
    cmd = [
        sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "chunking_np.cfg"),
        "--paths.train", str(REPO / "assets" / "sample_chunking" / "train.txt"),
        "--paths.dev", str(REPO / "assets" / "sample_chunking" / "dev.txt"),
        "--paths.log", str(tmp_path / "log.jsonl"),
        "--training.logger.process_path", str(tmp_path / "process.jsonl"),
        "--training.max_epochs", "2", "--training.eval_frequency", "10",
        "--output", str(tmp_path / "out"),
    ]
    t_start = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True)
    t_end = time.time()
    assert out.returncode == 0, out.stderr[-3000:]
    events = _events(tmp_path / "process.jsonl")
    by_name = {e["event"]: e for e in events}
    assert by_name["process"]["factory_calls"] == 2
    assert t_start - 0.05 <= by_name["process"]["process_start_time"] <= by_name["init_start"]["time"]
    order = ["init_start", "init_end", "setup", "first_update"]
    times = [by_name[n]["time"] for n in order]
    evals = [e for e in events if e["event"] == "evaluation"]
    assert len(evals) == 2
    for e in evals:
        times += [e["update_end_time"], e["evaluate_end_time"], e["time"]]
        assert e["eval_seconds"] > 0 and e["save_seconds"] > 0
    times += [by_name["finalize"]["time"], by_name["exit"]["time"], t_end]
    assert times == sorted(times)
    records = _events(tmp_path / "log.jsonl")
    assert [r["step"] for r in records] == [e["step"] for e in evals]
    assert records[-1]["train_seconds"] <= records[-1]["wall_seconds"]
