"""Empty and whitespace-only Docs: every component passes them through
with its annotations present and empty (span groups exist, trees are
empty, no error), as a one-space Doc always did."""
import pytest
import spacy

from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY, bunsetsu_heads
from tests.helpers.dep_data import corpus_examples, knp_text
from tests.helpers.trained import FIXTURES, load_trained

BLANK_TEXTS = ["", " ", "   ", " \n\t "]


def _non_space(doc):
    return [t.text for t in doc if not t.is_space]


@pytest.mark.parametrize("text", BLANK_TEXTS)
@pytest.mark.parametrize("kind", ["tagger", "pke_tagger"])
def test_chunkers_give_an_empty_span_group(kind, text):
    nlp, _ = load_trained(kind)
    doc = nlp(text)
    assert "chunks" in doc.spans and len(doc.spans["chunks"]) == 0
    assert doc.text == text


@pytest.mark.parametrize("text", BLANK_TEXTS)
@pytest.mark.parametrize("kind", ["segmenter", "pke_segmenter", "segmenter_tokenizer", "pke_segmenter_tokenizer"])
def test_segmenters_keep_the_text_and_make_no_words(kind, text):
    nlp = spacy.load(FIXTURES / kind)
    doc = nlp(text)
    assert doc.text == text and _non_space(doc) == []


@pytest.mark.parametrize("text", BLANK_TEXTS)
def test_textcat_gives_every_label(text):
    nlp, component = load_trained("textcat")
    cats = nlp(text).cats
    assert sorted(cats) == sorted(component.labels) and abs(sum(cats.values()) - 1.0) < 1e-9


@pytest.mark.parametrize("text", BLANK_TEXTS)
def test_dependency_alone_gives_an_empty_tree(text):
    nlp, _ = load_trained("dependency")
    doc = nlp(text)
    assert len(doc.spans[BUNSETSU_KEY]) == 0 and doc.spans[BUNSETSU_KEY].attrs["heads"] == []
    assert bunsetsu_heads(doc) == []


@pytest.fixture(scope="module")
def japanese(tmp_path_factory):
    """A chunker (adf_tagger, covering bunsetsu spans) before the fixture's
    pke_dependency, as in the Japanese raw-text pipeline."""
    nlp = spacy.blank("xx")
    nlp.add_pipe("adf_tagger", name="chunker", config={
        "target": f"spans:{BUNSETSU_KEY}", "covering": True,
        "model": {"@architectures": "spacy_adf.CRF.v1", "templates": ["w[0]", "w[-1]", "pos[0]"]}})
    path = tmp_path_factory.mktemp("knp") / "train.knp"
    path.write_text(knp_text(20), encoding="utf8")
    examples = corpus_examples(nlp, path)
    nlp.initialize(lambda: examples)
    nlp.add_pipe("pke_dependency", source=spacy.load(FIXTURES / "dependency"))
    return nlp, examples


@pytest.mark.parametrize("text", BLANK_TEXTS)
def test_japanese_pipeline_gives_empty_groups_and_trees(japanese, text):
    nlp, _ = japanese
    doc = nlp(text)
    assert BUNSETSU_KEY in doc.spans and len(doc.spans[BUNSETSU_KEY]) == 0
    assert bunsetsu_heads(doc) == [] == doc.spans[BUNSETSU_KEY].attrs["heads"]


def test_japanese_pipeline_parses_real_docs_between_blank_ones(japanese):
    nlp, examples = japanese
    docs = [eg.predicted.copy() for eg in examples[:2]]
    for doc in docs:
        del doc.spans[BUNSETSU_KEY]
    empty = nlp.make_doc("")
    out = list(nlp.pipe([docs[0], empty, docs[1]], batch_size=3))
    assert [len(bunsetsu_heads(d)) for d in out] == [len(d.spans[BUNSETSU_KEY]) for d in out]
    assert len(out[0].spans[BUNSETSU_KEY]) > 0 and bunsetsu_heads(out[1]) == []
