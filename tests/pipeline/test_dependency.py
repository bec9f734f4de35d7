"""pke_dependency: cascaded chunking, features, the component, its
serialization, and bad input. Real-corpus checks read ../shared/data."""
import random
from pathlib import Path

import numpy
import pytest
import spacy
from spacy import displacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_adf.corpora.bunsetsu import bunsetsu_docs, make_predicted
from spacy_adf.features.bunsetsu import FeatureVocab
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY, bunsetsu_heads, check_bunsetsu_heads
from spacy_adf.models.cascaded_chunking import cascaded_parse, oracle_parse, oracle_rounds
from spacy_adf.scorers.bunsetsu_deps import score_bunsetsu_deps

from tests.helpers.dep_data import knp_text

KWDLC = Path(__file__).resolve().parents[3] / "shared" / "data" / "kwdlc"


def random_tree(rng, n):
    """A random head-final projective tree over n segments."""
    heads = [-1] * n
    for i in range(n - 2, -1, -1):
        path = [i + 1]  # i may attach to any segment on the path from i + 1 to the root
        while heads[path[-1]] != -1:
            path.append(heads[path[-1]])
        heads[i] = rng.choice(path)
    return heads


# ---------------------------------------------------------------- algorithm


def test_oracle_reproduces_random_projective_trees():
    rng = random.Random(0)
    for _ in range(2000):
        heads = random_tree(rng, rng.randint(1, 14))
        assert check_bunsetsu_heads(heads) is None
        assert oracle_parse(heads) == heads


@pytest.mark.parametrize("answer", ["O", "D", "random"])
def test_any_classifier_terminates_with_a_valid_tree(answer):
    rng = random.Random(1)
    for n in list(range(0, 12)) + [60]:
        calls = []

        def decide(state, pairs):
            assert pairs, "decide must never be called with nothing to ask"
            calls.append(len(pairs))
            if answer == "random":
                return [rng.random() < 0.5 for _ in pairs]
            return [answer == "D"] * len(pairs)

        heads = cascaded_parse(n, decide)
        assert len(heads) == n
        if n:
            assert check_bunsetsu_heads(heads) is None
        assert len(calls) <= max(n - 1, 0)
        if answer == "O" and n:
            # all O: only the forced segment before the last leaves each round
            assert heads == [n - 1] * (n - 1) + [-1]


def test_wrong_number_of_decisions_is_an_error():
    with pytest.raises(ValueError, match="decisions for"):
        cascaded_parse(5, lambda state, pairs: [True])


def test_oracle_questions_never_include_the_forced_pair():
    for state, pairs, gold in oracle_rounds([3, 2, 3, -1]):
        rem = state.remaining
        assert len(pairs) == len(rem) - 2
        assert all(j == rem[rem.index(i) + 1] for i, j in pairs)


@pytest.mark.skipif(not (KWDLC / "train.knp").exists(), reason="needs ../shared/data/kwdlc")
def test_oracle_reproduces_every_kwdlc_training_tree():
    nlp = spacy.blank("xx")
    n = 0
    for doc in bunsetsu_docs(KWDLC / "train.knp", nlp.vocab):
        heads = doc.spans[BUNSETSU_KEY].attrs["heads"]
        assert oracle_parse(heads) == heads
        n += 1
    assert n > 12000


# ---------------------------------------------------------------- component


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("dep")
    (d / "train.knp").write_text(knp_text(120, seed=0, prefix="tr"), encoding="utf8")
    (d / "dev.knp").write_text(knp_text(40, seed=1, prefix="dv"), encoding="utf8")
    return d


def _examples(nlp, path):
    return [Example(make_predicted(ref), ref) for ref in bunsetsu_docs(path, nlp.vocab)]


@pytest.fixture(scope="module")
def trained(corpus):
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pki"})
    train = _examples(nlp, corpus / "train.knp")
    nlp.initialize(lambda: train)
    return nlp, train


def _parse(nlp, examples):
    docs = [make_predicted(eg.reference) for eg in examples]
    return [nlp.get_pipe("pke_dependency")(doc) for doc in docs]


def _heads(docs):
    return [d.spans[BUNSETSU_KEY].attrs["heads"] for d in docs]


def test_learns_the_training_data_to_zero_errors(trained):
    nlp, train = trained
    scores = nlp.evaluate(train)
    assert scores["bunsetsu_dep_acc"] == 1.0
    assert scores["bunsetsu_sent_acc"] == 1.0
    stats = nlp.get_pipe("pke_dependency").cfg["stats"]
    assert stats["n_sv"] > 0 and stats["n_features"] > 0 and stats["n_decisions"] > 0


def test_generalises_to_unseen_sentences(trained, corpus):
    nlp, _ = trained
    dev = _examples(nlp, corpus / "dev.knp")
    assert nlp.evaluate(dev)["bunsetsu_dep_acc"] > 0.9


def test_output_is_a_single_rooted_projective_token_tree(trained):
    nlp, train = trained
    for doc in _parse(nlp, train[:20]):
        assert len(list(doc.sents)) == 1
        roots = [t for t in doc if t.dep_ == "ROOT"]
        assert len(roots) == 1
        assert bunsetsu_heads(doc) == doc.spans[BUNSETSU_KEY].attrs["heads"]
        group = doc.spans[BUNSETSU_KEY]
        for k, span in enumerate(group):
            h = group.attrs["heads"][k]
            assert (span._.bunsetsu_head is None) == (h == -1)
            if h >= 0:
                assert span._.bunsetsu_head.start == group[h].start
        html = displacy.render(doc, style="dep", jupyter=False)
        assert "<svg" in html


def test_all_classifier_forms_agree(trained):
    nlp, train = trained
    pipe = nlp.get_pipe("pke_dependency")
    reference = _heads(_parse(nlp, train))
    scores = {}
    for kind in ["pkb", "pke"]:
        pipe.set_classifier(kind, sigma=0.0, xi=1)
        assert _heads(_parse(nlp, train)) == reference
        X = [f for eg in train[:10] for f, _ in pipe.parser.gold_decisions(
            eg.reference, eg.reference.spans[BUNSETSU_KEY], eg.reference.spans[BUNSETSU_KEY].attrs["heads"])]
        scores[kind] = [pipe.classifier.decision(x) for x in X]
    numpy.testing.assert_allclose(scores["pkb"], scores["pke"], rtol=1e-9, atol=1e-9)
    pipe.set_classifier("pki")


def test_round_trips_give_identical_parses(trained, tmp_path):
    nlp, train = trained
    expected = _heads(_parse(nlp, train))
    pipe = nlp.get_pipe("pke_dependency")
    for kind in ["pki", "pke"]:
        pipe.set_classifier(kind, sigma=0.0)
        nlp.to_disk(tmp_path / kind)
        loaded = spacy.load(tmp_path / kind)
        assert loaded.get_pipe("pke_dependency").cfg["classifier"] == kind
        assert _heads(_parse(loaded, train)) == expected
        again = spacy.blank("xx")
        again.add_pipe("pke_dependency")
        again.get_pipe("pke_dependency").from_bytes(pipe.to_bytes())
        assert _heads(_parse(again, train)) == expected
    pipe.set_classifier("pki")


def test_spacy_train_end_to_end(corpus, tmp_path):
    from spacy.cli.train import train

    config = Path(__file__).resolve().parents[2] / "configs" / "dep_ja_kwdlc.cfg"
    overrides = {"paths.train": str(corpus / "train.knp"), "paths.dev": str(corpus / "dev.knp"),
                 "components.pke_dependency.degree": 2, "components.pke_dependency.sigma": 0.0}
    train(config, tmp_path / "out", overrides=overrides)
    nlp = spacy.load(tmp_path / "out" / "model-last")
    dev = _examples(nlp, corpus / "dev.knp")
    assert nlp.evaluate(dev)["bunsetsu_dep_acc"] > 0.9


def test_training_is_deterministic(corpus):
    runs = []
    for _ in range(2):
        nlp = spacy.blank("xx")
        nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pke", "sigma": 0.0})
        train = _examples(nlp, corpus / "train.knp")
        nlp.initialize(lambda: train)
        runs.append(nlp.get_pipe("pke_dependency").to_bytes(exclude=["cfg"]))  # cfg holds timings
    assert runs[0] == runs[1]


# ---------------------------------------------------------------- bad input


def test_doc_without_bunsetsu_is_a_clear_error(trained):
    nlp, _ = trained
    doc = Doc(nlp.vocab, words=["本", "を", "読む"])
    with pytest.raises(ValueError, match=r"no doc.spans\['bunsetsu'\].*bunsetsu chunker"):
        nlp.get_pipe("pke_dependency")(doc)


def test_spans_that_do_not_cover_the_doc_are_an_error(trained):
    nlp, _ = trained
    doc = Doc(nlp.vocab, words=["本", "を", "読む"])
    doc.spans[BUNSETSU_KEY] = [doc[0:2]]
    with pytest.raises(ValueError, match="ends at token 2"):
        nlp.get_pipe("pke_dependency")(doc)


def test_empty_one_and_two_segment_docs(trained):
    nlp, _ = trained
    pipe = nlp.get_pipe("pke_dependency")
    empty = pipe(Doc(nlp.vocab, words=[]))
    assert len(empty) == 0
    one = Doc(nlp.vocab, words=["本", "を"])
    one.spans[BUNSETSU_KEY] = [one[0:2]]
    pipe(one)
    assert one.spans[BUNSETSU_KEY].attrs["heads"] == [-1]
    assert len(list(one.sents)) == 1
    two = Doc(nlp.vocab, words=["本", "を", "読む"])
    two.spans[BUNSETSU_KEY] = [two[0:2], two[2:3]]
    pipe(two)
    assert two.spans[BUNSETSU_KEY].attrs["heads"] == [1, -1]


def test_unseen_words_and_missing_pos(trained):
    nlp, _ = trained
    words = ["未知語", "ぞ", "謎", "へ", "x", "y", "z", "。"]
    doc = Doc(nlp.vocab, words=words)  # no POS, no morph: unseen features only
    doc.spans[BUNSETSU_KEY] = [doc[0:2], doc[2:4], doc[4:5], doc[5:6], doc[6:8]]
    nlp.get_pipe("pke_dependency")(doc)
    assert check_bunsetsu_heads(doc.spans[BUNSETSU_KEY].attrs["heads"]) is None


def test_untrained_parser_is_a_clear_error():
    nlp = spacy.blank("xx")
    pipe = nlp.add_pipe("pke_dependency")
    doc = Doc(nlp.vocab, words=["本", "を", "読む"])
    doc.spans[BUNSETSU_KEY] = [doc[0:2], doc[2:3]]
    with pytest.raises(ValueError, match="not trained"):
        pipe(doc)


@pytest.mark.parametrize("config, message", [
    ({"classifier": "svm"}, "classifier must be one of"),
    ({"degree": 7}, "degree must be"),
    ({"sigma": -1.0}, "sigma must be"),
    ({"xi": 0}, "xi"),
    ({"C": 0.0}, "C must be"),
    ({"features": ["head", "colour"]}, "unknown bunsetsu feature groups"),
    ({"min_feature_count": 0}, "min_feature_count"),
])
def test_bad_config_values(config, message):
    nlp = spacy.blank("xx")
    with pytest.raises(Exception, match=message):
        nlp.add_pipe("pke_dependency", config=config)


def test_training_data_without_bunsetsu_is_a_clear_error():
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency")
    doc = Doc(nlp.vocab, words=["本", "を", "読む"])
    with pytest.raises(ValueError, match="BunsetsuCorpus"):
        nlp.initialize(lambda: [Example(doc, doc)])


def test_corrupt_and_mismatched_model_files(trained, tmp_path):
    nlp, _ = trained
    pipe = nlp.get_pipe("pke_dependency")
    nlp.to_disk(tmp_path / "m")
    clf = tmp_path / "m" / "pke_dependency" / "classifier"
    data = clf.read_bytes()
    clf.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError):
        spacy.load(tmp_path / "m")
    # a classifier of another form than the config names (files are framed: framed.wrap)
    from spacy_adf.serialization.framed import wrap
    pipe.set_classifier("pkb")
    clf.write_bytes(wrap("classifier", pipe.classifier.to_bytes()))
    pipe.set_classifier("pki")
    with pytest.raises(ValueError, match="config says 'pki'"):
        spacy.load(tmp_path / "m")
    # a feature vocabulary of another model
    clf.write_bytes(wrap("classifier", pipe.classifier.to_bytes()))
    import srsly
    (tmp_path / "m" / "pke_dependency" / "features").write_bytes(wrap("features", srsly.msgpack_dumps(["a", "b"])))
    with pytest.raises(ValueError, match="mismatched"):
        spacy.load(tmp_path / "m")
    (tmp_path / "m" / "pke_dependency" / "cfg").unlink()
    with pytest.raises(ValueError, match="missing file"):
        spacy.load(tmp_path / "m")


# ---------------------------------------------------------------- scorer


def test_scorer_counts_by_hand():
    nlp = spacy.blank("xx")
    ref = Doc(nlp.vocab, words=list("abcdef"))
    ref.spans[BUNSETSU_KEY] = [ref[0:1], ref[1:2], ref[2:4], ref[4:6]]
    ref.spans[BUNSETSU_KEY].attrs["heads"] = [1, 3, 3, -1]
    pred = Doc(nlp.vocab, words=list("abcdef"))
    pred.spans[BUNSETSU_KEY] = [pred[0:1], pred[1:2], pred[2:4], pred[4:6]]
    pred.spans[BUNSETSU_KEY].attrs["heads"] = [2, 3, 3, -1]
    s = score_bunsetsu_deps([Example(pred, ref)])
    assert s["bunsetsu_dep_acc"] == pytest.approx(2 / 3)
    assert s["bunsetsu_sent_acc"] == 0.0 and s["bunsetsu_seg_f"] == 1.0
    # predicted bunsetsu that differ: a wrong boundary loses that bunsetsu and arcs into it
    pred2 = Doc(nlp.vocab, words=list("abcdef"))
    pred2.spans[BUNSETSU_KEY] = [pred2[0:2], pred2[2:4], pred2[4:6]]
    pred2.spans[BUNSETSU_KEY].attrs["heads"] = [1, 2, -1]
    s2 = score_bunsetsu_deps([Example(pred2, ref)])
    assert s2["bunsetsu_dep_acc"] == pytest.approx(1 / 3)  # only c-d -> e-f survives
    assert s2["bunsetsu_seg_f"] == pytest.approx(2 * 2 / 7)


def _scored_example(nlp, key):
    ref = Doc(nlp.vocab, words=list("abc"))
    ref.spans[key] = [ref[0:1], ref[1:2], ref[2:3]]
    ref.spans[key].attrs["heads"] = [1, 2, -1]
    pred = Doc(nlp.vocab, words=list("abc"))
    pred.spans[key] = [pred[0:1], pred[1:2], pred[2:3]]
    pred.spans[key].attrs["heads"] = [2, 2, -1]
    return Example(pred, ref)


def test_score_uses_the_configured_scorer():
    from spacy.util import registry

    calls = []

    @registry.scorers("test_dependency.custom_scorer.v1")
    def make_custom_scorer():
        def scorer(examples, **kwargs):
            calls.append((len(list(examples)), kwargs))
            return {"custom": 42.0}

        return scorer

    nlp = spacy.blank("xx")
    pipe = nlp.add_pipe("pke_dependency", config={
        "spans_key": "chunks", "scorer": {"@scorers": "test_dependency.custom_scorer.v1"}})
    eg = _scored_example(nlp, "chunks")
    assert pipe.score([eg]) == {"custom": 42.0}
    assert calls == [(1, {"spans_key": "chunks"})]
    # the default scorer reads the component's span group, not its own default
    nlp2 = spacy.blank("xx")
    default = nlp2.add_pipe("pke_dependency", config={"spans_key": "chunks"})
    scores = default.score([_scored_example(nlp2, "chunks")])
    assert scores["bunsetsu_dep_acc"] == pytest.approx(1 / 2)
    # no scorer, no scores
    nlp3 = spacy.blank("xx")
    none = nlp3.add_pipe("pke_dependency", config={"scorer": None})
    assert none.score([_scored_example(nlp3, BUNSETSU_KEY)]) == {}


def test_feature_vocab():
    v = FeatureVocab.from_counts({"a": 3, "b": 1, "c": 2}, min_count=2)
    assert v.strings == ["a", "c"]
    assert v.lookup(["c", "zz", "a", "c"]) == [0, 1]
    with pytest.raises(ValueError):
        FeatureVocab(["a", "a"])


def test_id_path_equals_string_path(trained, corpus):
    """The inference features (ids per segment, concatenated) are exactly the
    vocabulary ids of the feature strings (the reference path)."""
    from spacy_adf.features.bunsetsu import pair_ids, segment_ids

    nlp, _ = trained
    parser = nlp.get_pipe("pke_dependency").parser
    fz, vocab = parser.featurizer, parser.vocab
    distance = [vocab.ids.get(s, -1) for s in ("dist=1", "dist=2-5", "dist=6+")]
    n = 0
    for ref in bunsetsu_docs(corpus / "dev.knp", nlp.vocab):
        spans = ref.spans[BUNSETSU_KEY]
        segs = fz.segments(ref, spans)
        seg_ids = segment_ids(fz, segs, vocab)
        for state, pairs, _ in oracle_rounds(spans.attrs["heads"]):
            for i, j in pairs:
                expected = vocab.lookup(fz.pair(segs, i, j, state.children))
                assert sorted(set(pair_ids(fz, seg_ids, distance, i, j, state.children))) == expected
                n += 1
    assert n > 50


def test_pipeline_without_gold_bunsetsu(corpus):
    """tokens + POS -> adf_tagger bunsetsu chunker -> pke_dependency, on Docs
    that have no bunsetsu: every Doc gets a covering group and a valid tree."""
    from spacy_adf.optimizers.adf import ADF

    nlp = spacy.blank("xx")
    nlp.add_pipe("adf_tagger", name="bunsetsu_chunker", config={
        "target": "spans:bunsetsu", "scheme": "BIO", "covering": True,
        "model": {"templates": ["w[0]", "t[0]", "t[-1]", "t[-1]|t[0]", "w[-1]"]}})
    nlp.add_pipe("pke_dependency", config={"degree": 2})
    refs = list(bunsetsu_docs(corpus / "train.knp", nlp.vocab))
    train = [Example(make_predicted(r, predicted_bunsetsu=False), r) for r in refs]
    nlp.initialize(lambda: train)
    opt = ADF(0.5, sigma=None, L2=0.0, window=50)
    for _ in range(3):
        for eg in train:
            nlp.update([eg], sgd=opt)
    dev = [Example(make_predicted(r, predicted_bunsetsu=False), r)
           for r in bunsetsu_docs(corpus / "dev.knp", nlp.vocab)]
    scores = nlp.evaluate(dev)
    assert scores["bunsetsu_seg_f"] == 1.0
    assert scores["bunsetsu_dep_acc"] > 0.9
    for doc in nlp.pipe(make_predicted(eg.reference, predicted_bunsetsu=False) for eg in dev):
        assert check_bunsetsu_heads(doc.spans[BUNSETSU_KEY].attrs["heads"]) is None
        assert len(list(doc.sents)) == 1
