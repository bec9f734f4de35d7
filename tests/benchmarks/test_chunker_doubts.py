"""benchmarks.chunker_doubts: its ranking measures, and the game margins it reads
from a tournament parser (a synthetic corpus, tests.helpers.dep_data)."""
import math

import pytest
import spacy

from benchmarks.chunker_doubts import GameMargins, auc, best_net, parse_score
from spacy_adf.corpora.bunsetsu import bunsetsu_docs, make_predicted
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY

from tests.helpers.dep_data import corpus_examples


def test_auc_of_perfect_reversed_and_tied_rankings():
    gold = [True, False, True, False]
    assert auc(gold, [4, 1, 3, 2]) == 1.0
    assert auc(gold, [1, 4, 2, 3]) == 0.0
    assert auc(gold, [1, 1, 1, 1]) == 0.5
    assert math.isnan(auc([True, True], [1, 2]))


def test_best_net_takes_the_best_prefix_or_nothing():
    # ranked: T T F T F F -> nets 1 2 1 2 1 0: the first best prefix is two long
    assert best_net([True, True, False, True, False, False], [6, 5, 4, 3, 2, 1]) == {
        "net": 2, "taken": 2, "gold_taken": 2}
    assert best_net([False, True], [2, 1]) == {"net": 0, "taken": 0, "gold_taken": 0}
    assert best_net([], []) == {"net": 0, "taken": 0, "gold_taken": 0}


def test_parse_score_prefers_confident_games():
    assert parse_score([], 1.0) == 0.0
    assert parse_score([3.0, -3.0], 1.0) > parse_score([0.1, -0.1], 1.0)
    assert parse_score([0.0], 1.0) == pytest.approx(-math.log(2))


@pytest.fixture(scope="module")
def tournament(dep_corpus):
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"algorithm": "tournament", "degree": 2, "classifier": "pki"})
    train = corpus_examples(nlp, dep_corpus / "train.knp")
    nlp.initialize(lambda: train)
    return nlp


def test_game_margins_give_the_components_heads(tournament, dep_corpus):
    pipe = tournament.get_pipe("pke_dependency")
    margins_of = GameMargins(pipe.plain_model)
    refs = list(bunsetsu_docs(dep_corpus / "dev.knp", tournament.vocab))[:40]
    parsed = list(pipe.pipe([make_predicted(r) for r in refs]))
    played = 0
    for ref, doc in zip(refs, parsed):
        spans = list(ref.spans[BUNSETSU_KEY])
        heads, margins = margins_of(ref, [s.start for s in spans])
        assert heads == doc.spans[BUNSETSU_KEY].attrs["heads"]
        played += len(margins)
        if len(spans) <= 2:
            assert margins == []
    assert played > 0


def test_game_margins_refuse_a_cascade_parser(dep_corpus):
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"algorithm": "cascade", "degree": 2, "classifier": "pki"})
    nlp.initialize(lambda: corpus_examples(nlp, dep_corpus / "train.knp"))
    with pytest.raises(ValueError, match="tournament"):
        GameMargins(nlp.get_pipe("pke_dependency").plain_model)
