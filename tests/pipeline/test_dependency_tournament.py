"""pke_dependency with ``algorithm = "tournament"``: the step-ladder
tournament (the training oracle `models/tournament.py`, the parse
`kernels/tournament.pyx` and its test oracle in
`tests.helpers.reference_parsers`), its games' features, the component's
training, serialization and bad input. Synthetic corpora
(tests.helpers.dep_data)."""
import random

import pytest
import spacy

from spacy_adf.corpora.bunsetsu import bunsetsu_docs, make_predicted
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY, check_bunsetsu_heads
from spacy_adf.models.tournament import candidates, oracle_games

from tests.helpers.dep_data import corpus_examples, knp_text
from tests.helpers.reference_parsers import game_ids, reference_path, segment_ids, tournament_parse
from tests.pipeline.test_dependency import random_tree


def _non_crossing_heads(heads, i):
    """Brute force: the j > i that i may head to without crossing an arc of
    the segments right of it (every k strictly between keeps its head <= j)."""
    n = len(heads)
    return [j for j in range(i + 1, n) if all(heads[k] <= j and heads[k] != -1 for k in range(i + 1, j))]


# ---------------------------------------------------------------- algorithm


def test_candidates_are_exactly_the_non_crossing_heads():
    rng = random.Random(0)
    for _ in range(500):
        heads = random_tree(rng, rng.randint(2, 14))
        for i in range(len(heads) - 1):
            assert candidates(heads, i) == _non_crossing_heads(heads, i)


def test_oracle_games_rebuild_random_projective_trees():
    rng = random.Random(1)
    for _ in range(2000):
        heads = random_tree(rng, rng.randint(0, 14))
        games = {(i, a, b): wins for i, a, b, wins in oracle_games(heads)}
        for i, a, b in games:
            assert heads[i] in (a, b) and a < b
        # the gold head beats every other candidate, so the ladder's winner is it
        parsed = tournament_parse(len(heads), lambda h, i, a, b: b == heads[i])
        assert parsed == heads


@pytest.mark.parametrize("answer", ["near", "far", "random"])
def test_any_answers_give_a_head_final_projective_tree(answer):
    rng = random.Random(2)
    for n in list(range(0, 12)) + [60]:
        games = []

        def play(heads, i, a, b):
            assert i < a < b and a in candidates(heads, i) and b in candidates(heads, i)
            games.append(i)
            return answer == "far" or (answer == "random" and rng.random() < 0.5)

        heads = tournament_parse(n, play)
        assert len(heads) == n
        if n:
            assert check_bunsetsu_heads(heads) is None
        if answer == "near" and n:
            assert heads[:-1] == list(range(1, n))
    with pytest.raises(ValueError):
        tournament_parse(-1, lambda *a: True)


# ---------------------------------------------------------------- the component


def _train(corpus, **config):
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"algorithm": "tournament", **config})
    train = corpus_examples(nlp, corpus / "train.knp")
    nlp.initialize(lambda: train)
    return nlp, train


@pytest.fixture(scope="module")
def trained(dep_corpus):
    return _train(dep_corpus, degree=2, classifier="pki")


@pytest.fixture(scope="module")
def random_refs(trained, tmp_path_factory):
    path = tmp_path_factory.mktemp("tournament") / "random.knp"
    path.write_text(knp_text(300, seed=11, prefix="rnd"), encoding="utf8")
    return list(bunsetsu_docs(path, trained[0].vocab))


def _heads(nlp, refs, path="cython", n_threads=1, batch_size=64):
    """Heads and token trees from the component ("cython") or the reference ("python")."""
    pipe = nlp.get_pipe("pke_dependency")
    old, pipe.n_threads = pipe.n_threads, n_threads
    try:
        if path == "cython":
            docs = list(pipe.pipe([make_predicted(r) for r in refs], batch_size=batch_size))
        else:
            with reference_path(pipe):
                docs = list(pipe.pipe([make_predicted(r) for r in refs], batch_size=batch_size))
    finally:
        pipe.n_threads = old
    return [(d.spans[BUNSETSU_KEY].attrs["heads"], d.to_array(["HEAD", "DEP"]).tolist()) for d in docs]


def test_learns_the_training_data_to_zero_errors(trained, dep_corpus):
    nlp, train = trained
    assert nlp.get_pipe("pke_dependency").cfg["algorithm"] == "tournament"
    assert nlp.evaluate(train)["bunsetsu_dep_acc"] == 1.0
    dev = corpus_examples(nlp, dep_corpus / "dev.knp")
    assert nlp.evaluate(dev)["bunsetsu_dep_acc"] > 0.9


def test_the_classifier_reads_two_inputs_per_feature(trained):
    parser = trained[0].get_pipe("pke_dependency").plain_model
    assert parser.n_inputs == 2 * len(parser.vocab)
    assert parser.support_vectors.n_features == parser.n_inputs


@pytest.mark.parametrize("degree", [2, 3])
@pytest.mark.parametrize("kind", ["pkb", "pki", "pke"])
def test_cython_path_equals_the_reference(dep_corpus, random_refs, degree, kind):
    nlp, _ = _train(dep_corpus, degree=degree, classifier=kind, sigma=0.001 if kind == "pke" else 0.0)
    reference = _heads(nlp, random_refs, path="python")
    assert _heads(nlp, random_refs) == reference
    assert _heads(nlp, random_refs, n_threads=2, batch_size=300) == reference


def test_game_ids_are_the_ids_of_the_game_strings(trained, dep_corpus):
    nlp, _ = trained
    parser = nlp.get_pipe("pke_dependency").plain_model
    fz, vocab = parser.featurizer, parser.vocab
    distance = [vocab.ids.get(s, -1) for s in ("dist=1", "dist=2-5", "dist=6+")]
    n = 0
    for ref in bunsetsu_docs(dep_corpus / "dev.knp", nlp.vocab):
        spans = ref.spans[BUNSETSU_KEY]
        segs = fz.segments(ref, spans)
        ids = segment_ids(fz, segs, vocab)
        for i, a, b, _ in oracle_games(spans.attrs["heads"]):
            near, far = fz.game(segs, i, a, b)
            expected = vocab.lookup(near) + [f + len(vocab) for f in vocab.lookup(far)]
            assert sorted(set(game_ids(fz, ids, distance, i, a, b, len(vocab)))) == expected
            n += 1
    assert n > 50


def test_round_trips_give_identical_parses(trained, random_refs, tmp_path):
    nlp, _ = trained
    expected = _heads(nlp, random_refs)
    nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m")
    assert loaded.get_pipe("pke_dependency").cfg["algorithm"] == "tournament"
    assert _heads(loaded, random_refs) == expected
    again = spacy.blank("xx")
    again.add_pipe("pke_dependency")  # the cascade by default: the bytes' cfg makes it a tournament
    again.get_pipe("pke_dependency").from_bytes(nlp.get_pipe("pke_dependency").to_bytes())
    assert _heads(again, random_refs) == expected


def test_training_is_deterministic(dep_corpus, trained, random_refs):
    nlp, _ = _train(dep_corpus, degree=2, classifier="pki")
    assert _heads(nlp, random_refs) == _heads(trained[0], random_refs)


def test_online_trainer(dep_corpus, random_refs):
    nlp, train = _train(dep_corpus, degree=2, classifier="pke", trainer="online", sigma=0.0)
    assert nlp.evaluate(train)["bunsetsu_dep_acc"] > 0.97
    assert _heads(nlp, random_refs, path="python") == _heads(nlp, random_refs)


# ---------------------------------------------------------------- bad input


def test_bad_algorithm_is_a_clear_error():
    nlp = spacy.blank("xx")
    with pytest.raises(ValueError, match=r"\[pke_dependency\] algorithm must be one of"):
        nlp.add_pipe("pke_dependency", config={"algorithm": "eisner"})


def test_a_cfg_without_its_algorithm_is_refused(dep_corpus, tmp_path):
    import json

    from spacy_adf.serialization.parts import add_cfg_checksum

    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pki"})
    train = corpus_examples(nlp, dep_corpus / "train.knp")
    nlp.initialize(lambda: train)
    nlp.to_disk(tmp_path / "old")
    cfg_path = tmp_path / "old" / "pke_dependency" / "cfg"
    cfg = json.loads(cfg_path.read_bytes())
    cfg.pop("checksum", None)
    del cfg["algorithm"]
    cfg_path.write_bytes(add_cfg_checksum(json.dumps(cfg, ensure_ascii=False).encode("utf8")))
    with pytest.raises(ValueError, match="cfg is incomplete.*algorithm"):
        spacy.load(tmp_path / "old")


def test_a_cascade_classifier_under_a_tournament_cfg_is_an_error(trained, dep_corpus, tmp_path):
    nlp, _ = trained
    nlp.to_disk(tmp_path / "t")
    cascade = spacy.blank("xx")
    cascade.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pki"})
    train = corpus_examples(cascade, dep_corpus / "train.knp")
    cascade.initialize(lambda: train)
    cascade.to_disk(tmp_path / "c")
    for part in ("features", "support_vectors", "classifier"):  # a whole cascade model under the tournament cfg
        (tmp_path / "t" / "pke_dependency" / part).write_bytes((tmp_path / "c" / "pke_dependency" / part).read_bytes())
    with pytest.raises(ValueError, match=r"\[pke_dependency\]"):
        spacy.load(tmp_path / "t")


def test_sentences_too_short_for_a_game(dep_corpus):
    """Sentences of one or two bunsetsu play no game: nothing to learn from."""
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"algorithm": "tournament", "degree": 2})
    train = [eg for eg in corpus_examples(nlp, dep_corpus / "train.knp")
             if len(eg.reference.spans[BUNSETSU_KEY]) <= 2]
    assert train, "the synthetic corpus has sentences of two bunsetsu"
    with pytest.raises(ValueError, match="three or more"):
        nlp.initialize(lambda: train)
