"""pke_segmenter: word segmentation as one kernel-SVM decision per gap
(Kudo & Matsumoto 2003, JWS) on small corpora made here."""
import numpy
import pytest
import spacy

from spacy_adf.models.boundary_segmenter import BoundarySegmenter, concat_units
from spacy_adf.pipeline.kernel_segmenter import KernelSegmenter
from tests.helpers.reference_segmenters import boundary_segment_reference
from tests.helpers.seg_data import char_nlp, make_sentences, seg_examples, text_units

RAW = "我们喜欢吃苹果。今天天气很好 研究生命科学的学生"


def _trained(trainer="libsvm", kind="pke", sigma=0.0, n=120, **cfg):
    nlp = char_nlp()
    seg = nlp.add_pipe("pke_segmenter", config={"trainer": trainer, "classifier": kind, "sigma": sigma, **cfg})
    nlp.initialize(lambda: seg_examples(nlp, make_sentences(n)))
    return nlp, seg


@pytest.fixture(scope="module")
def libsvm_nlp():
    return _trained("libsvm")


@pytest.fixture(scope="module")
def primal_nlp():
    return _trained("primal", sigma=0.005)


def _words(doc):
    return [t.text for t in doc]


def test_learns_a_tiny_problem(libsvm_nlp, primal_nlp):
    held_out = make_sentences(40, seed=7)
    for nlp, seg in (libsvm_nlp, primal_nlp):
        scores = nlp.evaluate(seg_examples(nlp, held_out))
        assert scores["token_f"] == 1.0 and scores["boundary_acc"] == 1.0
        assert seg.cfg["stats"]["n_examples"] > 0 and 0 < seg.cfg["stats"]["avg_features"] <= 12
        assert _words(nlp("我们喜欢吃苹果")) == ["我们", "喜欢", "吃", "苹果"]


def test_c_segmentation_equals_the_python_reference(libsvm_nlp, primal_nlp):
    texts = [RAW, "北京大学的老师", "电影", "好", "市场开放政策很重要"]
    codes, bounds, _ = concat_units([text_units(t)[::2] for t in texts])
    for _, seg in (libsvm_nlp, primal_nlp):
        c = seg.plain_model.segment(codes, bounds)
        assert c.tolist() == boundary_segment_reference(seg.plain_model, codes, bounds).tolist()
        assert c.sum() > len(bounds) - 1  # some gaps inside runs are boundaries


def test_all_forms_decide_alike(libsvm_nlp):
    nlp, seg = libsvm_nlp
    codes, _, bounds = text_units(RAW * 5)
    X, _ = seg.plain_model.examples([(codes, bounds, numpy.ones(len(codes), dtype=bool))], build_vocab=False)
    values = {}
    for kind in ("pkb", "pki", "pke"):
        seg.set_classifier(kind, sigma=0.0, xi=1)
        values[kind] = seg.plain_model.classifier.decision_batch(X)
        assert seg.cfg["classifier"] == kind
    assert numpy.allclose(values["pkb"], values["pki"]) and numpy.allclose(values["pkb"], values["pke"])
    seg.set_classifier("pke", sigma=0.0)


def test_set_classifier_needs_no_retraining(libsvm_nlp, primal_nlp):
    nlp, seg = libsvm_nlp
    sv = seg.plain_model.support_vectors
    before = _words(nlp(RAW))
    seg.set_classifier("pke", sigma=0.01, xi=2)
    assert seg.plain_model.support_vectors is sv and seg.plain_model.classifier.sigma == 0.01 and seg.plain_model.classifier.xi == 2
    seg.set_classifier("pkb")
    assert _words(nlp(RAW)) == before
    seg.set_classifier("pke", sigma=0.0)
    pnlp, pseg = primal_nlp
    pseg.set_classifier("pke", sigma=0.0)
    pseg.set_classifier("pke", sigma=0.005)
    with pytest.raises(ValueError, match=r"\[pke_segmenter\].*libsvm"):
        pseg.set_classifier("pkb")


@pytest.mark.parametrize("text", ["", " ", "  \n\t　", "😀😀😀", "𠮷野家でＸＹＺ™を♪ !", "a b  c", "龘靐齉"])
def test_bad_input_keeps_the_text(libsvm_nlp, text):
    nlp, _ = libsvm_nlp
    doc = nlp(text)
    assert doc.text == text
    assert all(not t.text.strip() or t.text == t.text.strip() for t in doc)  # no word holds whitespace


def test_a_long_line(libsvm_nlp):
    nlp, _ = libsvm_nlp
    text = ("我们喜欢吃苹果今天天气很好" * 8000)[:100_000]
    doc = nlp(text)
    assert doc.text == text and 10_000 < len(doc) < 100_000


def test_output_matches_adf_segmenter_doc_form(libsvm_nlp):
    """The word Doc is built as adf_segmenter builds it: words with the
    same trailing spaces, other whitespace as tokens of its own."""
    nlp, _ = libsvm_nlp
    doc = nlp("我们 喜欢\n苹果")
    assert [(t.text, t.whitespace_) for t in doc] == [("我们", " "), ("喜欢", ""), ("\n", ""), ("苹果", "")]


def test_pipe_equals_call(libsvm_nlp):
    nlp, _ = libsvm_nlp
    texts = [RAW, "", "今天", RAW[::-1]]
    assert [_words(d) for d in nlp.pipe(texts, batch_size=2)] == [_words(nlp(t)) for t in texts]


def test_round_trips(libsvm_nlp, primal_nlp, tmp_path):
    for k, (nlp, seg) in enumerate((libsvm_nlp, primal_nlp)):
        expected = _words(nlp(RAW))
        nlp.to_disk(tmp_path / str(k))
        loaded = spacy.load(tmp_path / str(k))
        assert _words(loaded(RAW)) == expected
        other = KernelSegmenter(nlp.vocab).from_bytes(seg.to_bytes())
        assert other.cfg == seg.cfg
        assert _words(other(nlp.make_doc(RAW))) == expected
    # the loaded libsvm model still rebuilds other forms without retraining
    loaded = spacy.load(tmp_path / "0")
    loaded.get_pipe("pke_segmenter").set_classifier("pki")
    assert _words(loaded(RAW)) == _words(libsvm_nlp[0](RAW))
    # a loaded primal model keeps its PKE, but cannot rebuild it
    loaded = spacy.load(tmp_path / "1")
    with pytest.raises(ValueError, match="primal"):
        loaded.get_pipe("pke_segmenter").set_classifier("pke", sigma=0.001)


def test_corrupt_and_mismatched_files(libsvm_nlp, tmp_path):
    nlp, seg = libsvm_nlp
    nlp.to_disk(tmp_path / "a")
    clf_file = tmp_path / "a" / "pke_segmenter" / "classifier"
    clf_file.write_bytes(clf_file.read_bytes()[:-50] + b"\0" * 50)
    with pytest.raises(ValueError, match="pke_segmenter"):
        spacy.load(tmp_path / "a")
    # a classifier of another model (another vocabulary) next to these features
    other_nlp, other = _trained("libsvm", n=30)
    nlp.to_disk(tmp_path / "b")
    other_nlp.to_disk(tmp_path / "c")
    target = tmp_path / "b" / "pke_segmenter" / "classifier"
    target.write_bytes((tmp_path / "c" / "pke_segmenter" / "classifier").read_bytes())
    with pytest.raises(ValueError, match=r"pke_segmenter.*(mismatched|vocabulary)"):
        spacy.load(tmp_path / "b")


def test_options_are_validated():
    nlp = char_nlp()
    for bad in ({"classifier": "svm"}, {"degree": 7}, {"sigma": -1.0}, {"xi": 0}, {"C": 0.0},
                {"trainer": "sgd"}, {"window": 0}, {"window": 9}, {"trainer": "primal", "classifier": "pkb"},
                {"min_feature_count": 0}, {"cache_size": 0.0}):
        with pytest.raises(ValueError, match=r"\[pke_segmenter\]"):
            nlp.add_pipe("pke_segmenter", config=bad)


def test_untrained_and_unsegmented_data_are_clear_errors():
    nlp = char_nlp()
    seg = nlp.add_pipe("pke_segmenter")
    with pytest.raises(ValueError, match=r"\[pke_segmenter\].*not trained"):
        nlp("我们")
    with pytest.raises(ValueError, match=r"\[pke_segmenter\].*segmented training examples"):
        seg.initialize(lambda: [ex for ex in seg_examples(nlp, [["我"], ["你"]])])


def test_model_without_pipeline():
    """BoundarySegmenter alone: the benchmark's entry point."""
    nlp = char_nlp()
    items = []
    for eg in seg_examples(nlp, make_sentences(60)):
        codes, pos, bounds = text_units(eg.reference.text)
        starts = numpy.zeros(len(codes), dtype=bool)
        at = 0
        for w in eg.reference:
            starts[at] = True
            at += len(w.text)
        items.append((codes, bounds, starts))
    model = BoundarySegmenter(2)
    X, y = model.examples(items)
    assert X.shape[0] == sum(len(c) - 1 for c, _, _ in items) and set(y.tolist()) == {-1, 1}
    model.train(X, y, degree=2, trainer="libsvm")
    model.build("pki")
    codes, bounds, _ = concat_units([(c, b) for c, b, _ in items])
    assert model.segment(codes, bounds).astype(bool).tolist() == numpy.concatenate(
        [s for _, _, s in items]).tolist()
    restored = BoundarySegmenter(2)
    restored.features_from_bytes(model.features_to_bytes())
    restored.support_vectors_from_bytes(model.support_vectors_to_bytes())
    restored.classifier_from_bytes(model.classifier_to_bytes(), kind="pki", degree=2)
    assert restored.segment(codes, bounds).tolist() == model.segment(codes, bounds).tolist()
    with pytest.raises(ValueError, match="PKI"):
        restored.classifier_from_bytes(model.classifier_to_bytes(), kind="pke")


def test_boundary_accuracy_score():
    from spacy_adf.scorers.segmentation import boundary_accuracy, make_segmentation_scorer

    # gaps a|b b|c c|d: gold ab c d, predicted a bc d -> a|b and b|c wrong, c|d right
    assert boundary_accuracy([["ab", "c", "d"]], [["a", "bc", "d"]]) == pytest.approx(1 / 3)
    assert boundary_accuracy([["ab", " ", "c"]], [["a", "b", "c"]]) == pytest.approx(1 / 2)  # space ignored
    with pytest.raises(ValueError, match="differ"):
        boundary_accuracy([["ab"]], [["abc"]])
    assert "boundary_acc" not in make_segmentation_scorer()([])  # adf_segmenter's scores stay as they were


def test_spacy_train_with_the_shipped_config(dep_corpus, tmp_path):
    """configs/jws_kwdlc.cfg trains through `spacy train` (on the small KNP
    corpus of the dependency tests) and the result segments raw text."""
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "spacy", "train", str(repo / "configs" / "jws_kwdlc.cfg"),
                    "--paths.train", str(dep_corpus / "train.knp"), "--paths.dev", str(dep_corpus / "dev.knp"),
                    "--output", str(tmp_path)], cwd=repo, check=True, capture_output=True)
    nlp = spacy.load(tmp_path / "model-last")
    assert nlp.pipe_names == ["pke_segmenter"]
    doc = nlp("今日は晴れ。 明日も")
    assert doc.text == "今日は晴れ。 明日も" and len(doc) > 1
    assert nlp.get_pipe("pke_segmenter").cfg["stats"]["n_examples"] > 0


def test_pickle_and_multiprocess_pipe(libsvm_nlp):
    import pickle

    nlp, seg = libsvm_nlp
    clone = pickle.loads(pickle.dumps(seg))
    assert _words(clone(nlp.make_doc(RAW))) == _words(nlp(RAW))
    texts = [RAW, "今天天气很好", ""]
    assert [_words(d) for d in nlp.pipe(texts, n_process=2, batch_size=1)] == [_words(nlp(t)) for t in texts]
