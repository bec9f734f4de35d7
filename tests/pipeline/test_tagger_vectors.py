"""adf_tagger with word-vector features (spacy_adf.CRF.v2 vectors): from a
word2vec file through `python -m spacy_adf vectors` and a config's
[initialize] vectors to a trained, saved and reloaded pipeline; what the
vectors add (unseen words tagged by their vectors); the binary path
unchanged; and the errors of missing or other vectors."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.training import Example

import spacy_adf.ml.crf  # noqa: F401  (registers spacy_adf.CRF.v2 where the entry points predate it)
from spacy_adf.features.word2vec import main as vectors_main
from spacy_adf.features.word2vec import set_vectors
from spacy_adf.optimizers.adf import ADF

# Four word classes; a word's vector is its class direction plus noise.
CLASSES = {
    "N": ["cat", "dog", "cow", "horse", "mouse", "bird", "fish", "goat"],
    "V": ["runs", "sleeps", "eats", "jumps", "sings", "swims", "reads", "walks"],
    "A": ["red", "blue", "green", "big", "small", "old", "new", "fast"],
    "D": ["the", "a", "this", "that", "every", "some", "no", "my"],
}
TAG_OF = {w: tag for tag, words in CLASSES.items() for w in words}
DIM = 8


def _word2vec_text(seed=0, dim=DIM):
    rng = numpy.random.default_rng(seed)
    lines = [f"{len(TAG_OF)} {dim}"]
    for k, (tag, words) in enumerate(CLASSES.items()):
        for w in words:
            v = rng.normal(0, 0.25, dim)
            v[k] += 1.0
            lines.append(w + " " + " ".join(f"{x:.5f}" for x in v))
    return "\n".join(lines) + "\n"


def _sentences(seed, n, vocab_part):
    """Random class sequences (the order says nothing about the tags), words
    from the first five of each class (training) or the last three (unseen)."""
    rng = numpy.random.default_rng(seed)
    part = slice(0, 5) if vocab_part == "train" else slice(5, 8)
    tags = list(CLASSES)
    out = []
    for _ in range(n):
        seq = [tags[i] for i in rng.integers(0, 4, int(rng.integers(2, 7)))]
        out.append([str(rng.choice(CLASSES[t][part])) for t in seq])
    return out


def _docbin(nlp, sentences, path):
    db = DocBin()
    for words in sentences:
        db.add(Doc(nlp.vocab, words=words, tags=[TAG_OF[w] for w in words]))
    db.to_disk(path)
    return path


CONFIG = """
[paths]
train = null
dev = null
vectors = null

[nlp]
lang = "en"
pipeline = ["tagger"]

[components]

[components.tagger]
factory = "adf_tagger"
target = "tag"

[components.tagger.model]
@architectures = "spacy_adf.CRF.v2"
templates = ["w[0]", "w[-1]"]

[components.tagger.model.vectors]
@misc = "spacy_adf.vector_features.v1"
offsets = [-1, 0, 1]
scale = 1.0

[corpora]

[corpora.train]
@readers = "spacy.Corpus.v1"
path = ${paths.train}

[corpora.dev]
@readers = "spacy.Corpus.v1"
path = ${paths.dev}

[training]
seed = 0
dropout = 0.0
max_epochs = 12
max_steps = 0
eval_frequency = 1000
patience = 0

[training.batcher]
@batchers = "spacy.batch_by_sequence.v1"
size = 8

[training.optimizer]
@optimizers = "spacy_adf.ADF.v1"
learn_rate = 0.3
sigma = 5.0

[training.score_weights]
tag_acc = 1.0

[initialize]
vectors = ${paths.vectors}
"""


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """word2vec file -> vectors pipeline -> spacy train from CONFIG."""
    from spacy.cli.init_config import fill_config
    from spacy.cli.train import train

    d = tmp_path_factory.mktemp("vec")
    (d / "vectors.txt").write_text(_word2vec_text(), encoding="utf8")
    assert vectors_main(["en", str(d / "vectors.txt"), str(d / "vectors")]) == 0
    blank = spacy.blank("en")
    _docbin(blank, _sentences(0, 60, "train"), d / "train.spacy")
    _docbin(blank, _sentences(1, 20, "unseen"), d / "dev.spacy")
    (d / "base.cfg").write_text(CONFIG, encoding="utf8")
    fill_config(d / "config.cfg", d / "base.cfg", silent=True)  # spaCy's defaults for the rest
    train(d / "config.cfg", d / "out", overrides={"paths.train": str(d / "train.spacy"),
                                                  "paths.dev": str(d / "dev.spacy"),
                                                  "paths.vectors": str(d / "vectors")})
    return d


def _tags(nlp, sentences):
    return [[t.tag_ for t in nlp(Doc(nlp.vocab, words=words))] for words in sentences]


def _tagger_config(nlp):
    return {k: v for k, v in nlp.config["components"]["tagger"].items() if k != "factory"}


def _gold(sentences):
    return [[TAG_OF[w] for w in words] for words in sentences]


def test_trained_from_a_config_fits_saves_and_reads_unseen_words(trained):
    nlp = spacy.load(trained / "out" / "model-last")
    assert nlp.vocab.vectors.shape == (32, DIM)
    train_sents, unseen = _sentences(0, 60, "train"), _sentences(1, 20, "unseen")
    assert _tags(nlp, train_sents) == _gold(train_sents)  # no training error
    # the unseen words have no template feature the model knows: their vectors tag them
    got = sum(_tags(nlp, unseen), [])
    acc = numpy.mean([a == b for a, b in zip(got, sum(_gold(unseen), []))])
    assert acc >= 0.9
    tagger = nlp.get_pipe("tagger")
    assert tagger.plain_model.vectors.width == DIM
    assert tagger.plain_model.params.n_attrs > 3 * DIM

    # to_disk / from_disk of the pipeline and to_bytes / from_bytes of the component: the same predictions
    docs = [Doc(nlp.vocab, words=w) for w in train_sents + unseen]
    expected = [(list(ids), marg) for ids, marg in tagger.predict(docs)]
    nlp.to_disk(trained / "again")
    again = spacy.load(trained / "again")
    assert [list(ids) for ids, _ in again.get_pipe("tagger").predict(
        [Doc(again.vocab, words=w) for w in train_sents + unseen])] == [ids for ids, _ in expected]
    fresh = spacy.blank("en")
    fresh.vocab.vectors = nlp.vocab.vectors
    copy = fresh.add_pipe("adf_tagger", name="tagger", config=_tagger_config(nlp))
    copy.from_bytes(tagger.to_bytes())
    assert [list(ids) for ids, _ in copy.predict([Doc(fresh.vocab, words=w) for w in train_sents + unseen])] \
        == [ids for ids, _ in expected]
    assert copy.plain_model.params.weights.tobytes() == tagger.plain_model.params.weights.tobytes()


def test_other_or_missing_vectors_are_refused(trained):
    nlp = spacy.load(trained / "out" / "model-last")
    words = ["the", "cat", "runs"]
    # a table of another width than the model was trained with
    set_vectors(nlp.vocab, ["cat", "dog"], numpy.ones((2, DIM - 3), numpy.float32), "other")
    with pytest.raises(ValueError, match=rf"\[tagger\] the pipeline's word vectors have {DIM - 3} dimensions, "
                                         rf"but the model was trained with vectors of {DIM}"):
        nlp(Doc(nlp.vocab, words=words))
    # no vectors at all
    bare = spacy.blank("en")
    tagger = bare.add_pipe("adf_tagger", name="tagger", config=_tagger_config(nlp))
    tagger.from_disk(trained / "out" / "model-last" / "tagger")
    with pytest.raises(ValueError, match=rf"\[tagger\] the model's vector features read the pipeline's word "
                                         rf"vectors \(width {DIM}\), but nlp.vocab.vectors is empty"):
        bare(Doc(bare.vocab, words=words))
    # an empty Doc needs no vectors
    assert len(bare(Doc(bare.vocab, words=[]))) == 0


def test_model_file_and_config_must_agree(trained):
    saved = trained / "out" / "model-last" / "tagger"
    v1 = spacy.blank("en").add_pipe("adf_tagger", name="tagger", config={"target": "tag", "model": {
        "@architectures": "spacy_adf.CRF.v1", "templates": ["w[0]", "w[-1]"]}})
    with pytest.raises(ValueError, match="the CRF model file has word-vector features and the component's "
                                         "model lacks them"):
        v1.from_disk(saved)
    other = spacy.blank("en").add_pipe("adf_tagger", name="tagger", config={"target": "tag", "model": {
        "@architectures": "spacy_adf.CRF.v2", "templates": ["w[0]", "w[-1]"],
        "vectors": {"@misc": "spacy_adf.vector_features.v1", "offsets": [0]}}})
    with pytest.raises(ValueError, match=r"trained with vector features \{'offsets': \[-1, 0, 1\]"):
        other.from_disk(saved)


def _nlp_with_vectors(config_model, seed=0, dim=DIM):
    nlp = spacy.blank("en")
    rng = numpy.random.default_rng(seed)
    words, rows = [], []
    for k, (tag, ws) in enumerate(CLASSES.items()):
        for w in ws:
            v = rng.normal(0, 0.25, dim)
            v[k] += 1.0
            words.append(w)
            rows.append(v)
    set_vectors(nlp.vocab, words, numpy.array(rows, dtype=numpy.float32), "test")
    nlp.add_pipe("adf_tagger", config={"target": "tag", "store_marginals": True, "model": config_model})
    return nlp


def _examples(nlp, sentences):
    return [Example(Doc(nlp.vocab, words=w), Doc(nlp.vocab, words=w, tags=[TAG_OF[x] for x in w]))
            for w in sentences]


def _fit(nlp, examples, optimizer, epochs=15):
    for _ in range(epochs):
        for i in range(0, len(examples), 8):
            nlp.update(examples[i:i + 8], sgd=optimizer, losses={})


VEC_MODEL = {"@architectures": "spacy_adf.CRF.v2", "templates": ["w[0]"],
             "vectors": {"@misc": "spacy_adf.vector_features.v1", "offsets": [0], "scale": 2.0}}


def test_vectors_tag_unseen_words_that_templates_cannot():
    train, unseen = _sentences(3, 40, "train"), _sentences(4, 20, "unseen")
    scores = {}
    for name, model in [("binary", {"@architectures": "spacy_adf.CRF.v1", "templates": ["w[0]"]}),
                        ("vectors", VEC_MODEL)]:
        nlp = _nlp_with_vectors(model)
        examples = _examples(nlp, train)
        nlp.initialize(lambda: examples)
        _fit(nlp, examples, ADF(0.3, sigma=5.0))
        scores[name] = nlp.evaluate(_examples(nlp, unseen))["tag_acc"]
        assert nlp.evaluate(examples)["tag_acc"] == 1.0
        doc = nlp(Doc(nlp.vocab, words=unseen[0]))
        numpy.testing.assert_allclose(doc._.adf_marginals["adf_tagger"].sum(axis=1), 1.0, atol=1e-5)
    assert scores["vectors"] >= 0.95 and scores["binary"] < 0.6


@pytest.mark.parametrize("optimizer", ["adam", "perceptron"])
def test_other_optimizers_train_vector_features(optimizer):
    """The dense path (a thinc optimizer) and the perceptron's step with
    valued features. (Both stop moving the vector weights once the word
    features fit the training set, so they generalise less than ADF here.)"""
    from thinc.api import Adam

    from spacy_adf.optimizers.perceptron import Perceptron

    nlp = _nlp_with_vectors(VEC_MODEL)
    examples = _examples(nlp, _sentences(5, 40, "train"))
    nlp.initialize(lambda: examples)
    _fit(nlp, examples, Adam(0.05) if optimizer == "adam" else Perceptron(), epochs=20)
    assert nlp.evaluate(examples)["tag_acc"] == 1.0
    assert nlp.evaluate(_examples(nlp, _sentences(6, 20, "unseen")))["tag_acc"] >= 0.7


def test_v2_without_vectors_is_v1():
    """CRF.v2 with vectors null trains the weights of CRF.v1, bit for bit,
    and writes the same files (no vectors key anywhere)."""
    out = []
    for arch in ("spacy_adf.CRF.v1", "spacy_adf.CRF.v2"):
        nlp = _nlp_with_vectors({"@architectures": arch, "templates": ["w[0]", "w[-1]"]})
        examples = _examples(nlp, _sentences(7, 30, "train"))
        nlp.initialize(lambda: examples)
        _fit(nlp, examples, ADF(0.3, sigma=5.0), epochs=3)
        out.append(nlp.get_pipe("adf_tagger").to_bytes())
    assert out[0] == out[1]


def test_pruned_and_pickled_vector_models_predict():
    import pickle

    nlp = _nlp_with_vectors(VEC_MODEL)
    examples = _examples(nlp, _sentences(8, 40, "train"))
    nlp.initialize(lambda: examples)
    _fit(nlp, examples, ADF(0.3, sigma=5.0))
    tagger = nlp.get_pipe("adf_tagger")
    docs = [Doc(nlp.vocab, words=w) for w in _sentences(9, 10, "unseen")]
    before = [list(ids) for ids, _ in tagger.predict(docs)]
    model = pickle.loads(pickle.dumps(tagger.plain_model))
    assert [list(ids) for ids, _ in model.predict(docs)] == before
    # pruning drops vector dimensions whose weights are all small: the others still count
    dims = tagger.plain_model.vectors.ids
    w = tagger.plain_model.block_weights()
    bp = tagger.plain_model.params.block_ptr
    mags = numpy.array([numpy.abs(w[bp[a]:bp[a + 1]]).max() for a in dims[0]])
    threshold = float(numpy.sort(mags)[2]) + 1e-7  # drops at least three dimensions
    tagger.plain_model.prune(threshold)
    assert (tagger.plain_model.vectors.ids == -1).sum() >= 3
    assert (tagger.plain_model.vectors.ids >= 0).any()
    tagger.predict(docs)


def test_initialize_without_vectors_is_a_clear_error():
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="pos", config={"target": "tag", "model": VEC_MODEL})
    examples = _examples(nlp, _sentences(0, 5, "train"))
    with pytest.raises(ValueError, match=r"\[pos\] the model's vector features read the pipeline's word vectors, "
                                         r"but nlp.vocab.vectors is empty: set \[initialize\] vectors"):
        nlp.initialize(lambda: examples)
