"""trainer = "online" in the three kernel components (pke_dependency,
pke_tagger, pke_segmenter): they learn small corpora, save and load to the
same decisions, give PKE only, and say why a loaded model cannot be rebuilt."""
import numpy
import pytest
import spacy

pytest.importorskip("sklearn")

import spacy_adf.pipeline.kernel_tagger  # noqa: F401  (registers the factory)
from spacy_adf.kernels import PKE
from spacy_adf.kernels.primal import PrimalSVM
from tests.helpers.dep_data import corpus_examples
from tests.helpers.seg_data import char_nlp, make_sentences, seg_examples
from tests.pipeline.test_kernel_tagger import make_examples


@pytest.fixture(scope="module")
def dep_nlp(dep_corpus):
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pke", "sigma": 0.0, "trainer": "online"})
    train = corpus_examples(nlp, dep_corpus / "train.knp")
    nlp.initialize(lambda: train)
    return nlp, train


def test_dependency_learns_saves_and_loads(dep_nlp, dep_corpus, tmp_path):
    nlp, train = dep_nlp
    pipe = nlp.get_pipe("pke_dependency")
    assert isinstance(pipe.plain_model.primal, PrimalSVM) and pipe.plain_model.support_vectors is None
    assert isinstance(pipe.plain_model.classifier, PKE) and pipe.plain_model.classifier.stats["trainer"] == "online"
    assert pipe.cfg["stats"]["training"]["trainer"] == "online"
    assert nlp.evaluate(train)["bunsetsu_dep_acc"] > 0.98
    dev = corpus_examples(nlp, dep_corpus / "dev.knp")
    acc = nlp.evaluate(dev)["bunsetsu_dep_acc"]
    assert acc > 0.9
    nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m")
    lp = loaded.get_pipe("pke_dependency")
    assert lp.plain_model.classifier.to_bytes() == pipe.plain_model.classifier.to_bytes()
    assert loaded.evaluate(dev)["bunsetsu_dep_acc"] == acc
    with pytest.raises(ValueError, match="online trainer"):
        lp.set_classifier("pke", sigma=0.01)
    with pytest.raises(ValueError, match="online trainer gives PKE only"):
        pipe.set_classifier("pkb")


def test_tagger_learns_saves_and_loads(tmp_path):
    nlp = spacy.blank("en")
    pipe = nlp.add_pipe("pke_tagger", config={"trainer": "online", "sigma": 0.0})
    train = make_examples(nlp, 150)
    nlp.initialize(lambda: train)
    assert pipe.plain_model.classifier.kind == "pke"
    assert all(c.stats["trainer"] == "online" for c in pipe.plain_model.classifier.classifiers)
    assert nlp.evaluate(train)["spans_chunks_f"] == 1.0
    held_out = make_examples(nlp, 60, seed=5)
    f = nlp.evaluate(held_out)["spans_chunks_f"]
    assert f > 0.97
    nlp.to_disk(tmp_path / "t")
    loaded = spacy.load(tmp_path / "t")
    assert loaded.evaluate(held_out)["spans_chunks_f"] == f
    assert loaded.get_pipe("pke_tagger").plain_model.classifier.to_bytes() == pipe.plain_model.classifier.to_bytes()
    with pytest.raises(ValueError, match="online trainer"):
        loaded.get_pipe("pke_tagger").set_classifier("pke", sigma=0.01)


def test_segmenter_learns_saves_and_loads(tmp_path):
    nlp = char_nlp()
    seg = nlp.add_pipe("pke_segmenter", config={"trainer": "online", "sigma": 0.0, "epochs": 5})
    nlp.initialize(lambda: seg_examples(nlp, make_sentences(120)))
    assert seg.cfg["stats"]["training"]["epochs"] <= 5
    held_out = seg_examples(nlp, make_sentences(40, seed=7))
    scores = nlp.evaluate(held_out)
    assert scores["boundary_acc"] == 1.0
    raw = "我们喜欢吃苹果。今天天气很好"
    nlp.to_disk(tmp_path / "s")
    loaded = spacy.load(tmp_path / "s")
    assert [t.text for t in loaded(raw)] == [t.text for t in nlp(raw)]
    assert loaded.get_pipe("pke_segmenter").plain_model.classifier.to_bytes() == seg.plain_model.classifier.to_bytes()


def test_online_options_are_checked():
    for factory in ("pke_dependency", "pke_tagger", "pke_segmenter"):
        with pytest.raises(ValueError, match="online trainer gives PKE only"):
            spacy.blank("xx").add_pipe(factory, config={"trainer": "online", "classifier": "pki"})
    with pytest.raises(ValueError, match="epochs"):
        spacy.blank("xx").add_pipe("pke_segmenter", config={"trainer": "online"}).plain_model.train(
            numpy.zeros((2, 2)), numpy.array([1, -1]), trainer="online", epochs=1.5)
