"""Small saved pipelines of every component kind (written by
make_main_pipelines.py, in the formats this version writes) load and give
the predictions recorded when they were trained: adf_tagger, adf_segmenter (as a
component and as the Segmenter.v1 tokenizer), adf_textcat, pke_dependency,
pke_tagger and pke_segmenter (component and KernelSegmenter.v1 tokenizer).
Saved again by this version and reloaded, they still predict the same."""
import json
import shutil
from pathlib import Path

import pytest
import spacy

from tests.compat import make_main_pipelines as recipes

FIXTURES = Path(__file__).parent / "saved_pipelines"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text(encoding="utf8"))


def _json(value):
    return json.loads(json.dumps(value, ensure_ascii=False))


def _words(nlp):
    return _json(recipes.words(nlp, recipes.SEG_TESTS))


def _dependency(nlp, tmp_path):
    work = tmp_path / "knp"
    work.mkdir(exist_ok=True)
    try:
        return recipes.dependency_predictions(nlp, work)
    finally:
        shutil.rmtree(work)


PREDICT = {
    "tagger": lambda nlp, _: _json(recipes.tagger_predictions(nlp)),
    "pke_tagger": lambda nlp, _: _json(recipes.tagger_predictions(nlp)),
    "segmenter": lambda nlp, _: _words(nlp),
    "segmenter_tokenizer": lambda nlp, _: _words(nlp),
    "pke_segmenter": lambda nlp, _: _words(nlp),
    "pke_segmenter_tokenizer": lambda nlp, _: _words(nlp),
    "textcat": lambda nlp, _: [nlp(t).cats for t in recipes.TEXTCAT_TESTS],
    "dependency": _dependency,
}


def test_every_kind_is_covered():
    assert sorted(PREDICT) == sorted(EXPECTED)


@pytest.mark.parametrize("kind", sorted(PREDICT))
def test_loads_and_predicts_the_same(kind, tmp_path):
    expected = EXPECTED[kind]
    nlp = spacy.load(FIXTURES / kind)
    assert PREDICT[kind](nlp, tmp_path) == expected
    nlp.to_disk(tmp_path / "again")
    again = spacy.load(tmp_path / "again")
    assert PREDICT[kind](again, tmp_path) == expected
