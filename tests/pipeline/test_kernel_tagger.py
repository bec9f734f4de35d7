"""pke_tagger: left-to-right chunking with pairwise kernel SVMs (the
component, its model `KernelTagger`, the Cython decoder against the Python
reference, serialization, bad input)."""
import random
import subprocess
import sys
from pathlib import Path

import numpy
import pytest
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

import spacy_adf.pipeline.kernel_tagger  # noqa: F401  (registers the factory)
from benchmarks.ebc import decisions, support_stats
from spacy_adf.features.bunsetsu import FeatureVocab
from spacy_adf.kernels.left_to_right import decode
from spacy_adf.kernels import PKB, PairwiseClassifier, SupportVectors
from spacy_adf.models.kernel_tagger import KernelTagger
from tests.helpers.reference_taggers import reference_tags, vote

REPO = Path(__file__).resolve().parents[2]

DET = ["the", "a", "this", "every"]
ADJ = ["big", "small", "red", "old", "quick"]
NOUN = ["dog", "cat", "house", "market", "price", "tree", "car"]
VERB = ["saw", "bought", "likes", "moved", "sold"]
PREP = ["in", "near", "of", "with"]


def np_words(rng):
    words = [(rng.choice(DET), "DT")] if rng.random() < 0.8 else []
    words += [(rng.choice(ADJ), "JJ") for _ in range(rng.randint(0, 2))]
    words.append((rng.choice(NOUN), "NN"))
    return words


def sentence(rng):
    """(words, tags, NP spans) of a toy sentence: NP VBD NP (IN NP) (.)"""
    parts, spans, words = [np_words(rng), [(rng.choice(VERB), "VBD")], np_words(rng)], [], []
    if rng.random() < 0.5:
        parts += [[(rng.choice(PREP), "IN")], np_words(rng)]
    if rng.random() < 0.5:
        parts.append([(".", ".")])
    for part in parts:
        if part[-1][1] == "NN":
            spans.append((len(words), len(words) + len(part)))
        words.extend(part)
    return [w for w, _ in words], [t for _, t in words], spans


def make_examples(nlp, n, seed=0):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words, tags, spans = sentence(rng)
        ref = Doc(nlp.vocab, words=words, tags=tags)
        ref.spans["chunks"] = [Span(ref, s, e, label="NP") for s, e in spans]
        out.append(Example(Doc(nlp.vocab, words=words, tags=tags), ref))
    return out


def conll_text(n, seed):
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        words, tags, spans = sentence(rng)
        iob = ["O"] * len(words)
        for s, e in spans:
            iob[s:e] = ["B-NP"] + ["I-NP"] * (e - s - 1)
        iob = [t if t != "O" or tags[k] == "." else "B-VP" for k, t in enumerate(iob)]  # non-NP -> O
        lines += [f"{w} {t} {c}" for w, t, c in zip(words, tags, iob)] + [""]
    return "\n".join(lines) + "\n"


def spans_of(doc):
    return [(s.start, s.end, s.label_) for s in doc.spans["chunks"]]


@pytest.fixture(scope="module")
def trained():
    nlp = spacy.blank("en")
    nlp.add_pipe("pke_tagger", name="chunker", config={"sigma": 0.0, "C": 10.0})
    train = make_examples(nlp, 80, seed=0)
    nlp.initialize(lambda: train)
    return nlp, train


def fresh(nlp, eg):
    return Doc(nlp.vocab, words=[t.text for t in eg.predicted], tags=[t.tag_ for t in eg.predicted])


def test_learns_a_tiny_problem(trained):
    nlp, train = trained
    pipe = nlp.get_pipe("chunker")
    assert pipe.tag_names == ["O", "B-NP", "I-NP"]
    assert nlp.evaluate(train)["spans_chunks_f"] == 1.0
    test = make_examples(nlp, 40, seed=7)
    assert nlp.evaluate(test)["spans_chunks_f"] == 1.0
    stats = pipe.cfg["stats"]
    assert stats["n_decisions"] == sum(len(eg.predicted) for eg in train)
    assert len(stats["training"]["pairs"]) == 3
    table = support_stats(pipe.plain_model)
    assert table["n_pairs"] == 3 and table["n_sv"] > 0 and table["B"] > 0 and table["avg_sv_len"] > 0


def test_cython_decoder_equals_python_reference(trained):
    nlp, _ = trained
    pipe = nlp.get_pipe("chunker")
    rng = random.Random(3)
    docs = []
    for k in range(30):
        words, tags, _ = sentence(rng)
        if k % 3 == 0:  # unseen words and tags
            words = [w.upper() + "zz" if rng.random() < 0.3 else w for w in words]
            tags = [t if rng.random() < 0.8 else "XX" for t in tags]
        docs.append(Doc(nlp.vocab, words=words, tags=tags))
    for kind, sigma in (("pkb", 0.0), ("pki", 0.0), ("pke", 0.0), ("pke", 0.01)):
        pipe.set_classifier(kind, sigma=sigma)
        fast = pipe.plain_model.tag_docs(docs)
        for doc, ids in zip(docs, fast):
            assert ids.tolist() == reference_tags(pipe.plain_model, doc)
    pipe.set_classifier("pke", sigma=0.0)


def test_forms_agree(trained):
    nlp, _ = trained
    pipe = nlp.get_pipe("chunker")
    docs = [fresh(nlp, eg) for eg in make_examples(nlp, 30, seed=11)]
    out = {}
    for kind in ("pkb", "pki", "pke"):
        pipe.set_classifier(kind, sigma=0.0)
        X, tags = decisions(pipe.plain_model, docs)
        out[kind] = (pipe.plain_model.classifier.votes(X), tags)
    for kind in ("pki", "pke"):
        assert numpy.array_equal(out[kind][1], out["pkb"][1])
        assert numpy.array_equal(out[kind][0][0], out["pkb"][0][0])
        assert numpy.array_equal(out[kind][0][1], out["pkb"][0][1])
    pipe.set_classifier("pke", sigma=0.0)


def test_static_ids_match_the_feature_strings(trained):
    nlp, _ = trained
    tagger = nlp.get_pipe("chunker").plain_model
    doc = Doc(nlp.vocab, words=["the", "unseenword", "dog", "saw", "a", "cat"],
              tags=["DT", "NN", "NN", "ZZZ", "DT", "NN"], sent_starts=[True, False, False, True, False, False])
    static, sent_off, forced, _ = tagger.batch_arrays([doc])
    assert sent_off.tolist() == [0, 3, 6]
    for start, end in tagger.sentences(doc):
        for i, feats in enumerate(tagger.static_strings(doc, start, end)):
            ids = sorted(x for x in static[start + i].tolist() if x >= 0)
            assert ids == tagger.vocab.lookup(feats)
    assert "w-2=<BOS>" in tagger.static_strings(doc, 0, 3)[0]
    assert "p+2=<EOS>" in tagger.static_strings(doc, 0, 3)[2]


def alternating_tagger():
    """Classes A, B; the only features are "t-1=A", "t-1=B", "t-1=<BOS>" and
    one pair classifier that answers B after A and A after B or <BOS>: fed
    its own previous tags it alternates A B A B; fed gold all-A tags it
    would say B everywhere but at the start."""
    tagger = KernelTagger()
    tagger._set_vocab(FeatureVocab(["t-1=A", "t-1=B", "t-1=<BOS>"]), ["A", "B"])
    coef = numpy.array([-1.0, 1.0, 1.0])  # decision on {r} = coef[r] (> 0 votes for class 0 = A)
    sv = SupportVectors(numpy.arange(4), numpy.arange(3), coef, -coef.sum(), 1, 3)
    tagger.classifier = PairwiseClassifier([PKB(sv)], 2)
    return tagger


def test_dynamic_features_are_the_predicted_tags():
    tagger = alternating_tagger()
    dyn = tagger._dynamic_table()
    assert dyn.tolist() == [[0, 1, 2], [-1, -1, -1]]
    n = 7
    static = numpy.full((n, 0), -1, dtype=numpy.int32)
    predicted = decode(tagger.classifier, static, [0, n], dyn)
    assert predicted.tolist() == [0, 1, 0, 1, 0, 1, 0]
    # what gold previous tags (all A) would give: B after every A
    gold = numpy.zeros(n, dtype=numpy.int64)
    with_gold = tagger.classifier.votes(tagger.rows(static, numpy.array([0, n]), gold))[0]
    assert with_gold.tolist() == [0] + [1] * (n - 1)
    assert with_gold.tolist() != predicted.tolist()
    # replaying the decoder's own decisions with its predicted tags gives them back
    assert tagger.classifier.votes(tagger.rows(static, numpy.array([0, n]), predicted))[0].tolist() == \
        predicted.tolist()
    # two sentences: each starts again at <BOS>
    assert decode(tagger.classifier, numpy.zeros((5, 0), dtype=numpy.int32), [0, 3, 5], dyn).tolist() == \
        [0, 1, 0, 0, 1]
    # the Doc-level paths agree, and so does the plain-Python reference
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=list("abcdefg"), tags=["X"] * 7)
    assert tagger.tag_docs([doc])[0].tolist() == predicted.tolist() == reference_tags(tagger, doc)


def test_vote_reference():
    assert vote([1.0, 1.0, 1.0], 3) == 0
    assert vote([-1.0, -1.0, -1.0], 3) == 2
    assert vote([1.0, -1.0, 1.0], 3) == 0      # cycle, equal margins -> lowest
    assert vote([1.0, -2.0, 1.0], 3) == 2      # cycle, class 2 has more margin


def test_round_trips_give_identical_output(trained, tmp_path):
    nlp, _ = trained
    docs = [fresh(nlp, eg) for eg in make_examples(nlp, 20, seed=5)]
    want = [spans_of(d) for d in nlp.pipe([Doc(nlp.vocab, words=[t.text for t in d],
                                                tags=[t.tag_ for t in d]) for d in docs])]
    nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m")
    assert [spans_of(d) for d in loaded.pipe([fresh(nlp, Example(d, d)) for d in docs])] == want
    nlp2 = spacy.blank("en")
    nlp2.add_pipe("pke_tagger", name="chunker")
    nlp2.from_bytes(nlp.to_bytes())
    assert [spans_of(d) for d in nlp2.pipe([fresh(nlp, Example(d, d)) for d in docs])] == want
    pipe2 = nlp2.get_pipe("chunker")
    assert pipe2.cfg["classifier"] == "pke" and pipe2.tag_names == ["O", "B-NP", "I-NP"]
    # the support vectors came along: rebuild PKB after loading, no retraining
    pipe2.set_classifier("pkb")
    assert [spans_of(d) for d in nlp2.pipe([fresh(nlp, Example(d, d)) for d in docs])] == want


def test_set_classifier_does_not_retrain(trained, monkeypatch):
    nlp, _ = trained
    pipe = nlp.get_pipe("chunker")
    import spacy_adf.models.kernel_tagger as kt

    def boom(*a, **k):
        raise AssertionError("retrained")

    monkeypatch.setattr(kt, "train_binary", boom)
    docs = [fresh(nlp, eg) for eg in make_examples(nlp, 10, seed=9)]
    before = [t.tolist() for t in pipe.predict(docs)]
    for kind, sigma in (("pkb", 0.0), ("pki", 0.0), ("pke", 0.001), ("pke", 0.0)):
        seconds = pipe.set_classifier(kind, sigma=sigma)
        assert seconds >= 0 and pipe.plain_model.classifier.kind == kind and pipe.cfg["classifier"] == kind
        assert [t.tolist() for t in pipe.predict(docs)] == before
    with pytest.raises(ValueError, match="classifier must be one of"):
        pipe.set_classifier("svm")


def test_bad_input(trained):
    nlp, _ = trained
    pipe = nlp.get_pipe("chunker")
    empty = nlp(Doc(nlp.vocab, words=[]))
    assert list(empty.spans["chunks"]) == []
    docs = list(nlp.pipe([Doc(nlp.vocab, words=[]), Doc(nlp.vocab, words=["the", "dog"], tags=["DT", "NN"]),
                          Doc(nlp.vocab, words=[])]))
    assert spans_of(docs[1]) == [(0, 2, "NP")]
    with pytest.raises(ValueError, match=r"\[chunker\].*no POS tags.*tagger"):
        nlp(Doc(nlp.vocab, words=["the", "dog", "barked"]))
    # whitespace tokens are O, never inside a chunk
    doc = Doc(nlp.vocab, words=["the", "big", "\n", "dog", "saw", "a", "cat"], spaces=[True] * 7,
              tags=["DT", "JJ", "_SP", "NN", "VBD", "DT", "NN"])
    doc = nlp(doc)
    assert all(not any(t.is_space for t in s) for s in doc.spans["chunks"])
    assert doc[2].is_space
    # unseen words and tags: still a tagging, the same as the reference
    doc = Doc(nlp.vocab, words=["Zorblax", "quuxed", "the", "flimflam"], tags=["NNP", "VBZ", "DT", "NN"])
    assert pipe.plain_model.tag_docs([doc])[0].tolist() == reference_tags(pipe.plain_model, doc)
    nlp(doc)
    doc = Doc(nlp.vocab, words=["the", "zorblax", "quuxed", "a", "flimflam"], tags=["DT", "NN", "VBD", "DT", "NN"])
    assert spans_of(nlp(doc)) == [(0, 2, "NP"), (3, 5, "NP")]


def test_sentences_are_tagged_on_their_own(trained):
    nlp, _ = trained
    pipe = nlp.get_pipe("chunker")
    egs = make_examples(nlp, 3, seed=21)
    words = [t.text for eg in egs for t in eg.predicted]
    tags = [t.tag_ for eg in egs for t in eg.predicted]
    starts = [k == 0 for eg in egs for k in range(len(eg.predicted))]
    joined = Doc(nlp.vocab, words=words, tags=tags, sent_starts=starts)
    apart = numpy.concatenate(pipe.plain_model.tag_docs([fresh(nlp, eg) for eg in egs]))
    assert pipe.plain_model.tag_docs([joined])[0].tolist() == apart.tolist() == reference_tags(pipe.plain_model, joined)


def test_options_are_validated():
    nlp = spacy.blank("en")
    for config, match in [({"classifier": "svm"}, "classifier"), ({"degree": 7}, "degree"),
                          ({"sigma": -1.0}, "sigma"), ({"scheme": "IOE"}, "scheme"),
                          ({"target": "tag"}, "target"), ({"pos_attr": "lemma"}, "pos_attr"),
                          ({"features": ["words", "shape"]}, "feature groups"),
                          ({"trainer": "primal", "classifier": "pkb"}, "primal"),
                          ({"n_jobs": 0}, "n_jobs"), ({"window": -1}, "window")]:
        with pytest.raises(ValueError, match=match):
            nlp.add_pipe("pke_tagger", name=f"t{len(nlp.pipe_names)}", config=config)
    pipe = nlp.add_pipe("pke_tagger", config={"scheme": "IOB2"})
    assert pipe.cfg["scheme"] == "BIO"
    with pytest.raises(ValueError, match=r"\[pke_tagger\] the tagger is not trained"):
        pipe.predict([Doc(nlp.vocab, words=["a"], tags=["DT"])])
    with pytest.raises(ValueError, match="no trained SVMs"):
        pipe.set_classifier("pkb")


def test_primal_trainer_and_biluo():
    nlp = spacy.blank("en")
    nlp.add_pipe("pke_tagger", config={"trainer": "primal", "scheme": "BILUO", "sigma": 0.0, "C": 10.0,
                                       "n_jobs": 2})
    train = make_examples(nlp, 60, seed=2)
    nlp.initialize(lambda: train)
    pipe = nlp.get_pipe("pke_tagger")
    assert set(pipe.tag_names) <= {"O", "B-NP", "I-NP", "L-NP", "U-NP"} and len(pipe.tag_names) >= 4
    assert nlp.evaluate(make_examples(nlp, 30, seed=8))["spans_chunks_f"] > 0.95
    assert pipe.cfg["stats"]["training"]["n_jobs"] == 2
    with pytest.raises(ValueError, match="primal"):
        pipe.set_classifier("pki")
    # the saved PKE loads; it cannot be rebuilt (no support vectors)
    nlp2 = spacy.blank("en")
    nlp2.add_pipe("pke_tagger", config={"trainer": "primal"})
    nlp2.from_bytes(nlp.to_bytes())
    docs = [fresh(nlp, eg) for eg in train[:10]]
    assert [t.tolist() for t in nlp2.get_pipe("pke_tagger").predict(docs)] == \
        [t.tolist() for t in pipe.predict(docs)]
    with pytest.raises(ValueError, match=r"\[pke_tagger\].*primal trainer"):
        nlp2.get_pipe("pke_tagger").set_classifier("pke", sigma=0.01)


def test_corrupt_and_mismatched_files(trained, tmp_path):
    nlp, _ = trained
    path = tmp_path / "m"
    nlp.to_disk(path)
    clf_file = path / "chunker" / "classifier"
    good = clf_file.read_bytes()
    clf_file.write_bytes(good[: len(good) // 2])
    with pytest.raises(ValueError, match="chunker"):
        spacy.load(path)
    # a classifier of another model (other vocabulary) in the right frame
    other = spacy.blank("en")
    other.add_pipe("pke_tagger", name="chunker", config={"sigma": 0.0, "min_feature_count": 2})
    egs = make_examples(other, 30, seed=4)
    other.initialize(lambda: egs)
    other_path = tmp_path / "other"
    other.to_disk(other_path)
    clf_file.write_bytes((other_path / "chunker" / "classifier").read_bytes())
    with pytest.raises(ValueError, match=r"\[chunker\].*mismatched"):
        spacy.load(path)
    # a classifier of another kind than the cfg says
    nlp.to_disk(path)
    pipe = spacy.load(path).get_pipe("chunker")
    pipe.set_classifier("pki")
    pki_bytes = pipe.to_bytes()
    pipe.set_classifier("pke", sigma=0.0)
    with pytest.raises(ValueError, match=r"\[chunker\].*PKI"):
        spacy.blank("en").add_pipe("pke_tagger", name="chunker").from_bytes(
            _swap_classifier(pipe.to_bytes(), pki_bytes))


def _swap_classifier(target: bytes, source: bytes) -> bytes:
    """`target`'s component bytes with `source`'s classifier part."""
    import srsly

    a, b = srsly.msgpack_loads(target), srsly.msgpack_loads(source)
    a["classifier"] = b["classifier"]
    return srsly.msgpack_dumps(a)


@pytest.mark.slow
def test_spacy_train_on_a_generated_corpus(tmp_path):
    (tmp_path / "train.txt").write_text(conll_text(150, 0), encoding="utf8")
    (tmp_path / "dev.txt").write_text(conll_text(50, 1), encoding="utf8")
    code = tmp_path / "register.py"
    code.write_text("import spacy_adf.pipeline.kernel_tagger\n")
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "ebc_conll2000.cfg"),
           "--paths.train", str(tmp_path / "train.txt"), "--paths.dev", str(tmp_path / "dev.txt"),
           "--output", str(out), "--code", str(code)]
    subprocess.run(cmd, cwd=REPO, check=True, capture_output=True, timeout=600)
    nlp = spacy.load(out / "model-best")
    pipe = nlp.get_pipe("chunker")
    assert pipe.cfg["classifier"] == "pke" and pipe.cfg["sigma"] == 0.005
    doc = nlp(Doc(nlp.vocab, words=["the", "old", "dog", "saw", "a", "cat"],
                  tags=["DT", "JJ", "NN", "VBD", "DT", "NN"]))
    assert spans_of(doc) == [(0, 3, "NP"), (4, 6, "NP")]
