"""Tests for benchmarks.chunking: its pure helpers, and one slow end-to-end run."""
import json
import subprocess
import sys

import pytest

from benchmarks import chunking as bench
from benchmarks.harness import DATA, REPO

CONLL2000 = DATA / "conll2000"


def test_sentence_features_three_tokens():
    templates = ["w[-2]", "w[0]", "w[1]", "w[-1]|w[0]", "t[-1]|t[0]|t[1]", "t[2]"]
    parsed = bench.parse_templates(templates)
    xseq = bench.sentence_features(["He", "reckons", "the"], ["PRP", "VBZ", "DT"], parsed)
    assert xseq == [
        ["w[-2]=__BOS-2__", "w[0]=He", "w[1]=reckons", "w[-1]|w[0]=__BOS-1__|He",
         "t[-1]|t[0]|t[1]=__BOS-1__|PRP|VBZ", "t[2]=DT"],
        ["w[-2]=__BOS-1__", "w[0]=reckons", "w[1]=the", "w[-1]|w[0]=He|reckons",
         "t[-1]|t[0]|t[1]=PRP|VBZ|DT", "t[2]=__EOS+1__"],
        ["w[-2]=He", "w[0]=the", "w[1]=__EOS+1__", "w[-1]|w[0]=reckons|the",
         "t[-1]|t[0]|t[1]=VBZ|DT|__EOS+1__", "t[2]=__EOS+2__"],
    ]


def test_parse_templates_rejects_other_columns():
    with pytest.raises(ValueError):
        bench.parse_templates(["shape[0]"])
    with pytest.raises(ValueError):
        bench.parse_templates(["w[-1]|w0"])


def test_task_tags_base_np():
    assert bench.task_tags(["B-NP", "B-VP", "I-NP", "O", "B-PP"], "np") == \
        ["B-NP", "O", "I-NP", "O", "O"]
    assert bench.task_tags(["B-NP", "B-VP"], "all") == ["B-NP", "B-VP"]


def test_tag_prf_conlleval_semantics():
    gold = [["B-NP", "I-NP", "B-VP", "O", "B-NP"], ["B-PP", "B-NP"]]
    # sentence 1: NP(0,2) and VP(2,3) right, NP(4,5) missed: I-NP after a VP
    # opens a chunk (conlleval), so the prediction has NP(3,5) instead.
    # sentence 2: PP right, NP typed as VP is wrong.
    pred = [["B-NP", "I-NP", "B-VP", "I-NP", "I-NP"], ["B-PP", "B-VP"]]
    scores = bench.tag_prf(gold, pred)
    assert (scores["n_gold"], scores["n_pred"], scores["n_correct"]) == (5, 5, 3)
    assert scores["precision"] == pytest.approx(60.0)
    assert scores["recall"] == pytest.approx(60.0)
    assert scores["f1"] == pytest.approx(60.0)


def test_span_prf_edge_cases():
    assert bench.span_prf([[]], [[]])["f1"] == 0.0
    s = bench.span_prf([[(0, 2, "NP")]], [[(0, 2, "NP"), (2, 3, "VP")]])
    assert s["precision"] == pytest.approx(50.0)
    assert s["recall"] == pytest.approx(100.0)
    assert s["f1"] == pytest.approx(200 / 3)


@pytest.mark.slow
@pytest.mark.skipif(not (CONLL2000 / "train.txt").exists(), reason="CoNLL-2000 not available")
def test_full_script_small(tmp_path):
    out_json, out_md = tmp_path / "bench.json", tmp_path / "bench.md"
    cmd = [sys.executable, "-m", "benchmarks.chunking", "--limit", "300", "--epochs-np", "1", "--tasks", "np",
           "--data", str(CONLL2000), "--workdir", str(tmp_path / "work"),
           "--out-json", str(out_json), "--out-md", str(out_md)]
    subprocess.run(cmd, check=True, cwd=REPO, timeout=900)
    report = json.loads(out_json.read_text())
    assert report["settings"]["n_train_sentences"] == 300
    systems = report["results"]["np"]
    assert set(systems) == {"crfsuite-lbfgs", "crfsuite-l2sgd", "adf"}
    for system, result in systems.items():
        assert 0.0 < result["f1"] <= 100.0, system
        assert result["tokens_per_second"] > 0, system
        assert result["peak_rss_mb"] > 0, system
    adf = systems["adf"]
    assert adf["scorer_f1"] == pytest.approx(adf["f1"], abs=1e-6)
    assert adf["memory"]["training"]["optimizer_bytes"] > 0
    assert bench.MD_START in out_md.read_text()
