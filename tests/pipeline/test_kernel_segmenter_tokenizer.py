"""spacy_adf.KernelSegmenter.v1: the tokenizer form of a trained
pke_segmenter gives the component's word Docs straight from raw text."""
import pickle

import pytest
import spacy
from spacy.training import Example

from spacy_adf.tokenizers.word_tokenizer import KernelSegmenterTokenizer
from tests.helpers.seg_data import char_nlp, make_sentences, seg_examples

TEXTS = ["我们喜欢吃苹果。今天天气很好 研究生命科学的学生", "", " ", "  \n\t　", "😀😀😀",
         "𠮷野家でＸＹＺ™を♪ !", "a b  c", "龘靐齉", "我们 喜欢\n苹果", "今天", "生命科学的学生研究"[::-1]]


def _trained(trainer: str, sigma: float):
    nlp = char_nlp()
    seg = nlp.add_pipe("pke_segmenter", config={"trainer": trainer, "sigma": sigma})
    nlp.initialize(lambda: seg_examples(nlp, make_sentences(120)))
    return nlp


@pytest.fixture(scope="module", params=["libsvm", "primal"])
def trained(request):
    return _trained(request.param, 0.0 if request.param == "libsvm" else 0.005)


def _docs(docs):
    return [[(t.text, t.whitespace_) for t in doc] for doc in docs]


def _tokenizer_nlp(model_dir, lang="ja"):
    return spacy.blank(lang, config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.KernelSegmenter.v1"}},
                                     "initialize": {"tokenizer": {"segmenter_model": str(model_dir)}}})


@pytest.mark.parametrize("lang", ["ja", "zh"])
def test_tokenizer_form_equals_the_component(trained, tmp_path, lang):
    expected = _docs(trained.pipe(TEXTS))
    trained.to_disk(tmp_path / "trained")
    fast = _tokenizer_nlp(tmp_path / "trained", lang)
    fast.initialize()
    assert _docs(fast.pipe(TEXTS, batch_size=3)) == expected
    assert _docs(fast(t) for t in TEXTS) == expected
    assert all(doc.text == text for doc, text in zip(fast.pipe(TEXTS), TEXTS))


def test_evaluate_scores_the_words(trained, tmp_path):
    """nlp.evaluate (as `spacy evaluate` runs it) of the tokenizer form:
    spaCy's token scores and the component's, equal to the component's
    own scores of the same words."""
    trained.to_disk(tmp_path / "trained")
    fast = _tokenizer_nlp(tmp_path / "trained", "zh")
    fast.initialize()
    examples = seg_examples(trained, make_sentences(40, seed=7))
    want = trained.evaluate(examples)
    got = fast.evaluate([Example(fast.make_doc(eg.reference.text), eg.reference) for eg in examples])
    assert 0 < got["token_f"] <= 1 and "token_acc" in got
    assert {k: v for k, v in got.items() if k in want and k != "speed"} == \
        {k: pytest.approx(v) for k, v in want.items() if k != "speed"}


def test_a_long_line(trained, tmp_path):
    text = ("我们喜欢吃苹果今天天气很好" * 8000)[:100_000]
    fast = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.KernelSegmenter.v1"}}})
    fast.tokenizer.from_segmenter(trained.get_pipe("pke_segmenter"))
    doc = fast(text)
    assert doc.text == text and _docs([doc]) == _docs([trained(text)])


def test_round_trips(trained, tmp_path):
    trained.to_disk(tmp_path / "trained")
    fast = _tokenizer_nlp(tmp_path / "trained")
    fast.initialize()
    expected = _docs(fast.pipe(TEXTS))
    fast.to_disk(tmp_path / "fast")
    assert _docs(spacy.load(tmp_path / "fast").pipe(TEXTS)) == expected
    again = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.KernelSegmenter.v1"}}})
    again.from_bytes(fast.to_bytes())
    assert _docs(again.pipe(TEXTS)) == expected
    assert _docs(pickle.loads(pickle.dumps(fast)).pipe(TEXTS)) == expected
    # the component's own directory works as segmenter_model too
    direct = _tokenizer_nlp(tmp_path / "trained" / "pke_segmenter")
    direct.initialize()
    assert _docs(direct.pipe(TEXTS)) == expected
    # a saved pipeline re-initialized where the training path is gone keeps its model
    loaded = spacy.load(tmp_path / "fast")
    with pytest.warns(UserWarning, match="does not exist"):
        loaded.tokenizer.initialize(segmenter_model=tmp_path / "gone")
    assert _docs(loaded.pipe(TEXTS)) == expected


def test_other_forms_from_the_loaded_libsvm_model(tmp_path):
    nlp = _trained("libsvm", 0.0)
    nlp.to_disk(tmp_path / "trained")
    fast = _tokenizer_nlp(tmp_path / "trained")
    fast.initialize()
    expected = _docs(fast.pipe(TEXTS))
    for kind in ("pkb", "pki"):
        fast.tokenizer.component.set_classifier(kind)
        assert _docs(fast.pipe(TEXTS)) == expected
    fast.tokenizer.component.set_classifier("pke", sigma=0.0)
    fast.to_disk(tmp_path / "fast")
    assert spacy.load(tmp_path / "fast").tokenizer.component.cfg["classifier"] == "pke"


def test_untrained_and_wrong_models_are_clear_errors(tmp_path):
    untrained = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.KernelSegmenter.v1"}}})
    with pytest.raises(ValueError, match="has no model"):
        untrained("今日")
    with pytest.raises(ValueError, match="segmenter_model"):
        untrained.initialize()
    with pytest.raises(TypeError, match="str"):
        untrained.tokenizer(b"bytes")
    with pytest.raises(ValueError, match="does not exist"):
        _tokenizer_nlp(tmp_path / "missing").initialize()
    char_nlp().to_disk(tmp_path / "no_segmenter")
    with pytest.raises(ValueError, match="no trained pke_segmenter"):
        _tokenizer_nlp(tmp_path / "no_segmenter").initialize()
    with pytest.raises(ValueError, match="expected a component of factory 'pke_segmenter'"):
        KernelSegmenterTokenizer(untrained.vocab).from_segmenter(object())
    # an untrained tokenizer saves and loads as untrained
    again = KernelSegmenterTokenizer(untrained.vocab).from_bytes(untrained.tokenizer.to_bytes())
    assert not again.is_trained


def test_corrupt_and_foreign_files_are_reported(trained, tmp_path):
    fast = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.KernelSegmenter.v1"}}})
    fast.tokenizer.from_segmenter(trained.get_pipe("pke_segmenter"))
    fast.to_disk(tmp_path / "fast")
    tok_file = tmp_path / "fast" / "tokenizer" / "segmenter"
    good = tok_file.read_bytes()
    for bad, match in [(b"not msgpack at all \x00\x01", "cannot load"),
                       (good[: len(good) // 2], "cannot load")]:
        tok_file.write_bytes(bad)
        with pytest.raises(ValueError, match=match):
            spacy.load(tmp_path / "fast")
    # the adf_segmenter tokenizer's file is not this tokenizer's
    from spacy_adf.tokenizers.word_tokenizer import SegmenterTokenizer

    tok_file.write_bytes(SegmenterTokenizer(fast.vocab).to_bytes())
    with pytest.raises(ValueError, match="not a spacy_adf.KernelSegmenter.v1 tokenizer file"):
        spacy.load(tmp_path / "fast")
    tok_file.unlink()
    with pytest.raises(ValueError, match="missing"):
        spacy.load(tmp_path / "fast")
