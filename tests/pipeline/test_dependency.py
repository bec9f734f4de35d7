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
from spacy_adf.lang.ja.bunsetsu import (
    BUNSETSU_KEY, bunsetsu_heads, bunsetsu_sentences, check_bunsetsu_heads, head_sentences,
)
from spacy_adf.models.cascaded_chunking import oracle_rounds
from spacy_adf.scorers.bunsetsu_deps import score_bunsetsu_deps

from tests.helpers.dep_data import corpus_examples
from tests.helpers.reference_parsers import cascaded_parse, oracle_parse, pair_ids, segment_ids

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
def corpus(dep_corpus):
    return dep_corpus


_examples = corpus_examples


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
        X, _ = pipe.plain_model.examples([(eg.reference, eg.reference.spans[BUNSETSU_KEY],
                                           eg.reference.spans[BUNSETSU_KEY].attrs["heads"]) for eg in train[:10]],
                                          build_vocab=False)
        scores[kind] = [pipe.plain_model.classifier.decision(X[k].indices.tolist()) for k in range(X.shape[0])]
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


def test_initialize_reads_the_named_corpus(corpus):
    """corpus = "corpora.train" (the shipped config's, for a streamed training loop):
    initialize reads every Example of that reader, whatever get_examples gives."""
    models = []
    for use_corpus in (False, True):
        nlp = spacy.blank("xx")
        nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pke", "sigma": 0.0})
        nlp.config["corpora"] = {"train": {"@readers": "spacy_adf.BunsetsuCorpus.v1",
                                           "path": str(corpus / "train.knp")}}
        pipe = nlp.get_pipe("pke_dependency")
        if use_corpus:
            pipe.initialize(lambda: _examples(nlp, corpus / "train.knp")[:2], nlp=nlp, corpus="corpora.train")
        else:
            train = _examples(nlp, corpus / "train.knp")
            pipe.initialize(lambda: train, nlp=nlp)
        models.append(pipe.to_bytes(exclude=["cfg"]))
    assert models[0] == models[1]


def test_merged_duplicates_train_the_same_parser(corpus, trained):
    """merge_duplicates (libsvm): each distinct decision once, weighted by its
    count; the same SVM, so the same parses of the training data."""
    nlp_plain, train = trained
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pki", "merge_duplicates": True})
    train = _examples(nlp, corpus / "train.knp")
    nlp.initialize(lambda: train)
    pipe = nlp.get_pipe("pke_dependency")
    stats = pipe.cfg["stats"]["training"]
    assert pipe.cfg["merge_duplicates"] is True
    assert stats["n_unique"] <= stats["n_examples"] == pipe.cfg["stats"]["n_decisions"]
    assert nlp.evaluate(train)["bunsetsu_dep_acc"] == 1.0
    assert _heads(_parse(nlp, train)) == _heads(_parse(nlp_plain, train))
    loaded = spacy.blank("xx")
    loaded.add_pipe("pke_dependency")
    loaded.get_pipe("pke_dependency").from_bytes(pipe.to_bytes())
    assert loaded.get_pipe("pke_dependency").cfg["merge_duplicates"] is True


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
    clf.write_bytes(wrap("classifier", pipe.plain_model.classifier.to_bytes()))
    pipe.set_classifier("pki")
    with pytest.raises(ValueError, match="config says 'pki'"):
        spacy.load(tmp_path / "m")
    # a feature vocabulary of another model
    clf.write_bytes(wrap("classifier", pipe.plain_model.classifier.to_bytes()))
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


def test_scorer_compares_characters_not_tokens():
    """Raw text in: the predicted Doc has its own tokens; a bunsetsu is
    matched by where it ends, its head by where the head ends."""
    nlp = spacy.blank("xx")
    ref = Doc(nlp.vocab, words=list("abcdef"), spaces=[False] * 6)
    ref.spans[BUNSETSU_KEY] = [ref[0:1], ref[1:2], ref[2:4], ref[4:6]]
    ref.spans[BUNSETSU_KEY].attrs["heads"] = [1, 3, 3, -1]
    pred = Doc(nlp.vocab, words=["ab", "cd", "ef"], spaces=[False] * 3)
    pred.spans[BUNSETSU_KEY] = [pred[0:1], pred[1:2], pred[2:3]]
    pred.spans[BUNSETSU_KEY].attrs["heads"] = [1, 2, -1]
    s = score_bunsetsu_deps([Example(pred, ref)])
    assert s["bunsetsu_dep_acc"] == pytest.approx(1 / 3)  # as with the same tokens
    assert s["bunsetsu_seg_f"] == pytest.approx(2 * 2 / 7)
    # a bunsetsu that ends right counts though it starts elsewhere
    pred3 = Doc(nlp.vocab, words=list("abcdef"), spaces=[False] * 6)
    pred3.spans[BUNSETSU_KEY] = [pred3[0:1], pred3[1:2], pred3[2:3], pred3[3:4], pred3[4:6]]
    pred3.spans[BUNSETSU_KEY].attrs["heads"] = [1, 4, 3, 4, -1]
    s3 = score_bunsetsu_deps([Example(pred3, ref)])
    assert s3["bunsetsu_dep_acc"] == 1.0
    assert s3["bunsetsu_sent_acc"] == 0.0  # not the gold bunsetsu
    assert s3["bunsetsu_seg_f"] == pytest.approx(2 * 3 / 9)


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
    """The reference parser's features (ids per segment, concatenated) are
    exactly the vocabulary ids of the training feature strings."""
    nlp, _ = trained
    parser = nlp.get_pipe("pke_dependency").plain_model
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


# ---------------------------------------------------------------- sentences


def _concat(vocab, refs, drop=(), sent_starts=False):
    """One Doc of the sentences `refs` (words, POS, morphs, bunsetsu spans, no
    tree), leaving out tokens whose text is in `drop`; with `sent_starts`,
    token.is_sent_start marks the start of each ref (else no sentence
    annotation). Returns (doc, token range of each ref)."""
    words, spaces, tags, pos, morphs, lemmas, bounds, ranges, starts = [], [], [], [], [], [], [], [], []
    for ref in refs:
        first = len(words)
        for span in ref.spans[BUNSETSU_KEY]:
            start = len(words)
            for t in span:
                if t.text in drop:
                    continue
                words.append(t.text)
                spaces.append(bool(t.whitespace_))
                tags.append(t.tag_)
                pos.append(t.pos_)
                morphs.append(str(t.morph))
                lemmas.append(t.lemma_)
                starts.append(len(words) - 1 == first)
            bounds.append((start, len(words)))
        ranges.append((first, len(words)))
    doc = Doc(vocab, words=words, spaces=spaces, tags=tags, pos=pos, morphs=morphs, lemmas=lemmas,
              sent_starts=starts if sent_starts else None)
    doc.spans[BUNSETSU_KEY] = [doc[s:e] for s, e in bounds]
    return doc, ranges


def _check_sentences(doc, ranges, alone):
    """Each token range in `ranges` is one sentence of `doc`, parsed as the
    heads in `alone` (one list per range, numbered from the sentence start)."""
    group = doc.spans[BUNSETSU_KEY]
    heads = group.attrs["heads"]
    bounds = [(span.start, span.end) for span in group]
    first = 0
    for (start, end), expected in zip(ranges, alone):
        last = first + len(expected)  # the sentence's bunsetsu are first..last-1
        assert bounds[first][0] == start and bounds[last - 1][1] == end
        assert [h - first if h >= 0 else -1 for h in heads[first:last]] == expected
        assert all(first <= h < last for h in heads[first:last - 1])
        first = last
    assert first == len(group)
    assert heads.count(-1) == len(ranges)
    assert [(s.start, s.end) for s in doc.sents] == list(ranges)
    roots = [t.i for t in doc if t.dep_ == "ROOT"]
    assert len(roots) == len(ranges) and all(s <= r < e for r, (s, e) in zip(roots, ranges))
    assert bunsetsu_heads(doc) == heads


@pytest.fixture(scope="module")
def dev_refs(trained, corpus):
    nlp, _ = trained
    return list(bunsetsu_docs(corpus / "dev.knp", nlp.vocab))


def _alone(pipe, vocab, refs, **kwargs):
    return [pipe(_concat(vocab, [ref], **kwargs)[0]).spans[BUNSETSU_KEY].attrs["heads"] for ref in refs]


def test_multi_sentence_doc_is_parsed_sentence_by_sentence(trained, dev_refs):
    nlp, _ = trained
    pipe = nlp.get_pipe("pke_dependency")
    groups = [dev_refs[0:3], dev_refs[3:5], dev_refs[5:8], dev_refs[8:9]]
    docs = [_concat(nlp.vocab, refs) for refs in groups]
    assert not docs[0][0].has_annotation("SENT_START")  # boundaries by punctuation
    # a single sentence parses as it did as a Doc of its own (make_predicted)
    assert _alone(pipe, nlp.vocab, dev_refs[:9]) == _heads(_parse(nlp, [Example(r, r) for r in dev_refs[:9]]))
    for refs, (doc, ranges) in zip(groups, docs):
        pipe(doc)
        _check_sentences(doc, ranges, _alone(pipe, nlp.vocab, refs))
    # a batch of multi-sentence Docs (one parse_docs call) gives the same heads
    again = [_concat(nlp.vocab, refs)[0] for refs in groups]
    assert _heads(list(pipe.pipe(again, batch_size=8))) == _heads([doc for doc, _ in docs])
    # the trees survive a re-parse (doc.sents now comes from the first parse)
    doc, ranges = docs[0]
    pipe(doc)
    _check_sentences(doc, ranges, _alone(pipe, nlp.vocab, groups[0]))


def test_doc_sents_boundaries_are_respected(trained, dev_refs):
    nlp, _ = trained
    pipe = nlp.get_pipe("pke_dependency")
    refs = dev_refs[:3]
    # without the 。 no punctuation marks the ends: one sentence ...
    doc, ranges = _concat(nlp.vocab, refs, drop={"。"})
    pipe(doc)
    assert doc.spans[BUNSETSU_KEY].attrs["heads"].count(-1) == 1 and len(list(doc.sents)) == 1
    # ... unless is_sent_start says where the sentences start
    doc, ranges = _concat(nlp.vocab, refs, drop={"。"}, sent_starts=True)
    assert doc.has_annotation("SENT_START")
    pipe(doc)
    _check_sentences(doc, ranges, _alone(pipe, nlp.vocab, refs, drop={"。"}))
    # given sentence annotation wins over punctuation: all one sentence
    doc, _ = _concat(nlp.vocab, refs)
    for t in doc[1:]:
        t.is_sent_start = False
    pipe(doc)
    assert doc.spans[BUNSETSU_KEY].attrs["heads"].count(-1) == 1
    assert [(s.start, s.end) for s in doc.sents] == [(0, len(doc))]
    # a boundary inside a bunsetsu ends the sentence after that bunsetsu
    doc, ranges = _concat(nlp.vocab, refs, sent_starts=True)
    group = doc.spans[BUNSETSU_KEY]
    ends = {e for _, e in ranges}
    k = next(k for k, span in enumerate(group) if len(span) > 1 and span.end not in ends)
    doc[group[k].start + 1].is_sent_start = True
    sentences = bunsetsu_sentences(doc, group)
    assert len(sentences) == 4 and (k + 1) in [e for _, e in sentences]
    pipe(doc)
    heads = group.attrs["heads"]
    assert heads[k] == -1 and heads.count(-1) == 4 and head_sentences(heads) == sentences
    assert group[k].end in [s.end for s in doc.sents] and len(list(doc.sents)) == 4
    for s, e in sentences:
        assert all(s <= h < e for h in heads[s:e - 1])


def test_sentence_boundary_rule_by_punctuation():
    nlp = spacy.blank("xx")

    def sentences(bunsetsu):
        words = [w for b in bunsetsu for w in b]
        doc = Doc(nlp.vocab, words=words)
        spans, i = [], 0
        for b in bunsetsu:
            spans.append(doc[i:i + len(b)])
            i += len(b)
        return bunsetsu_sentences(doc, spans)

    assert sentences([["a", "。"], ["b", "！", "？"], ["c"]]) == [(0, 1), (1, 2), (2, 3)]
    assert sentences([["a", "。", "」"], ["b", "?"], ["c", "."], ["d", "！？"]]) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    # an ender before the end of a bunsetsu (a quotation: 。」と) ends nothing
    assert sentences([["「", "a", "。", "」", "と"], ["言う", "。"]]) == [(0, 2)]
    # nor inside brackets or quotes: titles, quoted sentences
    assert sentences([["『", "a", "！"], ["b", "』", "を"], ["見る", "。"]]) == [(0, 3)]
    assert sentences([["「", "a", "。"], ["b", "。", "」"], ["c", "。"]]) == [(0, 2), (2, 3)]
    # closing brackets and whitespace in the next bunsetsu join the sentence; an unclosed bracket is ignored
    assert sentences([["a", "。"], ["」", " "], ["（", "b", "。"], ["c"]]) == [(0, 2), (2, 3), (3, 4)]
    assert sentences([["a"], ["b"]]) == [(0, 2)]
    assert sentences([]) == []


def test_twenty_thousand_bunsetsu_doc(trained, dev_refs):
    nlp, _ = trained
    pipe = nlp.get_pipe("pke_dependency")
    alone = _alone(pipe, nlp.vocab, dev_refs)
    refs, expected, n = [], [], 0
    while n < 20000:
        k = len(refs) % len(dev_refs)
        refs.append(dev_refs[k])
        expected.append(alone[k])
        n += len(alone[k])
    doc, ranges = _concat(nlp.vocab, refs)
    assert len(doc.spans[BUNSETSU_KEY]) >= 20000
    pipe(doc)
    _check_sentences(doc, ranges, expected)


def test_gold_docs_with_several_roots_train_as_their_sentences(trained, corpus):
    """Gold Docs of three sentences each (one root per sentence) train the
    same parser as the sentences one Doc each."""
    from spacy_adf.lang.ja.bunsetsu import set_bunsetsu_tree

    nlp1, train = trained
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pki"})
    refs = [eg.reference for eg in train]
    examples = []
    for k in range(0, len(refs), 3):
        group = refs[k:k + 3]
        ref, _ = _concat(nlp.vocab, group)
        heads, offset = [], 0
        for r in group:
            hs = r.spans[BUNSETSU_KEY].attrs["heads"]
            heads += [h + offset if h >= 0 else -1 for h in hs]
            offset += len(hs)
        set_bunsetsu_tree(ref, heads, sentences=head_sentences(heads))
        assert len(list(ref.sents)) == len(group)
        examples.append(Example(make_predicted(ref), ref))
    nlp.initialize(lambda: examples)
    a, b = nlp.get_pipe("pke_dependency").plain_model, nlp1.get_pipe("pke_dependency").plain_model
    assert a.features_to_bytes() == b.features_to_bytes()
    assert a.support_vectors_to_bytes() == b.support_vectors_to_bytes()
    assert nlp.evaluate(examples)["bunsetsu_dep_acc"] == 1.0


def test_set_bunsetsu_tree_with_sentences():
    from spacy_adf.lang.ja.bunsetsu import check_sentence_heads, set_bunsetsu_tree

    nlp = spacy.blank("xx")
    doc = Doc(nlp.vocab, words=list("abcde"))
    doc.spans[BUNSETSU_KEY] = [doc[i:i + 1] for i in range(5)]
    assert head_sentences([1, -1, 4, 4, -1]) == [(0, 2), (2, 5)]
    assert set_bunsetsu_tree(doc, [1, -1, 4, 4, -1], sentences=[(0, 2), (2, 5)]) == [1, -1, 4, 4, -1]
    assert [(s.start, s.end) for s in doc.sents] == [(0, 2), (2, 5)]
    assert check_sentence_heads([2, -1, 4, 4, -1], [(0, 2), (2, 5)]) is not None
    with pytest.raises(ValueError, match="cross a sentence end"):
        set_bunsetsu_tree(doc, [2, -1, 4, 4, -1], sentences=[(0, 2), (2, 5)])
    assert set_bunsetsu_tree(doc, [2, -1, 4, 4, -1], sentences=[(0, 2), (2, 5)], repair=True) == [1, -1, 4, 4, -1]
    with pytest.raises(ValueError, match="bunsetsu 1 is a root"):  # without sentences: one sentence
        set_bunsetsu_tree(doc, [1, -1, 4, 4, -1])


def test_scorer_with_multi_sentence_docs():
    nlp = spacy.blank("xx")

    def doc(heads):
        d = Doc(nlp.vocab, words=list("abcde"))
        d.spans[BUNSETSU_KEY] = [d[i:i + 1] for i in range(5)]
        d.spans[BUNSETSU_KEY].attrs["heads"] = heads
        return d

    gold = [1, -1, 4, 4, -1]  # two sentences: each one's last bunsetsu is left out
    s = score_bunsetsu_deps([Example(doc(gold), doc(gold))])
    assert s["bunsetsu_dep_acc"] == 1.0 and s["bunsetsu_sent_acc"] == 1.0
    s = score_bunsetsu_deps([Example(doc([1, -1, 3, 4, -1]), doc(gold))])
    assert s["bunsetsu_dep_acc"] == pytest.approx(2 / 3) and s["bunsetsu_sent_acc"] == 0.5
    # one predicted sentence over two gold ones: the arc across the end spoils both
    s = score_bunsetsu_deps([Example(doc([1, 4, 4, 4, -1]), doc(gold))])
    assert s["bunsetsu_dep_acc"] == 1.0 and s["bunsetsu_sent_acc"] == 0.0


def test_context_particle_and_coordination_strings(corpus, trained):
    """The context group reads the neighbours within the sentence (BOS / EOS
    at its ends), particles every particle token, coordination equal head
    words of (i, j), (i - 1, j) and (i, j + 1)."""
    from spacy_adf.features.bunsetsu import BunsetsuFeaturizer, Segment, coordination, token_fields

    nlp, _ = trained
    fz = BunsetsuFeaturizer()
    n_particles = 0
    for ref in bunsetsu_docs(corpus / "dev.knp", nlp.vocab):
        spans = list(ref.spans[BUNSETSU_KEY])
        segs = fz.segments(ref, spans)
        assert "m.pl=BOS" in segs[0].mod and "h.nf=EOS" in segs[-1].head
        for b, (span, seg) in enumerate(zip(spans, segs)):
            assert "m.last=" + span[-1].text in seg.mod and "h.first=" + span[0].text in seg.head
            if b > 0:
                assert "m.pl=" + spans[b - 1][-1].text in seg.mod
            if b + 1 < len(spans):
                assert "h.nf=" + spans[b + 1][0].text in seg.head
            particles = [t.text for t in span if token_fields(t)[1] == "助詞"]
            n_particles += len(particles)
            assert {"m.pa=" + p for p in particles} <= set(seg.mod)
    assert n_particles > 10
    segs = [Segment([], [], "-", "-", None, [], False, w) for w in ("a", "b", "a", "b", "a")]
    assert coordination(segs, 1, 3) == ["co.ij"]
    assert coordination(segs, 2, 3) == ["co.pj", "co.in"]
    assert coordination(segs, 0, 1) == ["co.in"]
    assert coordination(segs, 3, 4) == ["co.pj"]
    assert "co.ij" not in BunsetsuFeaturizer(["head"])._head_side(segs, 1, 3, 1)
