"""adf_tagger hashes the corpus once: initialize() builds the feature table
and the first epoch's samples from the same hashes (primed in the trainer's
cache by content). Training from them must give bit-identical weights to the
old path (table built from the Docs, every sample looked up again in the
first epoch)."""
import random

import numpy
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from spacy_adf.optimizers.adf import ADF
from tests.helpers.crf_builds import build_from_docs, build_segmenter_crf

WORDS = ["the", "a", "dog", "cat", "saw", "big", "old", "ran", "in", "park", "John", "Mary", "."]
TAGS = {"the": "DT", "a": "DT", "dog": "NN", "cat": "NN", "saw": "VBD", "big": "JJ", "old": "JJ",
        "ran": "VBD", "in": "IN", "park": "NN", "John": "NNP", "Mary": "NNP", ".": "."}


def _sentences(n=80, seed=3):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 12))]
        spans, i = [], 0
        while i < len(words):
            j = min(len(words), i + rng.randint(1, 3))
            if rng.random() < 0.5:
                spans.append((i, j, rng.choice(["NP", "VP"])))
            i = j
        out.append((words, spans))
    out.append(out[5])  # a repeated sentence shares its primed sample
    out.append(([], []))  # an empty one has none
    return out


def _reader(nlp, sentences):
    """A corpus reader: fresh Example objects on every call, as spaCy's."""
    def read():
        for words, spans in sentences:
            tags = [TAGS[w] for w in words]
            ref = Doc(nlp.vocab, words=words, tags=tags)
            ref.spans["chunks"] = [Span(ref, s, e, label=l) for s, e, l in spans]
            yield Example(Doc(nlp.vocab, words=words, tags=tags), ref)
    return read


def _nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="chunker",
                 config={"target": "spans:chunks", "scheme": "BILUO",
                         "model": {"@architectures": "spacy_adf.CRF.v1",
                                   "templates": ["w[0]", "t[0]", "t[-1]", "t[1]", "w[-1]|t[0]"]}})
    return nlp


def _train(nlp, read, n_epochs=3):
    opt = ADF(0.05, window="auto", sigma=5.0)
    train = list(read())
    rng = random.Random(0)
    totals = []
    for _ in range(n_epochs):
        rng.shuffle(train)
        losses = {}
        for i in range(0, len(train), 7):
            nlp.update(train[i:i + 7], sgd=opt, losses=losses)
        totals.append(losses["chunker"])
    return totals


def _arrays(pipe):
    crf = pipe.plain_model
    return {"keys": crf.table.keys, "block_ptr": crf.params.block_ptr, "codes": crf.params.codes,
            "weights": crf.params.weights}


def test_primed_first_epoch_gives_bit_identical_weights():
    sentences = _sentences()
    # new path: one hashing pass, the first epoch takes the primed samples
    new = _nlp()
    read_new = _reader(new, sentences)
    new.initialize(read_new)
    pipe = new.get_pipe("chunker")
    built_new = {k: v.copy() for k, v in _arrays(pipe).items()}
    lookups = []
    features_of = pipe.plain_model.features_of
    pipe.plain_model.features_of = lambda doc: lookups.append(doc) or features_of(doc)
    new_losses = _train(new, read_new)
    assert lookups == []  # every first-epoch sample came from initialize

    # old path: the table built from the Docs, the samples looked up again
    old = _nlp()
    read_old = _reader(old, sentences)
    old.initialize(read_old)
    old_pipe = old.get_pipe("chunker")
    docs, golds = [], []
    for eg in read_old():
        gold = old_pipe._gold_ids(eg) if len(eg.predicted) else None
        if gold is not None:
            docs.append(eg.predicted)
            golds.append(gold)
    build_from_docs(old_pipe.plain_model, docs, golds, len(old_pipe.tag_names))
    old_pipe._model_changed()  # forgets the cache, primed samples included
    for key, value in _arrays(old_pipe).items():
        numpy.testing.assert_array_equal(value, built_new[key], err_msg=key)
    old_losses = _train(old, read_old)

    assert new_losses == old_losses
    for key, value in _arrays(old_pipe).items():
        a, b = value, _arrays(pipe)[key]
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes(), key


def test_primed_samples_equal_fresh_lookups():
    nlp = _nlp()
    read = _reader(nlp, _sentences(30, seed=9))
    nlp.initialize(read)
    pipe = nlp.get_pipe("chunker")
    n = 0
    for eg in read():
        if not len(eg.predicted):
            continue
        (ptr, attrs, gold), = pipe.training_samples(eg)
        ptr2, attrs2 = pipe.plain_model.features_of(eg.predicted)
        for a, b in ((ptr, ptr2), (attrs, attrs2), (gold, pipe._gold_ids(eg))):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()
        n += 1
    assert n == 31  # 30 sentences and a repeat


def _seg_nlp():
    from tests.helpers.seg_data import char_nlp
    nlp = char_nlp()
    nlp.add_pipe("adf_segmenter", config={"model": {"@architectures": "spacy_adf.SegmenterCRF.v1",
                                                    "lexicon_folds": 3}})
    return nlp


def _seg_reader(nlp, sentences):
    from tests.helpers.seg_data import seg_examples

    def read():
        examples = seg_examples(nlp, sentences)  # fresh Examples on every call
        examples.append(Example(nlp.make_doc(""), Doc(nlp.vocab, words=[])))
        # one with whitespace: two runs in one example
        ref = Doc(nlp.vocab, words=["中国", "人民", " ", "银行"], spaces=[False, False, False, False])
        examples.append(Example(nlp.make_doc(ref.text), ref))
        return iter(examples)
    return read


def _seg_train(nlp, read, n_epochs=3):
    opt = ADF(0.05, window="auto", sigma=5.0)
    train = list(read())
    rng = random.Random(1)
    totals = []
    for _ in range(n_epochs):
        rng.shuffle(train)
        losses = {}
        for i in range(0, len(train), 5):
            nlp.update(train[i:i + 5], sgd=opt, losses=losses)
        totals.append(losses["adf_segmenter"])
    return totals


def test_segmenter_primed_first_epoch_gives_bit_identical_weights():
    from tests.helpers.seg_data import make_sentences
    sentences = make_sentences(60, seed=4)
    sentences.append(sentences[3])

    new = _seg_nlp()
    read_new = _seg_reader(new, sentences)
    new.initialize(read_new)
    seg = new.get_pipe("adf_segmenter")
    calls = []
    samples = seg.plain_model.training_samples
    seg.plain_model.training_samples = lambda *a: calls.append(1) or samples(*a)
    new_losses = _seg_train(new, read_new)
    assert calls == []  # the first epoch took every sample from initialize

    old = _seg_nlp()
    read_old = _seg_reader(old, sentences)
    old.initialize(read_old)
    old_seg = old.get_pipe("adf_segmenter")
    built = old_seg.plain_model.crf
    keys, weights = built.table.keys.copy(), built.params.weights.copy()
    # the old path: build_crf from the units, every sample computed again
    sequences = []
    n = 0
    for eg in read_old():
        if not len(eg.predicted):
            continue
        n += 1
        item = old_seg.plain_model.training_item(eg.predicted, eg.reference)
        if item[2] is not None and len(item[0]):
            sequences.append(item)
    build_segmenter_crf(old_seg.plain_model, sequences, n)
    old_seg.trainer.reset()
    numpy.testing.assert_array_equal(old_seg.plain_model.crf.table.keys, keys)
    assert old_seg.plain_model.crf.params.weights.tobytes() == weights.tobytes()
    old_losses = _seg_train(old, read_old)

    assert new_losses == old_losses
    a, b = old_seg.plain_model.crf.params, seg.plain_model.crf.params
    for name in ("block_ptr", "codes", "weights"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), name
