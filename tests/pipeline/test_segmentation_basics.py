"""Character tokenizer and SIGHAN-style segmentation scores (groundwork for
the segmenter)."""
import pytest
import spacy

from spacy_adf.scorers.segmentation import segmentation_prf, word_spans
from spacy_adf.tokenizers.char import CharTokenizer, char_split

TRICKY = [
    "",
    " ",
    "   ",
    "中文 分词",
    "我爱北京天安门。",
    "Latin words and 2024年12月 digits",
    "emoji 😀👍🏽 mixed中文",
    "line one\nline two\t\ttabs\u3000ideographic space",
    "  leading and trailing  ",
]


@pytest.mark.parametrize("text", TRICKY)
def test_char_tokenizer_preserves_text(text):
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.CharTokenizer.v1"}}})
    doc = nlp(text)
    assert doc.text == text
    # one token per character, but a stretch of whitespace is one token (spaCy's way)
    assert all(len(t.text) == 1 for t in doc if not t.is_space)
    assert not any(a.is_space and b.is_space for a, b in zip(doc, doc[1:]))
    assert not any(t.is_space and t.whitespace_ for t in doc)
    assert [t.text for t in doc if not t.is_space] == [c for c in text if not c.isspace()]


def test_char_tokenizer_tokens_and_long_line():
    words, spaces = char_split("ab c")
    assert words == ["a", "b", "c"] and spaces == [False, True, False]
    nlp = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.CharTokenizer.v1"}}})
    text = "あいうえお漢字" * 15_000
    nlp.max_length = 10 ** 6
    doc = nlp(text)
    assert len(doc) == len(text) and doc.text == text
    # serializes with the pipeline
    nlp2 = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.CharTokenizer.v1"}}})
    nlp2.from_bytes(nlp.to_bytes())
    assert isinstance(nlp2.tokenizer, CharTokenizer)


def test_word_spans_ignore_whitespace():
    assert word_spans(["中国", "人", " ", "民"]) == [(0, 2), (2, 3), (3, 4)]


def test_segmentation_scores_hand_computed():
    gold = [["我", "爱", "北京", "天安门"], ["小武哥", "来", "了"]]
    pred = [["我", "爱北京", "天安门"], ["小武", "哥", "来", "了"]]
    # correct: 我, 天安门, 来, 了 = 4; gold 7 words; predicted 7 words
    scores = segmentation_prf(gold, pred, lexicon={"我", "爱", "北京", "来", "了"})
    assert scores["token_p"] == pytest.approx(4 / 7)
    assert scores["token_r"] == pytest.approx(4 / 7)
    assert scores["token_f"] == pytest.approx(4 / 7)
    # OOV gold words: 天安门 (hit), 小武哥 (miss) -> 0.5; IV: 我 爱 北京 来 了 -> 3/5
    assert scores["oov_recall"] == pytest.approx(0.5)
    assert scores["iv_recall"] == pytest.approx(3 / 5)
    assert scores["oov_rate"] == pytest.approx(2 / 7)


def test_segmentation_scores_reject_different_text():
    with pytest.raises(ValueError, match="differ"):
        segmentation_prf([["ab"]], [["a", "c"]])


def test_segmented_reader(tmp_path):
    from spacy_adf.corpora.segmented import create_segmented_reader, read_segmented

    path = tmp_path / "seg.txt"
    path.write_text("我  爱 北京\r\n\n小武哥 来 了 。\n", encoding="utf8")
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.CharTokenizer.v1"}}})
    examples = list(create_segmented_reader(path)(nlp))
    assert len(examples) == 2
    assert [t.text for t in examples[0].reference] == ["我", "爱", "北京"]
    assert [t.text for t in examples[0].predicted] == ["我", "爱", "北", "京"]
    assert examples[1].reference.text == examples[1].predicted.text == "小武哥来了。"
    assert {w for words in read_segmented(path) for w in words} == {"我", "爱", "北京", "小武哥", "来", "了", "。"}
    with pytest.raises(ValueError, match="does not exist"):
        create_segmented_reader(tmp_path / "missing.txt")


@pytest.mark.slow
def test_nlpcc_counts(shared_data):
    from spacy_adf.corpora.segmented import read_segmented

    lines = list(read_segmented(shared_data / "nlpcc2016_weibo" / "nlpcc2016-word-seg-train.dat"))
    assert len(lines) == 20_135
    # SOURCES.md counts 421,161 words by splitting on every whitespace
    # character; splitting on ASCII spaces only keeps the 21 U+3000/U+00A0
    # characters as text, which gives 421,163 words and every character.
    assert sum(len(w) for w in lines) == 421_163
    assert sum(len("".join(w)) for w in lines) == 688_734
