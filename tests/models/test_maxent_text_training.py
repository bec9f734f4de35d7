"""MaxEntText prepares adf_textcat's training examples itself: the input
signature a cached sample is checked against, and the sample. No pipeline
component is involved here."""
import numpy
import spacy
from spacy.tokens import Doc

from spacy_adf.features.ngrams import FEATURES_KEY, NgramFeaturizer
from spacy_adf.models.maxent_text import MaxEntText

TEXTS = [["a", "great", "book"], ["an", "awful", "book"], [], ["great", "great", "story"]]


def _docs(vocab):
    docs = [Doc(vocab, words=words) for words in TEXTS]
    pre = Doc(vocab, words=["ignored"])
    pre.user_data[FEATURES_KEY] = {"great": 2.0, "book_club": 1.0}
    return docs + [pre]


def test_samples_equal_features_of_and_the_batch_rows():
    vocab = spacy.blank("en").vocab
    model = MaxEntText(NgramFeaturizer([1, 2], value="log1p"))
    docs = _docs(vocab)
    model.build(docs, 3)
    ptr, ids, vals = model.featurizer.featurize(docs, model.index)  # what predict reads
    for i, doc in enumerate(docs):
        got_ids, got_vals, gold = model.training_sample(doc, i % 3)
        want_ids, want_vals = model.features_of(doc)
        assert gold == i % 3
        assert got_ids.tobytes() == want_ids.tobytes() == ids[ptr[i]:ptr[i + 1]].tobytes()
        assert got_vals.tobytes() == want_vals.tobytes() == vals[ptr[i]:ptr[i + 1]].tobytes()
        assert got_ids.dtype == numpy.int32 and got_vals.dtype == numpy.float32


def test_signature_is_the_precomputed_features_else_the_text():
    vocab = spacy.blank("en").vocab
    docs = _docs(vocab)
    assert MaxEntText.training_signature(docs[0]) == "a great book "
    assert MaxEntText.training_signature(docs[-1]) is docs[-1].user_data[FEATURES_KEY]
    assert MaxEntText.training_signature(Doc(vocab, words=["a", "great", "book"])) == \
        MaxEntText.training_signature(docs[0])
