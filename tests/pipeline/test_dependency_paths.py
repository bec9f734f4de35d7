"""pke_dependency's Cython path (`features/bunsetsu_fast.pyx` +
`kernels/cascade.pyx`) gives the trees of its test oracle, the Python
reference (`tests.helpers.reference_parsers`: feature strings, ids per
segment, cascaded chunking in Python). Synthetic corpora here; every KWDLC
test sentence in the slow test at the end (reads ../shared/data)."""
import pickle
import random

import pytest
import spacy
from spacy.tokens import Doc

from spacy_adf.corpora.bunsetsu import bunsetsu_docs, make_predicted
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY, bunsetsu_heads, check_bunsetsu_heads
from spacy_adf.ml import PLAIN_MODEL

from benchmarks.dependency_speed import CythonPathClock
from tests.helpers.dep_data import corpus_examples, knp_text
from tests.helpers.reference_parsers import reference_path


def _train(corpus, **config):
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config=config)
    train = corpus_examples(nlp, corpus / "train.knp")
    nlp.initialize(lambda: train)
    return nlp


@pytest.fixture(scope="module")
def models(dep_corpus):
    """Degree 2 and 3 parsers on the synthetic corpus (PKE, exact and pruned)."""
    return {2: _train(dep_corpus, degree=2, classifier="pke", sigma=0.0),
            3: _train(dep_corpus, degree=3, classifier="pke", sigma=0.001)}


@pytest.fixture(scope="module")
def random_refs(models, tmp_path_factory):
    """300 fresh random synthetic sentences (another seed than the training
    corpus: unseen combinations, longer sentences)."""
    path = tmp_path_factory.mktemp("deppaths") / "random.knp"
    path.write_text(knp_text(300, seed=11, prefix="rnd"), encoding="utf8")
    return list(bunsetsu_docs(path, models[2].vocab))


def _parse(nlp, docs, path, batch_size=64):
    """The Docs parsed by the component ("cython") or by the reference ("python")."""
    pipe = nlp.get_pipe("pke_dependency")
    if path == "cython":
        return list(pipe.pipe(docs, batch_size=batch_size))
    with reference_path(pipe):
        return list(pipe.pipe(docs, batch_size=batch_size))


def _trees(docs):
    """Bunsetsu heads and the token tree (HEAD, DEP) of each Doc."""
    return [(d.spans[BUNSETSU_KEY].attrs.get("heads") if BUNSETSU_KEY in d.spans else None,
             d.to_array(["HEAD", "DEP"]).tolist()) for d in docs]


def _both(nlp, make_docs, batch_size=64):
    ref = _trees(_parse(nlp, make_docs(), "python", batch_size))
    fast = _trees(_parse(nlp, make_docs(), "cython", batch_size))
    return ref, fast


@pytest.mark.parametrize("degree", [2, 3])
@pytest.mark.parametrize("kind", ["pkb", "pki", "pke"])
def test_same_trees_on_random_sentences(models, random_refs, degree, kind):
    nlp = models[degree]
    pipe = nlp.get_pipe("pke_dependency")
    pipe.set_classifier(kind)
    try:
        ref, fast = _both(nlp, lambda: [make_predicted(r) for r in random_refs])
    finally:
        pipe.set_classifier("pke")
    assert fast == ref
    assert all(check_bunsetsu_heads(h) is None for h, _ in fast)
    assert sum(h == r.spans[BUNSETSU_KEY].attrs["heads"] for (h, _), r in zip(fast, random_refs)) > 250


def _concat(vocab, refs, sent_starts=False):
    """One Doc of several sentences (no tree); is_sent_start set if asked."""
    words, pos, tags, morphs, bounds, starts = [], [], [], [], [], []
    for ref in refs:
        first = len(words)
        for span in ref.spans[BUNSETSU_KEY]:
            bounds.append((len(words), len(words) + len(span)))
            for t in span:
                words.append(t.text)
                pos.append(t.pos_)
                tags.append(t.tag_)
                morphs.append(str(t.morph))
                starts.append(len(words) - 1 == first)
    doc = Doc(vocab, words=words, pos=pos, tags=tags, morphs=morphs,
              sent_starts=starts if sent_starts else None)
    doc.spans[BUNSETSU_KEY] = [doc[s:e] for s, e in bounds]
    return doc


def test_same_trees_on_multi_sentence_docs(models, random_refs):
    """Sentences found by punctuation and by doc.sents, Docs of one to five
    sentences, several batch sizes."""
    nlp = models[3]
    rng = random.Random(3)
    groups, k = [], 0
    while k < len(random_refs):
        n = rng.randint(1, 5)
        groups.append(random_refs[k:k + n])
        k += n
    for sent_starts in (False, True):
        for batch_size in (1, 7, 1000):
            ref, fast = _both(nlp, lambda: [_concat(nlp.vocab, g, sent_starts) for g in groups], batch_size)
            assert fast == ref
    heads = fast[0][0]
    assert heads.count(-1) == len(groups[0])


def test_sentence_annotation_without_inner_starts_is_one_sentence(models, random_refs):
    """A Doc whose tokens after the first are all marked "not a sentence
    start" (as make_predicted's are) parses as the same Doc without
    sentence annotation, on both paths."""
    nlp = models[3]

    def docs(mark):
        out = []
        for ref in random_refs[:60]:
            doc = make_predicted(ref)
            if mark:
                for token in doc[1:]:
                    token.is_sent_start = False
            out.append(doc)
        return out

    ref_marked, fast_marked = _both(nlp, lambda: docs(True))
    ref_plain, fast_plain = _both(nlp, lambda: docs(False))
    assert fast_marked == ref_marked == ref_plain == fast_plain


def test_bad_and_small_inputs(models):
    """Empty Docs, one and two bunsetsu, a one-token Doc, unseen words without
    POS, mixed in one batch with normal Docs."""
    nlp = models[3]
    vocab = nlp.vocab

    def docs():
        out = [Doc(vocab, words=[])]
        one = Doc(vocab, words=["本", "を"])
        one.spans[BUNSETSU_KEY] = [one[0:2]]
        out.append(one)
        tok = Doc(vocab, words=["本"])
        tok.spans[BUNSETSU_KEY] = [tok[0:1]]
        out.append(tok)
        two = Doc(vocab, words=["本", "を", "読む"])
        two.spans[BUNSETSU_KEY] = [two[0:2], two[2:3]]
        out.append(two)
        unseen = Doc(vocab, words=["未知語", "ぞ", "謎", "へ", "x", "y", "z", "。"])
        unseen.spans[BUNSETSU_KEY] = [unseen[0:2], unseen[2:4], unseen[4:5], unseen[5:6], unseen[6:8]]
        out.append(unseen)
        # every token its own bunsetsu, unseen, with enders inside: several sentences
        odd = Doc(vocab, words=["甲", "。", "乙", "丙", "！", "丁"])
        odd.spans[BUNSETSU_KEY] = [odd[i:i + 1] for i in range(6)]
        out.append(odd)
        out.append(Doc(vocab, words=[]))
        return out

    ref, fast = _both(nlp, docs, batch_size=100)
    assert fast == ref
    # an empty Doc gets an empty tree: an empty span group with heads [] (issue 29)
    assert [h for h, _ in fast] == [[], [-1], [-1], [1, -1], fast[4][0], fast[5][0], []]
    assert check_bunsetsu_heads(fast[4][0]) is None
    assert fast[5][0].count(-1) == 3


def test_bad_spans_give_the_reference_errors(models):
    nlp = models[2]
    pipe = nlp.get_pipe("pke_dependency")
    doc = Doc(nlp.vocab, words=["本", "を", "読む"])
    with pytest.raises(ValueError, match=r"no doc.spans\['bunsetsu'\]"):
        pipe(doc)
    doc.spans[BUNSETSU_KEY] = [doc[0:2]]
    with pytest.raises(ValueError, match="ends at token 2"):
        pipe(doc)
    doc.spans[BUNSETSU_KEY] = [doc[0:1], doc[2:3]]
    with pytest.raises(ValueError, match="expected to start at 1"):
        pipe(doc)


def test_heads_edited_between_predict_and_set_annotations(models, random_refs):
    """set_annotations writes the heads it is given: edited heads are not
    overwritten by the trees predict made."""
    nlp = models[2]
    pipe = nlp.get_pipe("pke_dependency")
    docs = [make_predicted(r) for r in random_refs[:5] if len(r.spans[BUNSETSU_KEY]) >= 3]
    heads = pipe.predict(docs)
    n = len(heads[0])
    heads[0] = [n - 1] * (n - 1) + [-1]
    pipe.set_annotations(docs, heads)
    assert docs[0].spans[BUNSETSU_KEY].attrs["heads"] == heads[0]
    assert bunsetsu_heads(docs[0]) == heads[0]
    assert all(bunsetsu_heads(d) == h for d, h in zip(docs[1:], heads[1:]))


def test_counts_and_pickling(models, random_refs):
    nlp = models[3]
    pipe = nlp.get_pipe("pke_dependency")
    parser = pipe.plain_model
    with CythonPathClock(parser) as clock:
        _parse(nlp, [make_predicted(r) for r in random_refs], "cython")
    with reference_path(pipe) as reference:
        list(pipe.pipe([make_predicted(r) for r in random_refs]))
    assert reference.n_decisions == clock.n_questions and 0 < clock.n_calls <= clock.n_questions
    # the parser pickles (its token table pickles empty and refills)
    expected = _trees(_parse(nlp, [make_predicted(r) for r in random_refs], "cython"))
    pipe.model.attrs[PLAIN_MODEL] = pickle.loads(pickle.dumps(parser))  # the thinc Model carries it
    try:
        assert pipe.plain_model is not parser
        assert _trees(_parse(nlp, [make_predicted(r) for r in random_refs], "cython")) == expected
    finally:
        pipe.model.attrs[PLAIN_MODEL] = parser


def test_multiprocess_pipe(models, random_refs):
    nlp = models[2]
    single = _trees(nlp.pipe([make_predicted(r) for r in random_refs[:60]]))
    multi = _trees(nlp.pipe([make_predicted(r) for r in random_refs[:60]], n_process=2, batch_size=8))
    assert multi == single


@pytest.mark.slow
def test_same_heads_on_every_kwdlc_test_sentence(shared_data):
    """A degree-3 PKE parser trained on 300 KWDLC training sentences parses
    every KWDLC test sentence to the same trees on both paths (and PKB agrees
    with PKI on a sample, through the Cython path)."""
    from spacy.training import Example

    kwdlc = shared_data / "kwdlc"
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": 3, "classifier": "pke", "sigma": 0.001})
    train = [Example(make_predicted(r), r)
             for r in bunsetsu_docs(kwdlc / "train.knp", nlp.vocab, format="knp", limit=300)]
    nlp.initialize(lambda: train)
    refs = list(bunsetsu_docs(kwdlc / "test.knp", nlp.vocab, format="knp"))
    assert len(refs) > 2000
    ref, fast = _both(nlp, lambda: [make_predicted(r) for r in refs], batch_size=256)
    assert fast == ref
    # the whole test file as multi-sentence Docs of 10 sentences
    groups = [refs[k:k + 10] for k in range(0, len(refs), 10)]
    ref, fast = _both(nlp, lambda: [_concat(nlp.vocab, g) for g in groups], batch_size=32)
    assert fast == ref
    pipe = nlp.get_pipe("pke_dependency")
    for kind in ("pki", "pkb"):
        pipe.set_classifier(kind)
        ref, fast = _both(nlp, lambda: [make_predicted(r) for r in refs[:200]])
        assert fast == ref


def test_token_table_starts_afresh_when_full(models, random_refs, monkeypatch):
    from spacy_adf.models import bunsetsu_parser

    nlp = models[2]
    parser = nlp.get_pipe("pke_dependency").plain_model
    expected = _trees(_parse(nlp, [make_predicted(r) for r in random_refs[:40]], "cython"))
    monkeypatch.setattr(bunsetsu_parser, "MAX_TOKEN_TYPES", 5)
    old = parser._table
    assert len(old) > 5
    got = _trees(_parse(nlp, [make_predicted(r) for r in random_refs[:40]], "cython"))
    assert parser._table is not old and got == expected


def test_double_array_pke_gives_the_trees_of_pke(models, random_refs):
    """The double-array trie (no C-level decision: benchmarks.dependency
    parses with it on the reference) gives the trees of PKE's own trie."""
    from benchmarks.cython_modules import DoubleArrayPKE

    nlp = models[2]
    parser = nlp.get_pipe("pke_dependency").plain_model
    expected = _trees(_parse(nlp, [make_predicted(r) for r in random_refs[:50]], "cython"))
    pke = parser.classifier
    parser.classifier = DoubleArrayPKE(pke)
    try:
        assert _trees(_parse(nlp, [make_predicted(r) for r in random_refs[:50]], "python")) == expected
    finally:
        parser.classifier = pke


@pytest.mark.parametrize("batch_size", [7, 1000])
def test_two_threads_give_the_same_trees(models, random_refs, batch_size):
    """n_threads = 2 parses parts of a batch at once: the same trees and
    counts as one thread (small batches stay on one thread)."""
    nlp = models[3]
    pipe = nlp.get_pipe("pke_dependency")
    counts = {}
    trees = {}
    for n in (1, 2):
        pipe.n_threads = n
        try:
            with CythonPathClock(pipe.plain_model) as clock:
                trees[n] = _trees(_parse(nlp, [make_predicted(r) for r in random_refs], "cython", batch_size))
        finally:
            pipe.n_threads = 1
        counts[n] = (clock.n_questions, clock.n_calls)
    assert trees[2] == trees[1]
    assert counts[2] == counts[1]


def test_cascade_heads_in_threads_matches_one_thread(models, random_refs):
    """The kernel-level entry point, parts of unequal sizes included."""
    from spacy_adf.kernels.cascade import cascade_heads

    parser = models[3].get_pipe("pke_dependency").plain_model
    captured = []
    import spacy_adf.models.bunsetsu_parser as bp
    original = bp.cascade_heads
    bp.cascade_heads = lambda clf, *a, **k: captured.append(a) or original(clf, *a, **k)
    try:
        _parse(models[3], [make_predicted(r) for r in random_refs], "cython", batch_size=1000)
    finally:
        bp.cascade_heads = original
    (args,) = captured
    one = cascade_heads(parser.classifier, *args)
    for n in (2, 3, 8):
        heads, n_questions, n_calls = cascade_heads(parser.classifier, *args, n_threads=n)
        assert heads.tolist() == one[0].tolist() and (n_questions, n_calls) == one[1:]
    with pytest.raises(ValueError, match="n_threads"):
        cascade_heads(parser.classifier, *args, n_threads=0)


@pytest.mark.parametrize("bad", [0, -1, "2", 1.5, True])
def test_n_threads_must_be_a_positive_integer(bad):
    """Our check or spaCy's config validation (a ValueError too) names the setting."""
    nlp = spacy.blank("xx")
    with pytest.raises(ValueError, match="n_threads"):
        nlp.add_pipe("pke_dependency", config={"n_threads": bad})


def test_n_threads_is_a_setting_not_saved_with_the_model(models, tmp_path):
    nlp = models[3]
    nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m", config={"components": {"pke_dependency": {"n_threads": 2}}})
    assert loaded.get_pipe("pke_dependency").n_threads == 2
    assert "n_threads" not in loaded.get_pipe("pke_dependency").cfg


def test_head_words_must_be_one_per_segment():
    """The coordination features read one head word per segment: another
    count is a clear error, None means no coordination features."""
    from spacy_adf.kernels.sentence_parts import head_words

    assert head_words(None, 5).shape == (0,)
    assert head_words([1, 2, 3], 3).dtype.name == "uint64"
    with pytest.raises(ValueError, match="one head word per segment"):
        head_words([1, 2], 3)
