"""Sentences in Japanese raw text (issue 27 item 3): one tree per sentence,
a sentence never spans 。！？ or a line break, whitespace never starts a
bunsetsu. The rule on hand-made Docs (`respect_sentence_ends`,
`sentence_end_tokens`, `bunsetsu_sentences`), then the whole raw-text
pipeline trained on the synthetic KNP corpus of the dependency tests."""
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc
from spacy.vocab import Vocab

from spacy_adf.lang.ja.bunsetsu import (
    BUNSETSU_KEY, bunsetsu_heads, bunsetsu_sentences, is_sentence_ender, respect_sentence_ends,
    sentence_end_tokens,
)

REPO = Path(__file__).resolve().parents[2]


def _doc(words, bounds):
    doc = Doc(Vocab(), words=words, spaces=[False] * len(words))
    doc.spans[BUNSETSU_KEY] = [doc[a:b] for a, b in bounds]
    return doc


def _bounds(doc):
    return [(s.start, s.end) for s in doc.spans[BUNSETSU_KEY]]


def test_newline_joins_the_sentence_before_it():
    words = ["彼", "が", "送った", "。", "\n", "彼", "が", "送った", "。"]
    doc = _doc(words, [(0, 2), (2, 4), (4, 7), (7, 9)])  # the chunker's '\n彼が'
    assert sentence_end_tokens(doc) == [4]
    assert respect_sentence_ends(doc)
    assert _bounds(doc) == [(0, 2), (2, 5), (5, 7), (7, 9)]
    assert bunsetsu_sentences(doc, doc.spans[BUNSETSU_KEY]) == [(0, 2), (2, 4)]
    assert not respect_sentence_ends(doc), "a second pass changes nothing"


def test_a_bunsetsu_across_a_full_stop_is_cut():
    words = ["盛り込んだ", "。", "総額", "は", "増えた", "。"]
    doc = _doc(words, [(0, 4), (4, 6)])  # '盛り込んだ。総額は'
    assert respect_sentence_ends(doc)
    assert _bounds(doc) == [(0, 2), (2, 4), (4, 6)]
    assert bunsetsu_sentences(doc, doc.spans[BUNSETSU_KEY]) == [(0, 1), (1, 3)]


@pytest.mark.parametrize("ender", ["！", "？", "!?", "。。"])
def test_other_enders_cut_too(ender):
    doc = _doc(["行った", ender, "次", "は"], [(0, 4)])
    assert respect_sentence_ends(doc)
    assert _bounds(doc) == [(0, 2), (2, 4)]


def test_decimal_points_abbreviations_and_quotations_are_not_ends():
    decimal = _doc(["３", "．", "５", "％", "増えた", "。"], [(0, 4), (4, 6)])
    abbrev = _doc(["U", ".", "S", "の", "会社", "。"], [(0, 4), (4, 6)])
    quoted = _doc(["「", "行こう", "！", "」", "と", "言った", "。"], [(0, 5), (5, 7)])
    closed = _doc(["行こう", "。」", "と", "言った", "。"], [(0, 3), (3, 5)])
    inside = _doc(["『", "行こう", "！", "ＭＡＸ", "』", "を", "見た", "。"], [(0, 6), (6, 8)])
    # an unbracketed quotation (KWDLC test has three): the quotative particle goes on
    unbracketed = _doc(["がっかり", "だ", "よ", "！", "と", "言う", "感想", "。"], [(0, 5), (5, 6), (6, 8)])
    asked = _doc(["買い", "ませ", "ん", "か", "？", "という", "メール", "。"], [(0, 6), (6, 8)])
    for doc in (decimal, abbrev, quoted, closed, inside, unbracketed, asked):
        before = _bounds(doc)
        assert sentence_end_tokens(doc) == []
        assert not respect_sentence_ends(doc)
        assert _bounds(doc) == before
    # a weak ender followed by whitespace is an end
    spaced = _doc(["End", ".", " ", "次", "は"], [(0, 5)])
    assert sentence_end_tokens(spaced) == [2]
    # a full stop before と still ends the sentence; so does ！ before other words
    assert sentence_end_tokens(_doc(["行った", "。", "と", "は", "いえ"], [(0, 5)])) == [1]
    assert sentence_end_tokens(_doc(["行った", "！", "とても", "楽しい"], [(0, 4)])) == [1]


def test_whitespace_never_starts_a_bunsetsu():
    doc = _doc(["彼", "が", "\u3000", "送った", "。"], [(0, 2), (2, 5)])
    assert respect_sentence_ends(doc)
    assert _bounds(doc) == [(0, 3), (3, 5)]
    only_space = _doc(["彼", "が", "  ", "送った"], [(0, 2), (2, 3), (3, 4)])
    respect_sentence_ends(only_space)
    assert _bounds(only_space) == [(0, 3), (3, 4)]
    # leading whitespace has no bunsetsu before it: it stays in the first
    leading = _doc(["\n", "彼", "が"], [(0, 1), (1, 3)])
    respect_sentence_ends(leading)
    assert _bounds(leading) == [(0, 3)]


def test_line_breaks_end_sentences_without_punctuation():
    assert is_sentence_ender("\n") and is_sentence_ender(" \r\n") and not is_sentence_ender("\u3000")
    words = ["彼", "が", "送った", "\n", "母", "に", "送った", "\n", "次"]
    doc = _doc(words, [(0, 2), (2, 3), (3, 6), (6, 9)])
    assert sentence_end_tokens(doc) == [3, 7]
    respect_sentence_ends(doc)
    assert _bounds(doc) == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 9)]
    assert bunsetsu_sentences(doc, doc.spans[BUNSETSU_KEY]) == [(0, 2), (2, 4), (4, 5)]
    # a line break inside an open quotation still ends the sentence
    quote = _doc(["「", "彼", "\n", "母", "」"], [(0, 5)])
    assert sentence_end_tokens(quote) == [2]


def test_spans_that_do_not_cover_the_doc_are_an_error():
    doc = _doc(["彼", "。", "次"], [(0, 1)])
    with pytest.raises(ValueError, match="ends at token 1"):
        respect_sentence_ends(doc)


# ---------------------------------------------------------------- the pipeline


def _train(config, out, train, dev, *overrides):
    result = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(REPO / "configs" / config), "--paths.train", str(train),
         "--paths.dev", str(dev), "--output", str(out), *overrides],
        capture_output=True, text=True, cwd=REPO,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return out / "model-last"


@pytest.fixture(scope="module")
def japanese(tmp_path_factory, dep_corpus):
    """The raw-text pipeline (segmenter tokenizer -> morph taggers ->
    bunsetsu chunker -> pke_dependency) trained on the synthetic corpus."""
    from spacy_adf.packaging.assemble import assemble

    tmp = tmp_path_factory.mktemp("ja_sents")
    train, dev = dep_corpus / "train.knp", dep_corpus / "dev.knp"
    quick = ["--training.max_epochs", "3", "--training.eval_frequency", "1000"]
    seg = _train("seg_ja_kwdlc.cfg", tmp / "seg", train, dev, *quick)
    morph = _train("morph_ja_kwdlc.cfg", tmp / "morph", train, dev, *quick)
    chunker = _train("bunsetsu_ja_kwdlc.cfg", tmp / "bunsetsu", train, dev, *quick)
    dep = _train("dep_ja_kwdlc.cfg", tmp / "dep", train, dev)
    result = subprocess.run([sys.executable, "-m", "spacy_adf", "segmenter-tokenizer", str(seg), str(tmp / "seg_fast"),
                             "--lang", "ja"], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr[-3000:]
    return assemble(str(tmp / "seg_fast"), [str(morph), str(chunker), str(dep)], "sample_dep", "0.0.1")


def _check_one_tree_per_sentence(doc, sentence_texts):
    """doc.sents are exactly the given sentences (character offsets, each
    with the whitespace after it), every bunsetsu heads inside its sentence,
    no bunsetsu starts with whitespace."""
    starts, pos = [], 0
    for text in sentence_texts:
        pos = doc.text.index(text, pos)
        starts.append(pos)
        pos += len(text)
    assert [s.start_char for s in doc.sents] == starts, [s.text for s in doc.sents]
    spans = doc.spans[BUNSETSU_KEY]
    assert all(not s[0].text.isspace() for s in list(spans)[1:]), [s.text for s in spans]
    heads = bunsetsu_heads(doc)
    sent_of = [next(k for k, st in reversed(list(enumerate(starts))) if st <= s.start_char) for s in spans]
    for b, h in enumerate(heads):
        if h >= 0:
            assert sent_of[h] == sent_of[b], (spans[b].text, spans[h].text)
    assert heads.count(-1) == len(sentence_texts)


def test_two_sentences_on_two_lines(japanese):
    sentence = "友達が書いた手紙を先生に送る。"
    doc = japanese(sentence + "\n" + sentence)
    assert doc.text == sentence + "\n" + sentence
    _check_one_tree_per_sentence(doc, [sentence, sentence])
    assert [s.text for s in doc.sents] == [sentence + "\n", sentence]


def test_one_sentence_per_line_without_punctuation(japanese):
    lines = ["友達が本を読む", "先生が写真を見る", "学校の先生に手紙を送る"]
    doc = japanese("\n".join(lines) + "\n")
    _check_one_tree_per_sentence(doc, lines)


def test_a_paragraph_of_ten_sentences(japanese):
    sentences = ["友達が本を読む。", "先生が写真を見る！", "学校に行く？", "公園で写真を作る。"] * 2 + [
        "映画を見る。", "電車に乗る。"]
    doc = japanese("".join(sentences))
    assert len(list(doc.sents)) == 10
    _check_one_tree_per_sentence(doc, sentences)
    texts = [doc[s].text for s in range(len(doc))]
    assert "。" in texts
