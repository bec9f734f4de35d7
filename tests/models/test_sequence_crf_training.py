"""SequenceCRF prepares adf_tagger's training examples itself: one pass over
(Doc, gold tags) pairs, then the table and the first epoch's samples keyed
by content. No pipeline component is involved here."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_adf.models import sequence_crf
from spacy_adf.models.sequence_crf import SequenceCRF
from tests.helpers.crf_builds import build_from_docs

TEMPLATES = ["w[0]", "w[-1]", "t[0]", "t[1]|w[0]"]
SENTS = [
    (["the", "big", "dog", "barked"], ["DT", "JJ", "NN", "VBD"]),
    (["a", "cat", "saw", "the", "dog"], ["DT", "NN", "VBD", "DT", "NN"]),
    (["dogs", "run"], ["NNS", "VBP"]),
    ([], []),  # empty: counted, not kept
    (["the", "big", "dog", "barked"], ["DT", "JJ", "NN", "VBD"]),  # a repeat shares its sample
    (["cats", "ran"], ["NNS", "VBD"]),
]
TAG_NAMES = ["VBP", "DT", "JJ", "NN", "NNS", "VBD"]  # column order differs from appearance order


def _pairs(vocab):
    for words, tags in SENTS:
        yield Doc(vocab, words=words, tags=tags), (list(tags) if words else None)
    # gold unknown for a token: skipped
    yield Doc(vocab, words=["old", "dogs"], tags=["JJ", "NNS"]), None


def _same(a, b):
    return a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_prepared_samples_equal_features_of(monkeypatch):
    monkeypatch.setattr(sequence_crf, "HASH_BATCH", 2)  # several columns passes
    vocab = spacy.blank("en").vocab
    crf = SequenceCRF(TEMPLATES)
    read = crf.read_training(_pairs(vocab))
    assert read.n_examples == len(SENTS) + 1
    primed = crf.build_for_training(read, TAG_NAMES, lambda tag: pytest.fail(tag))

    index = {t: i for i, t in enumerate(TAG_NAMES)}
    keys = set()
    for doc, tags in _pairs(vocab):
        if tags is None:
            continue
        gold = numpy.array([index[t] for t in tags], dtype=numpy.int32)
        key = crf.training_key(crf.training_signature(doc), gold)
        keys.add(key)
        (ptr, attrs, got_gold), = primed[key]
        want = crf.training_sample(doc, gold)
        ptr2, attrs2 = crf.features_of(doc)
        for a, b in ((ptr, ptr2), (attrs, attrs2), (got_gold, gold), (ptr, want[0]), (attrs, want[1])):
            assert _same(a, b)
    assert set(primed) == keys and len(keys) == 4

    # the same table as one built from the Docs' hashes directly
    plain = SequenceCRF(TEMPLATES)
    kept = [(doc, tags) for doc, tags in _pairs(vocab) if tags is not None]
    golds = [numpy.array([index[t] for t in tags], dtype=numpy.int32) for _, tags in kept]
    build_from_docs(plain, [doc for doc, _ in kept], golds, len(TAG_NAMES))
    assert _same(plain.table.keys, crf.table.keys)
    for name in ("block_ptr", "codes", "weights"):
        assert _same(getattr(plain.params, name), getattr(crf.params, name))


def test_signature_follows_the_input():
    vocab = spacy.blank("en").vocab
    crf = SequenceCRF(TEMPLATES)
    a = Doc(vocab, words=["the", "dog"], tags=["DT", "NN"])
    b = Doc(vocab, words=["the", "dog"], tags=["DT", "NN"])
    c = Doc(vocab, words=["the", "dog"], tags=["DT", "VB"])
    assert crf.training_signature(a) == crf.training_signature(b) != crf.training_signature(c)


def test_unknown_gold_tag_goes_to_the_callback():
    vocab = spacy.blank("en").vocab
    crf = SequenceCRF(TEMPLATES)
    seen = []

    def unknown(tag):
        seen.append(tag)
        raise KeyError(tag)

    with pytest.raises(KeyError):
        crf.build_for_training(crf.read_training(_pairs(vocab)), ["DT", "NN"], unknown)
    assert seen == ["JJ"]  # the first unknown tag of the first sequence that has one
    # a callback that returns still stops the build
    with pytest.raises(ValueError, match="'JJ'"):
        crf.build_for_training(crf.read_training(_pairs(vocab)), ["DT", "NN"], lambda tag: None)
