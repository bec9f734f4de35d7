"""Unit rules of the segmenters (issue 29 item 4): no word starts inside a
grapheme cluster or inside a run of Latin, Arabic or Hebrew letters or of
digits; whitespace is split as spaCy splits it. The rules on their own
(`unit_glue`, `char_split`, `words_from_starts`), then in the CRF segmenter
(component and tokenizer forms) and the kernel segmenter, and the cfg
versioning that keeps a model saved without the rules predicting as before."""
import numpy
import pytest
import srsly

from spacy_adf.features.char_units import apply_unit_rules, check_unit_rules
from spacy_adf.features.chars import _build_glue_table, unit_glue, words_from_starts
from spacy_adf.tokenizers.char import char_split
from spacy_adf.tokenizers.word_tokenizer import SegmenterTokenizer
from tests.helpers.reference_segmenters import boundary_segment_reference
from tests.helpers.seg_data import char_nlp, make_sentences, seg_examples, text_units
from tests.pipeline.test_segmenter import train_segmenter


def glue(text):
    codes, _, bounds = text_units(text)
    return unit_glue(codes, bounds).tolist()


@pytest.mark.parametrize("text, expected", [
    ("👨\u200d👩\u200d👧", [0, 1, 1, 1, 1]),  # ZWJ family: one cluster
    ("❤\ufe0f", [0, 1]),  # variation selector
    ("e\u0301t", [0, 1, 1]),  # combining acute; 't' continues the Latin run through the mark
    ("👍🏽👍", [0, 1, 0]),  # skin-tone modifier
    ("🇯🇵🇺🇸", [0, 1, 0, 1]),  # regional-indicator pairs
    ("ｶﾞ", [0, 1]),  # half-width voicing mark
    ("か\u3099", [0, 1]),  # combining voicing mark
    ("\U0001F3F4\U000E0067\U000E0062\U000E007F", [0, 1, 1, 1]),  # tag sequence (plane 14)
])
def test_grapheme_clusters_are_glued(text, expected):
    assert glue(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("abc日本", [0, 1, 1, 0, 0]),
    ("ＮＨＫと", [0, 1, 1, 0]),
    ("２０１１年", [0, 1, 1, 1, 0]),
    ("iPhone15", [0, 1, 1, 1, 1, 1, 0, 1]),  # Latin then digits: a start is allowed between
    ("مرحبا،", [0, 1, 1, 1, 1, 0]),  # Arabic letters; the Arabic comma is no letter
    ("שלום", [0, 1, 1, 1]),
    ("שָׁלוֹם", [0] + [1] * 6),  # Hebrew with points (marks keep the run)
    ("日本語", [0, 0, 0]),  # Han and kana: the model decides
    ("3.14", [0, 0, 0, 1]),
])
def test_runs_of_one_letter_class_or_digits_are_glued(text, expected):
    assert glue(text) == expected


def test_runs_at_whitespace_are_independent():
    codes, _, bounds = text_units("ab cd")
    assert bounds.tolist() == [0, 2, 4]
    assert unit_glue(codes, bounds).tolist() == [0, 1, 0, 1]
    with pytest.raises(ValueError, match="bounds"):
        unit_glue(codes, numpy.array([0, 2], dtype=numpy.int64))
    assert unit_glue(numpy.zeros(0, numpy.uint32), numpy.zeros(1, numpy.int64)).tolist() == []
    # hashed multi-character units (codes above the code points) have no rule
    assert unit_glue(numpy.array([0x300000, 0x300001], numpy.uint32), numpy.array([0, 2])).tolist() == [0, 0]


def test_run_classes_of_the_glue_table():
    table = _build_glue_table()  # bit 7: extends the character before; bits 0-2: the run class
    run_names = ("none", "digit", "latin", "arabic", "hebrew")
    names = ["extend" if table[c] & 0x80 else run_names[table[c] & 7] for c in
             [ord("a"), ord("1"), ord("م"), ord("ש"), 0x0301, ord("日")]]
    assert names == ["latin", "digit", "arabic", "hebrew", "extend", "none"]


def test_apply_unit_rules_by_version():
    codes, _, bounds = text_units("ab")
    starts = numpy.ones(2, bool)
    assert apply_unit_rules(starts.copy(), codes, bounds, "codepoints").tolist() == [True, True]
    assert apply_unit_rules(starts.copy(), codes, bounds, "graphemes").tolist() == [True, False]
    with pytest.raises(ValueError, match="unit_rules"):
        check_unit_rules("words")


@pytest.mark.parametrize("text, words, spaces", [
    ("a b", ["a", "b"], [True, False]),
    ("a  b", ["a", " ", "b"], [True, False, False]),
    ("彼\n\n母", ["彼", "\n\n", "母"], [False, False, False]),
    ("彼 \n 母", ["彼", "\n ", "母"], [True, False, False]),
    ("  x", ["  ", "x"], [False, False]),
    ("x\t", ["x", "\t"], [False, False]),
    ("\u3000\u3000", ["\u3000\u3000"], [False]),
])
def test_whitespace_is_split_the_spacy_way(text, words, spaces):
    assert char_split(text) == (words, spaces)
    codes, pos, _ = text_units(text)
    got = words_from_starts(text, pos, numpy.ones(len(codes), numpy.uint8))
    assert got == (words, spaces)
    assert "".join(w + (" " if s else "") for w, s in zip(words, spaces)) == text


@pytest.mark.parametrize("text", [
    "我们 ADJ中国 NOUN  人民\u3000 😀👍🏽 étude ＡＢＣ１２３。",  # "ADJ", "NOUN": spaCy symbol names
    " 中 ", "\t\n", "x" * 70 + "中" * 70 + " " + "国" * 65,  # words over MAX_KEY_UNITS go as str
    "新词汇" * 3 + " 新词汇 ",  # not in the vocab at first, then in it
])
def test_word_ids_make_the_docs_words_make(text):
    """With codes and a vocab, known non-ASCII words come as their ids and the Doc is the one
    their strings make (same orths, spaces and text), in a vocab that lacks or has them."""
    import spacy
    from spacy.tokens import Doc

    vocab = spacy.blank("xx").vocab
    codes, pos, _ = text_units(text)
    starts = numpy.zeros(len(codes), numpy.uint8)
    starts[::2] = 1
    words, spaces = words_from_starts(text, pos, starts)
    for _ in range(2):  # the first Doc adds the words' lexemes
        keyed, keyed_spaces = words_from_starts(text, pos, starts, codes, vocab)
        assert keyed_spaces == spaces
        assert [w for w in keyed if isinstance(w, str)] == [w for w, k in zip(words, keyed) if isinstance(k, str)]
        doc = Doc(vocab, words=keyed, spaces=keyed_spaces)
        ref = Doc(vocab, words=words, spaces=spaces)
        assert doc.text == ref.text == text
        assert [(t.orth, t.whitespace_) for t in doc] == [(t.orth, t.whitespace_) for t in ref]
    assert any(isinstance(w, int) for w in keyed) == any(not w.isascii() and not w.isspace() for w in words)
    assert all(isinstance(w, str) for w, k in zip(keyed, words) if k.isascii() or len(k) > 64)


# ---------------------------------------------------------------- segmenters

TEXT = "我们👨\u200d👩\u200d👧喜欢abc和مرحبا以及שלום、2024年❤\ufe0f。\n\n今天  很好"


def _words(doc):
    return [t.text for t in doc]


def _check_no_split(doc):
    """No token starts on a glued unit, and the clusters and runs are whole."""
    codes, pos, bounds = text_units(doc.text)
    glued = {int(p) for p, g in zip(pos, unit_glue(codes, bounds)) if g}
    assert not [t.text for t in doc if t.idx in glued]
    words = [t.text for t in doc]
    for whole in ("👨\u200d👩\u200d👧", "abc", "مرحبا", "שלום", "2024", "❤\ufe0f"):
        assert any(whole in w for w in words), (whole, words)


@pytest.fixture(scope="module")
def crf():
    return train_segmenter(make_sentences(200, seed=3), epochs=3)


def test_crf_segmenter_keeps_clusters_and_runs(crf, tmp_path):
    nlp, seg = crf
    assert seg.plain_model.cfg["unit_rules"] == "graphemes"
    doc = nlp(TEXT)
    assert doc.text == TEXT
    _check_no_split(doc)
    assert "\n\n" in _words(doc) and " " in _words(doc)
    tok = SegmenterTokenizer(nlp.vocab).from_segmenter(seg)
    assert _words(tok(TEXT)) == _words(doc)
    assert [t.whitespace_ for t in tok(TEXT)] == [t.whitespace_ for t in doc]
    # the rule is saved with the model
    nlp.to_disk(tmp_path / "p")
    assert srsly.read_json(tmp_path / "p" / "adf_segmenter" / "cfg")["unit_rules"] == "graphemes"


def test_code_point_rules_predict_the_unruled_units(crf):
    """A model whose cfg says "codepoints" lets every unit start a word; a
    cfg without the key is refused (every saved model states its rules)."""
    nlp, seg = crf
    model = seg.plain_model
    other = type(model)(model.options, name="other")
    other.from_bytes(model.to_bytes())
    assert other.cfg["unit_rules"] == "graphemes"
    other.cfg["unit_rules"] = "codepoints"
    raw = type(model)(model.options, name="raw")
    raw.from_bytes(other.to_bytes())
    assert raw.cfg["unit_rules"] == "codepoints"
    codes, _, bounds = text_units(TEXT)
    unruled = raw.segment(codes, bounds)
    ruled = model.segment(codes, bounds)
    assert (ruled == apply_unit_rules(unruled.copy(), codes, bounds, "graphemes")).all()
    # the toy model, which never saw these characters, splits some of them
    assert (unruled != ruled).any()
    other.cfg.pop("unit_rules")
    with pytest.raises(ValueError, match="unit_rules"):
        type(model)(model.options, name="old").from_bytes(other.to_bytes())


def test_kernel_segmenter_keeps_clusters_and_runs(tmp_path):
    nlp = char_nlp()
    seg = nlp.add_pipe("pke_segmenter", config={"trainer": "libsvm", "classifier": "pke"})
    nlp.initialize(lambda: seg_examples(nlp, make_sentences(80)))
    model = seg.plain_model
    assert model.unit_rules == "graphemes"
    doc = nlp(TEXT)
    assert doc.text == TEXT
    _check_no_split(doc)
    codes, _, bounds = text_units(TEXT)
    assert (model.segment(codes, bounds) == boundary_segment_reference(model, codes, bounds)).all()
    # a features part without its unit rules is refused
    from spacy_adf.serialization.framed import pack

    old = pack("spacy_adf.boundary_features", 1, {"keys": model.vocab.keys}, {"window": model.window})
    with pytest.raises(ValueError, match="incomplete"):
        model.features_from_bytes(old)
