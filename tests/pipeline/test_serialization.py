"""Round trips give identical predictions; corrupt data gives clear errors."""
import pickle

import numpy
import pytest
import spacy
from spacy.tokens import Doc

from tests.helpers.tiny_data import NER_SENTS, make_ner_nlp, ner_examples
from tests.pipeline.test_tagger import _train

TEXTS = [w for w, _ in NER_SENTS] + [["Alice", "saw", "Carol", "in", "York"]]


def _trained():
    nlp = make_ner_nlp(store_marginals=True)
    examples = ner_examples(nlp)
    nlp.initialize(lambda: examples)
    _train(nlp, examples, n_epochs=8)
    return nlp


def _predict(nlp):
    out = []
    for words in TEXTS:
        doc = nlp(Doc(nlp.vocab, words=words))
        out.append(([(e.start, e.end, e.label_) for e in doc.ents], doc._.adf_marginals["ner_crf"]))
    return out


def _same(a, b):
    assert [x[0] for x in a] == [x[0] for x in b]
    for (_, ma), (_, mb) in zip(a, b):
        numpy.testing.assert_array_equal(ma, mb)


def test_to_from_disk(tmp_path):
    nlp = _trained()
    before = _predict(nlp)
    nlp.to_disk(tmp_path / "p")
    nlp2 = spacy.load(tmp_path / "p")
    _same(before, _predict(nlp2))
    # the weights written are the optimizer's current ones, not stale lazy values
    numpy.testing.assert_array_equal(nlp.get_pipe("ner_crf").plain_model.params.weights,
                                     nlp2.get_pipe("ner_crf").plain_model.params.weights)


def test_to_from_bytes():
    nlp = _trained()
    before = _predict(nlp)
    data = nlp.to_bytes()
    nlp2 = make_ner_nlp(store_marginals=True)
    nlp2.from_bytes(data)
    _same(before, _predict(nlp2))
    comp = make_ner_nlp(store_marginals=True).get_pipe("ner_crf")
    comp.from_bytes(nlp.get_pipe("ner_crf").to_bytes())
    assert comp.labels == nlp.get_pipe("ner_crf").labels


def test_pickle_roundtrip():
    nlp = _trained()
    nlp2 = pickle.loads(pickle.dumps(nlp))
    _same(_predict(nlp), _predict(nlp2))


def test_multiprocess_pipe_matches_single_process():
    nlp = _trained()
    texts = [" ".join(w) for w in TEXTS] * 20
    single = [[(e.start, e.end, e.label_) for e in d.ents] for d in nlp.pipe(texts)]
    multi = [[(e.start, e.end, e.label_) for e in d.ents] for d in nlp.pipe(texts, n_process=2, batch_size=8)]
    assert single == multi


def test_corrupt_and_mismatched_model_data(tmp_path):
    nlp = _trained()
    comp = nlp.get_pipe("ner_crf")
    data = bytearray(comp.to_bytes())
    fresh = make_ner_nlp().get_pipe("ner_crf")
    with pytest.raises(ValueError):
        fresh.from_bytes(bytes(data[: len(data) // 2]))
    nlp.to_disk(tmp_path / "p")
    model_file = tmp_path / "p" / "ner_crf" / "model"
    raw = bytearray(model_file.read_bytes())
    raw[-40] ^= 0xFF  # flip bits inside the weights
    model_file.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="corrupt|checksum"):
        spacy.load(tmp_path / "p")
    model_file.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="corrupt|not a spacy-adf"):
        spacy.load(tmp_path / "p")
    # a component created for another target refuses the saved cfg
    other = spacy.blank("en").add_pipe("adf_tagger", name="ner_crf", config={"target": "tag"})
    with pytest.raises(ValueError, match="target"):
        other.from_disk(tmp_path / "p" / "ner_crf")
    (tmp_path / "p" / "ner_crf" / "model").unlink()
    with pytest.raises(ValueError, match="missing file"):
        spacy.load(tmp_path / "p")
