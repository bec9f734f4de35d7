"""The self-training corpus: gold lines first and unchanged, then unlabeled
lines as the model segments them, excluded (dev) lines never written, and
the file read back by the corpus reader that trains on it."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from spacy_adf.corpora.segmented import SegmentedCorpus
from spacy_adf.training.self_training import write_self_training_corpus

from ..helpers.seg_data import char_nlp
from ..helpers.trained import FIXTURES, load_trained

REPO = Path(__file__).resolve().parents[2]


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "spacy_adf", "self-train-corpus", *map(str, args)],
                          cwd=REPO, capture_output=True, text=True)

GOLD = ["我们 在 北京", "  今天 天气 很 好  ", ""]
UNLABELED = ["我们研究生命科学", "", "中国人民银行", "上海 市场开放", "天气很好"]


@pytest.fixture(scope="module")
def segmenter():
    nlp, _ = load_trained("segmenter")
    return nlp


def _files(tmp_path, dev=("天 气 很好",)):
    gold, raw, devf = tmp_path / "gold.txt", tmp_path / "raw.txt", tmp_path / "dev.txt"
    gold.write_text("\n".join(GOLD) + "\n", encoding="utf-8")
    raw.write_text("\n".join(UNLABELED) + "\n", encoding="utf-8")
    devf.write_text("\n".join(dev) + "\n", encoding="utf-8")
    return gold, raw, devf


def test_gold_first_then_the_models_words_and_no_excluded_line(segmenter, tmp_path):
    gold, raw, dev = _files(tmp_path)
    out = tmp_path / "out" / "self.txt"
    report = write_self_training_corpus(segmenter, raw, gold, out, exclude=[dev], log=None)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[:2] == ["我们 在 北京", "今天 天气 很 好"]
    expected = [" ".join(t.text for t in segmenter(text) if not t.is_space)
                for text in ("我们研究生命科学", "中国人民银行", "上海 市场开放")]
    assert lines[2:] == expected
    assert all("  " not in line and line == line.strip() for line in lines)
    assert not any("".join(line.split()) == "天气很好" for line in lines)  # the dev line
    assert (report.gold_lines, report.unlabeled_lines, report.blank_lines, report.excluded_lines,
            report.autolabeled_lines) == (2, 5, 1, 1, 3)
    assert report.autolabeled_words == sum(len(line.split()) for line in expected)


def test_without_exclude_every_nonblank_line_is_segmented(segmenter, tmp_path):
    gold, raw, _ = _files(tmp_path)
    out = tmp_path / "self.txt"
    report = write_self_training_corpus(segmenter, raw, gold, out, log=None)
    assert report.excluded_lines == 0 and report.autolabeled_lines == 4
    assert len(out.read_text(encoding="utf-8").splitlines()) == 6


def test_the_corpus_reads_back_with_the_models_words(segmenter, tmp_path):
    gold, raw, dev = _files(tmp_path)
    out = tmp_path / "self.txt"
    write_self_training_corpus(segmenter, raw, gold, out, exclude=[dev], log=None)
    examples = list(SegmentedCorpus(out)(char_nlp()))
    assert len(examples) == 5
    assert [t.text for t in examples[0].reference] == ["我们", "在", "北京"]
    auto = [t.text for t in segmenter("中国人民银行") if not t.is_space]
    assert [t.text for t in examples[3].reference] == auto


def test_same_output_twice(segmenter, tmp_path):
    gold, raw, dev = _files(tmp_path)
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    write_self_training_corpus(segmenter, raw, gold, a, exclude=[dev], log=None)
    write_self_training_corpus(segmenter, raw, gold, b, exclude=[dev], log=None)
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("missing", ["gold", "unlabeled", "exclude"])
def test_a_missing_file_is_named(segmenter, tmp_path, missing):
    gold, raw, dev = _files(tmp_path)
    nowhere = tmp_path / "nowhere.txt"
    args = {"gold": gold, "unlabeled": raw, "exclude": dev}
    args[missing] = nowhere
    with pytest.raises(ValueError, match=f"self-training: {missing} file .*nowhere.txt.* does not exist"):
        write_self_training_corpus(segmenter, args["unlabeled"], args["gold"], tmp_path / "o.txt",
                                   exclude=[args["exclude"]], log=None)


def test_a_file_that_is_not_utf8_is_an_error(segmenter, tmp_path):
    gold, raw, _ = _files(tmp_path)
    raw.write_bytes("天气".encode("gbk"))
    with pytest.raises(ValueError, match=r"self-training: unlabeled file .*raw.*, line 1: not valid UTF-8"):
        write_self_training_corpus(segmenter, raw, gold, tmp_path / "o.txt", log=None)


def test_cli_writes_corpus_and_report(tmp_path):
    gold, raw, dev = _files(tmp_path)
    out, report = tmp_path / "self.txt", tmp_path / "metrics" / "self.json"
    run = _cli(FIXTURES / "segmenter", raw, "--gold", gold, "--output", out, "--exclude", dev, "--report", report)
    assert run.returncode == 0, run.stderr
    assert "[self-training] 2 gold lines + 3 segmented lines" in run.stdout
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["autolabeled_lines"] == 3 and data["excluded_lines"] == 1
    assert len(out.read_text(encoding="utf-8").splitlines()) == 5


def test_cli_refuses_a_missing_model(tmp_path):
    gold, raw, _ = _files(tmp_path)
    run = _cli(tmp_path / "no_model", raw, "--gold", gold, "--output", tmp_path / "o.txt")
    assert run.returncode == 2 and "model not found" in run.stderr
    assert not (tmp_path / "o.txt").exists()


def test_every_self_training_step_excludes_the_dev_file_of_the_step_that_trains_on_it():
    """project.yml: a self-training corpus leaves out the dev lines of the
    `spacy train` that reads it, so that step's logged dev score is honest."""
    import shlex
    from .test_dev_train_disjoint import PROJECT, STEPS, _readers, _substitute, _vars
    made = {}
    for command in PROJECT["commands"]:
        for line in command.get("script", []):
            args = shlex.split(_substitute(line, _vars()))
            if args[:4] == ["python", "-m", "spacy_adf", "self-train-corpus"]:
                out = args[args.index("--output") + 1]
                excluded = [args[i + 1] for i, a in enumerate(args) if a == "--exclude"]
                made[out] = excluded
    assert made, "no self-training step in project.yml"
    readers = 0
    for name, config_path, overrides in STEPS:
        _, train, dev = _readers(config_path, overrides)
        if str(train.get("path")) in made:
            readers += 1
            assert str(dev.get("path")) in made[str(train["path"])], (
                f"{name}: trains on {train['path']} but its dev file {dev.get('path')} is not excluded from it")
    assert readers == len(made), "a self-training corpus that no step trains on"


def test_a_bom_in_the_gold_file_is_not_copied(segmenter, tmp_path):
    gold, raw, dev = _files(tmp_path)
    gold.write_text("\ufeff" + "\n".join(GOLD) + "\n", encoding="utf-8")
    out = tmp_path / "self.txt"
    write_self_training_corpus(segmenter, raw, gold, out, exclude=[dev], log=None)
    text = out.read_text(encoding="utf-8")
    assert "\ufeff" not in text
    assert text.splitlines()[0] == GOLD[0]
