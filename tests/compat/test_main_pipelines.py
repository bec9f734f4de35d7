"""Pipelines saved by spacy-adf at commit 8135a26 (before the component
contract of issue 29; written by make_main_pipelines.py) load and give the
predictions recorded when they were saved: the five v0.1 kinds plus
pke_tagger, pke_segmenter and the KernelSegmenter.v1 tokenizer. Saved again
by this version and reloaded, they still predict the same."""
import json
import shutil
from pathlib import Path

import pytest
import spacy

from tests.compat import make_legacy_pipelines as legacy

FIXTURES = Path(__file__).parent / "main_8135a26"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text(encoding="utf8"))


def _json(value):
    return json.loads(json.dumps(value, ensure_ascii=False))


def _words(nlp):
    return _json(legacy.words(nlp, legacy.SEG_TESTS))


def _dependency(nlp, tmp_path):
    work = tmp_path / "knp"
    work.mkdir(exist_ok=True)
    try:
        return legacy.dependency_predictions(nlp, work)
    finally:
        shutil.rmtree(work)


PREDICT = {
    "tagger": lambda nlp, _: _json(legacy.tagger_predictions(nlp)),
    "pke_tagger": lambda nlp, _: _json(legacy.tagger_predictions(nlp)),
    "segmenter": lambda nlp, _: _words(nlp),
    "segmenter_tokenizer": lambda nlp, _: _words(nlp),
    "pke_segmenter": lambda nlp, _: _words(nlp),
    "pke_segmenter_tokenizer": lambda nlp, _: _words(nlp),
    "textcat": lambda nlp, _: [nlp(t).cats for t in legacy.TEXTCAT_TESTS],
    "dependency": _dependency,
}
SEGMENTERS = {"segmenter", "segmenter_tokenizer", "pke_segmenter", "pke_segmenter_tokenizer"}


def test_every_kind_is_covered():
    assert sorted(PREDICT) == sorted(EXPECTED)


@pytest.mark.parametrize("kind", sorted(PREDICT))
def test_loads_and_predicts_the_same(kind, tmp_path):
    expected = EXPECTED[kind]
    if kind in SEGMENTERS:
        # the one deliberate change: whitespace runs are one token, as in spaCy
        expected = legacy.with_whitespace_runs(expected)
    nlp = spacy.load(FIXTURES / kind)
    assert PREDICT[kind](nlp, tmp_path) == expected
    nlp.to_disk(tmp_path / "again")
    again = spacy.load(tmp_path / "again")
    assert PREDICT[kind](again, tmp_path) == expected
