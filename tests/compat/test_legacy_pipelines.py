"""Pipelines saved by spacy-adf before the architecture change (commit
4060ba9, written by make_legacy_pipelines.py) load and give the predictions
recorded when they were saved: all five component kinds."""
import json
import shutil
from pathlib import Path

import pytest
import spacy

from tests.compat import make_legacy_pipelines as legacy

FIXTURES = Path(__file__).parent / "legacy_v0_1"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text(encoding="utf8"))


def _roundtrip(nlp, tmp_path):
    """The loaded pipeline saved again with this version, and loaded again."""
    nlp.to_disk(tmp_path / "again")
    return spacy.load(tmp_path / "again")


def _check(kind, predict, tmp_path):
    nlp = spacy.load(FIXTURES / kind)
    assert predict(nlp) == EXPECTED[kind]
    assert predict(_roundtrip(nlp, tmp_path)) == EXPECTED[kind]


def _json(value):
    return json.loads(json.dumps(value, ensure_ascii=False))


def test_tagger(tmp_path):
    _check("tagger", lambda nlp: _json(legacy.tagger_predictions(nlp)), tmp_path)


@pytest.mark.parametrize("kind", ["segmenter", "segmenter_tokenizer"])
def test_segmenter_component_and_tokenizer(kind, tmp_path):
    nlp = spacy.load(FIXTURES / kind)
    # the one deliberate change since 0.1: whitespace runs are one token, as in spaCy
    expected = legacy.with_whitespace_runs(EXPECTED[kind])
    for loaded in (nlp, _roundtrip(nlp, tmp_path)):
        assert _json(legacy.words(loaded, legacy.SEG_TESTS)) == expected


def test_textcat(tmp_path):
    _check("textcat", lambda nlp: [nlp(t).cats for t in legacy.TEXTCAT_TESTS], tmp_path)


def test_dependency(tmp_path):
    work = tmp_path / "knp"
    work.mkdir()
    _check("dependency", lambda nlp: legacy.dependency_predictions(nlp, work), tmp_path)
    shutil.rmtree(work)
