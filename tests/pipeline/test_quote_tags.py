"""ptb_quote_tags: treebank tags of quotes and brackets by their direction."""
import pytest
import spacy
from spacy.tokens import Doc

import spacy_adf.pipeline.quote_tags  # noqa: F401


def _nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("ptb_quote_tags", name="quote_tags")
    return nlp


def _tags(doc):
    return [(t.text, t.tag_) for t in doc if t.tag_]


def test_natural_text_by_spacing():
    doc = _nlp()('He said, "Hello." Then "bye" she said.')
    assert _tags(doc) == [('"', "``"), ('"', "''"), ('"', "``"), ('"', "''")]


def test_spaced_quotes_pair_up():
    # tokens joined by spaces (a closing quote stands apart too): the attribute
    # ruler used before tagged all four as opening
    words = ["He", "said", ",", '"', "Hello", ".", '"', "Then", '"', "bye", '"', "."]
    doc = _nlp()(Doc(spacy.blank("en").vocab, words=words))
    assert [t for _, t in _tags(doc)] == ["``", "''", "``", "''"]


def test_quotes_against_both_words_and_brackets():
    doc = _nlp()('("Hi")')
    assert _tags(doc) == [("(", "("), ('"', "``"), ('"', "''"), (")", ")")]
    doc = _nlp()("[a] {b}")
    assert [t for _, t in _tags(doc)] == ["(", ")", "(", ")"]


def test_typographic_quotes_by_shape():
    doc = _nlp()("\u201cA\u201d and \u201cB\u201d")
    assert [t for _, t in _tags(doc)] == ["``", "''", "``", "''"]


def test_unbalanced_and_other_tokens_keep_tags():
    nlp = _nlp()
    words = ["a", '"', "b"]
    doc = Doc(nlp.vocab, words=words, tags=["DT", "XX", "NN"])
    doc = nlp(doc)
    assert [t.tag_ for t in doc] == ["DT", "``", "NN"]  # a lone spaced quote opens
    doc = nlp(Doc(nlp.vocab, words=["end", '"'], spaces=[False, False]))
    assert doc[1].tag_ == "''"  # written against the previous word only: closing


def test_empty_doc_and_pipe():
    nlp = _nlp()
    assert len(nlp("")) == 0
    docs = list(nlp.pipe(['"a"', "", "no quotes", 'x "y" z'] * 50, batch_size=7))
    assert [t for _, t in _tags(docs[0])] == ["``", "''"]
    assert [t for _, t in _tags(docs[3])] == ["``", "''"]


def test_own_tags_and_round_trip(tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("ptb_quote_tags", config={"open_quote_tag": "OQ", "close_quote_tag": "CQ"})
    text = 'say "so" (then)'
    before = _tags(nlp(text))
    assert before == [('"', "OQ"), ('"', "CQ"), ("(", "("), (")", ")")]
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe_config("ptb_quote_tags")["open_quote_tag"] == "OQ"
    assert _tags(loaded(text)) == before


def test_bad_config_says_what_is_wrong():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="close_quote_tag must be a non-empty tag string"):
        nlp.add_pipe("ptb_quote_tags", config={"close_quote_tag": ""})
