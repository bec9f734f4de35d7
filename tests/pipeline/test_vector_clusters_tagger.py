"""adf_tagger with clusters = "vectors": a word2vec file made here, turned
into a spaCy vectors folder as `spacy init vectors` does, read through
[initialize] vectors, clustered at initialize, trained from a config by
spaCy's loop; the model carries the table, so it predicts alike once saved
and loaded without the vectors."""
import io
import shutil

import pytest
import spacy
from spacy.tokens import Doc, DocBin, Span
from spacy.training.initialize import convert_vectors, init_nlp
from spacy.training.loop import train

from tests.features.test_clusters import PEOPLE, _sentences
from tests.features.test_vector_clusters import word_vectors, write_word2vec

# words of the vectors that no training sentence has: their label comes from their cluster alone
UNSEEN = {"Grace": "Alice", "Kyoto": "Paris"}
PROBE = [["Grace", "saw", "Kyoto", "."], ["Kyoto", "welcomed", "Grace", "."], ["Lima", "saw", "Bob", "."]]
WANT = [[(0, 1, "PER"), (2, 3, "LOC")], [(0, 1, "LOC"), (2, 3, "PER")], [(0, 1, "LOC"), (2, 3, "PER")]]

CONFIG = """
[paths]
train = null
dev = null
vectors = null

[system]
seed = 0
gpu_allocator = null

[nlp]
lang = "en"
pipeline = ["ner"]

[components]

[components.ner]
factory = "adf_tagger"
target = "ents"

[components.ner.model]
@architectures = "spacy_adf.CRF.v1"
templates = ["cluster[0]", "cluster2[0]"]

[corpora]

[corpora.train]
@readers = "spacy.Corpus.v1"
path = ${paths.train}

[corpora.dev]
@readers = "spacy.Corpus.v1"
path = ${paths.dev}

[training]
seed = ${system.seed}
gpu_allocator = ${system.gpu_allocator}
max_epochs = 3
max_steps = 0
eval_frequency = 50
dropout = 0.0

[training.optimizer]
@optimizers = "spacy_adf.ADF.v1"
learn_rate = 0.5
window = 50

[training.batcher]
@batchers = "spacy.batch_by_sequence.v1"
size = 1

[initialize]
vectors = ${paths.vectors}

[initialize.components]

[initialize.components.ner]
clusters = "vectors"
"""


def _docbin(nlp, sents, path):
    db = DocBin()
    for words in sents:
        doc = Doc(nlp.vocab, words=words)
        doc.ents = [Span(doc, i, i + 1, label="PER" if words[i].lower() in PEOPLE else "LOC") for i in (0, 2)]
        db.add(doc)
    db.to_disk(path)
    return path


def _ents(nlp):
    return [[(e.start, e.end, e.label_) for e in nlp(Doc(nlp.vocab, words=w)).ents] for w in PROBE]


def _bare_pipeline():
    """The pipeline of the config, not initialized: no vectors in its vocab."""
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="ner", config={"target": "ents",
                                                  "model": {"templates": ["cluster[0]", "cluster2[0]"]}})
    return nlp


def test_config_clusters_from_initialize_vectors_train_and_round_trip(tmp_path):
    vectors = word_vectors()
    for new, like in UNSEEN.items():
        vectors[new] = vectors[like] * 1.1  # same direction: a clear cluster mate
    w2v = write_word2vec(tmp_path / "vectors.txt", vectors)
    made = spacy.blank("en")
    convert_vectors(made, w2v, truncate=0, prune=-1)  # what spacy init vectors en vectors.txt DIR does
    made.to_disk(tmp_path / "vectors")
    train_sents = _sentences(120)
    assert not {w for s in train_sents for w in s} & set(UNSEEN)
    config = spacy.util.load_config_from_str(CONFIG, interpolate=False)
    config["paths"].update(train=str(_docbin(made, train_sents, tmp_path / "train.spacy")),
                           dev=str(_docbin(made, _sentences(20, seed=1), tmp_path / "dev.spacy")),
                           vectors=str(tmp_path / "vectors"))
    nlp = init_nlp(config)
    ner = nlp.get_pipe("ner")
    assert ner.cfg["clusters"]["source"] == "vectors" and ner.cfg["clusters"]["n_words"] == len(vectors)
    assert ner.plain_model.clusters["grace"] == ner.plain_model.clusters["alice"]
    (tmp_path / "out").mkdir()  # as spacy train makes it
    nlp, _ = train(nlp, tmp_path / "out", stdout=io.StringIO(), stderr=io.StringIO())
    got = _ents(nlp)
    assert got == WANT

    # the vectors are gone: the model's own table serves
    shutil.rmtree(tmp_path / "vectors")
    w2v.unlink()
    bare = _bare_pipeline()
    assert bare.vocab.vectors.shape[0] == 0
    bare.get_pipe("ner").from_bytes(ner.to_bytes())
    assert _ents(bare) == got
    ner.to_disk(tmp_path / "ner")
    assert not any("vector" in p.name for p in (tmp_path / "ner").rglob("*"))
    bare = _bare_pipeline()
    bare.get_pipe("ner").from_disk(tmp_path / "ner")
    assert _ents(bare) == got
    assert _ents(spacy.load(tmp_path / "out" / "model-last")) == got


def test_vectors_without_vectors_in_the_pipeline_say_what_to_set(tmp_path):
    from tests.features.test_clusters import _examples

    nlp = _bare_pipeline()
    examples = _examples(nlp, _sentences(10))
    with pytest.raises(ValueError, match=r"\[ner\] cannot read the word clusters: the pipeline has no word "
                                         r"vectors: set \[initialize\] vectors"):
        nlp.get_pipe("ner").initialize(lambda: examples, nlp=nlp, clusters="vectors")
    with pytest.raises(ValueError, match=r"\[ner\] cannot read the word clusters: word2vec file .*line 1"):
        bad = tmp_path / "bad.vec"
        bad.write_text("not a header\n", encoding="utf8")
        nlp.get_pipe("ner").initialize(lambda: examples, nlp=nlp, clusters=f"word2vec:{bad}")
