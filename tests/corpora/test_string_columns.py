"""`compact` and `shuffle` of the corpus readers (spacy_adf.corpora.string_columns):
the same Docs as the plain readers, built anew on every call from string
columns, each reference marked with its corpus item; the same orders as the
held forms under one seed."""
import random

import pytest
import spacy

from spacy_adf.corpora.string_columns import ITEM_KEY, StringColumns
from spacy_adf.corpora.conll import ConllCorpus
from spacy_adf.corpora.segmented import SegmentedCorpus

CONLL = """\
Confidence NN B-NP
in IN B-PP
the DT B-NP
pound NN I-NP
. . O

He PRP B-NP
reckons VBZ B-VP
the DT B-NP
current JJ I-NP
account NN I-NP

Dogs NNS B-NP
bark VBP B-VP

Cats NNS B-NP
sleep VBP B-VP
soundly RB B-ADVP
"""
KW = {"columns": ["words", "tag", "iob"], "iob_target": "spans:chunks", "keep_labels": ["NP"]}


def _chunks(doc):
    return [(s.start, s.end, s.label_) for s in doc.spans.get("chunks", [])]


def _same_example(a, b) -> None:
    assert a.x.to_bytes() == b.x.to_bytes()
    assert [t.text for t in a.y] == [t.text for t in b.y]
    assert [t.tag_ for t in a.y] == [t.tag_ for t in b.y]
    assert _chunks(a.y) == _chunks(b.y)
    assert a.y.has_unknown_spaces == b.y.has_unknown_spaces


def test_string_columns_give_back_every_row():
    cols = StringColumns(["words", "tag"])
    rows = [{"words": ["a", "b", "a"], "tag": ["X", "Y", "X"]}, {"words": [], "tag": []},
            {"words": ["ü", "a"], "tag": ["Y", "Z"]}]
    for row in rows:
        cols.append(row)
    assert [cols[i] for i in range(len(cols))] == rows
    assert cols.n_values == 5
    with pytest.raises(ValueError, match="columns"):
        cols.append({"words": ["a"]})
    with pytest.raises(ValueError, match="values"):
        cols.append({"words": ["a"], "tag": []})


def test_compact_conll_builds_the_plain_readers_docs_anew_each_call(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text(CONLL, encoding="utf8")
    nlp = spacy.blank("en")
    plain = list(ConllCorpus(path, **KW)(nlp))
    corpus = ConllCorpus(path, compact=True, **KW)
    first, second = list(corpus(nlp)), list(corpus(nlp))
    assert len(first) == len(plain) == 4
    for a, b, c in zip(plain, first, second):
        _same_example(a, b)
        _same_example(a, c)
        assert b.y is not c.y  # built again, nothing held
        assert b.y.user_data[ITEM_KEY] == c.y.user_data[ITEM_KEY]
    assert len({eg.y.user_data[ITEM_KEY] for eg in first}) == 4
    # a changed file is read again, under a new corpus identity
    path.write_text("Birds NNS B-NP\nsing VBP O\n\n", encoding="utf8")
    again = list(corpus(nlp))
    assert [t.text for t in again[0].y] == ["Birds", "sing"]
    assert again[0].y.user_data[ITEM_KEY] != first[0].y.user_data[ITEM_KEY]


def test_compact_segmented_corpus_matches_the_plain_one(tmp_path):
    seg = tmp_path / "s.txt"
    seg.write_text("我 爱 北京\n\n天安门 上\n", encoding="utf8")
    zh = spacy.blank("zh")
    plain = list(SegmentedCorpus(seg)(zh))
    compact = list(SegmentedCorpus(seg, compact=True)(zh))
    assert [eg.y.to_bytes(exclude=["user_data"]) for eg in compact] == [eg.y.to_bytes() for eg in plain]
    assert [eg.x.to_bytes() for eg in compact] == [eg.x.to_bytes() for eg in plain]


def test_shuffle_gives_each_form_the_same_new_order_under_one_seed(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text(CONLL * 20, encoding="utf8")  # 80 sentences
    nlp = spacy.blank("en")
    file_order = [eg.y.text for eg in ConllCorpus(path, **KW)(nlp)]
    orders = []
    for extra in ({}, {"reuse_docs": True}, {"compact": True}):
        corpus = ConllCorpus(path, shuffle=True, **KW, **extra)
        random.seed(7)
        orders.append([[eg.y.text for eg in corpus(nlp)] for _ in range(2)])
    assert orders[0] == orders[1] == orders[2]
    first, second = orders[0]
    assert first != file_order and second != first
    assert sorted(first) == sorted(file_order)


def test_reuse_docs_and_compact_together_is_a_clear_error(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text(CONLL, encoding="utf8")
    with pytest.raises(ValueError, match="reuse_docs and compact"):
        ConllCorpus(path, reuse_docs=True, compact=True, **KW)
    with pytest.raises(ValueError, match="reuse_docs and compact"):
        SegmentedCorpus(path, reuse_docs=True, compact=True)


def test_compact_reader_keeps_the_line_of_a_bad_sentence_in_its_error(tmp_path):
    path = tmp_path / "c.txt"
    path.write_text("Dogs NNS NOUN B-NP\n\ncats NNS BADPOS B-NP\n", encoding="utf8")
    corpus = ConllCorpus(path, columns=["words", "tag", "pos", "iob"], iob_target="spans:chunks", compact=True)
    with pytest.raises(ValueError, match="line 3"):
        list(corpus(spacy.blank("en")))
