"""The pairwise (one-against-one) layer over the binary kernel classifiers:
voting and its tie rule, the forms agreeing, building, serialization."""
import numpy
import pytest
import scipy.sparse

from spacy_adf.kernels import PKB, PairwiseClassifier, SupportVectors, train_primal, train_svm
from spacy_adf.kernels.pairwise import class_pairs, n_pairs
from tests.helpers.kernel_views import (pair_index, pairwise_decisions, pairwise_from_primal,
                                        pairwise_from_support_vectors, pairwise_omega, pairwise_predict)
from tests.helpers.reference_taggers import tally, vote


def scripted_pair(scores):
    """A degree-1 PKB whose decision on the input {r} is exactly scores[r]
    (integers: exact arithmetic): support example r = {r} with coef scores[r],
    bias -sum(coef), since (1 + |{r} & {r'}|) = 1 + [r == r']."""
    n = len(scores)
    coef = numpy.asarray(scores, dtype=numpy.float64)
    sv = SupportVectors(numpy.arange(n + 1), numpy.arange(n), coef, -coef.sum(), 1, n)
    return PKB(sv)


def test_pair_order():
    assert class_pairs(4) == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert [pair_index(i, j, 4) for i, j in class_pairs(4)] == list(range(n_pairs(4)))
    with pytest.raises(ValueError):
        pair_index(2, 1, 4)


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_votes_match_the_rule_on_random_scores_with_ties(k):
    rng = numpy.random.default_rng(k)
    n_rows = 400
    # small integers: many zero decisions, vote ties and margin ties
    scores = rng.integers(-2, 3, size=(n_rows, n_pairs(k)))
    clf = PairwiseClassifier([scripted_pair(scores[:, p]) for p in range(n_pairs(k))], k)
    X = scipy.sparse.csr_matrix((numpy.ones(n_rows), numpy.arange(n_rows), numpy.arange(n_rows + 1)),
                                shape=(n_rows, n_rows))
    assert numpy.array_equal(pairwise_decisions(clf, X), scores)
    classes, votes, margins = clf.votes(X)
    n_margin_ties = n_full_ties = 0
    for r in range(n_rows):
        want = vote(scores[r].tolist(), k)
        v, m = tally(scores[r].tolist(), k)
        assert classes[r] == want, (scores[r], votes[r], margins[r])
        assert votes[r].tolist() == v
        assert margins[r].tolist() == m
        assert pairwise_predict(clf, [r]) == want
        best = max(v)
        tied = [c for c in range(k) if v[c] == best]
        n_margin_ties += len(tied) > 1
        n_full_ties += len(tied) > 1 and len({m[c] for c in tied}) < len(tied)
    assert n_margin_ties > 10 and n_full_ties > 0  # the tie rules were exercised
    assert numpy.array_equal(clf.votes(X)[0], classes)


def test_full_tie_goes_to_the_lowest_class():
    # 3 classes, every pair undecided: no votes, no margin -> class 0
    clf = PairwiseClassifier([scripted_pair([0]) for _ in range(3)], 3)
    assert pairwise_predict(clf, [0]) == 0
    # cyclic 0>1, 1>2, 2>0 with equal margins -> a vote tie and a margin tie
    clf = PairwiseClassifier([scripted_pair([1]), scripted_pair([-1]), scripted_pair([1])], 3)
    assert pairwise_predict(clf, [0]) == 0
    # cyclic but class 2 wins more margin -> 2
    clf = PairwiseClassifier([scripted_pair([1]), scripted_pair([-2]), scripted_pair([1])], 3)
    assert pairwise_predict(clf, [0]) == 2


def three_class_problem(seed=0, n=300):
    """Random sparse sets whose class depends on a few features (not linearly)."""
    rng = numpy.random.default_rng(seed)
    rows, y = [], []
    for _ in range(n):
        x = sorted(set(rng.integers(0, 30, size=6).tolist()))
        a, b = 1 in x, 2 in x
        y.append(0 if a and b else 1 if a or b else 2)
        rows.append(x)
    indptr = numpy.cumsum([0] + [len(r) for r in rows])
    X = scipy.sparse.csr_matrix((numpy.ones(indptr[-1]), numpy.concatenate(rows), indptr), shape=(n, 30))
    return X, numpy.asarray(y)


def pair_svms(X, y, k, degree=2):
    svs = []
    for i, j in class_pairs(k):
        rows = numpy.flatnonzero((y == i) | (y == j))
        sv, _ = train_svm(X[rows], numpy.where(y[rows] == i, 1, -1), degree=degree, C=10.0)
        svs.append(sv)
    return svs


def test_all_forms_vote_alike_and_learn():
    X, y = three_class_problem()
    svs = pair_svms(X, y, 3)
    out = {}
    for kind in ("pkb", "pki", "pke"):
        clf = pairwise_from_support_vectors(svs, 3, kind, sigma=0.0)
        assert clf.kind == kind and clf.degree == 2 and clf.n_features == 30
        out[kind] = clf.votes(X)
    for kind in ("pki", "pke"):
        assert numpy.array_equal(out[kind][0], out["pkb"][0])
        assert numpy.array_equal(out[kind][1], out["pkb"][1])
        assert numpy.allclose(out[kind][2], out["pkb"][2], atol=1e-8)
    assert (out["pkb"][0] == y).mean() == 1.0
    pke = pairwise_from_support_vectors(svs, 3, "pke", sigma=0.0)
    assert pke.n_kept == sum(len(o) for o in pairwise_omega(pke)) > 0
    assert pke.nbytes > 0 and pke.sigma == 0.0 and pke.xi == 1
    with pytest.raises(ValueError, match="PKE only"):
        pairwise_omega(pairwise_from_support_vectors(svs, 3, "pkb"))


def test_from_primal_builds_pke():
    X, y = three_class_problem(1)
    primals = []
    for i, j in class_pairs(3):
        rows = numpy.flatnonzero((y == i) | (y == j))
        primals.append(train_primal(X[rows], numpy.where(y[rows] == i, 1, -1), degree=2, C=10.0))
    clf = pairwise_from_primal(primals, 3, sigma=0.0)
    assert clf.kind == "pke"
    assert (clf.votes(X)[0] == y).mean() > 0.95


def test_round_trip_and_checks():
    X, y = three_class_problem(2)
    svs = pair_svms(X, y, 3)
    for kind in ("pkb", "pki", "pke"):
        clf = pairwise_from_support_vectors(svs, 3, kind, sigma=0.001)
        again = PairwiseClassifier.from_bytes(clf.to_bytes())
        assert again.kind == kind
        assert numpy.array_equal(again.votes(X)[0], clf.votes(X)[0])
        import pickle
        assert numpy.array_equal(pickle.loads(pickle.dumps(clf)).votes(X)[0], clf.votes(X)[0])
    data = pairwise_from_support_vectors(svs, 3, "pke").to_bytes()
    with pytest.raises(ValueError):
        PairwiseClassifier.from_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="pkb"):
        PairwiseClassifier.from_bytes(PKB(svs[0]).to_bytes())
    with pytest.raises(ValueError, match="3 classes need 3"):
        PairwiseClassifier([PKB(svs[0])], 3)
    with pytest.raises(ValueError, match="must all be PKB"):
        PairwiseClassifier([PKB(svs[0]), pairwise_from_support_vectors(svs, 3, "pke").classifiers[1],
                            PKB(svs[2])], 3)
    flipped = SupportVectors(svs[0].indptr, svs[0].indices, svs[0].coef, svs[0].bias, 2,
                             svs[0].n_features, classes=(0, 1))
    with pytest.raises(ValueError, match="-1 / \\+1"):
        pairwise_from_support_vectors([flipped] + svs[1:], 3, "pkb")


def test_empty_and_unknown_inputs():
    X, y = three_class_problem(3)
    clf = pairwise_from_support_vectors(pair_svms(X, y, 3), 3, "pke", sigma=0.0)
    pkb = pairwise_from_support_vectors(pair_svms(X, y, 3), 3, "pkb")
    for c in (clf, pkb):
        assert 0 <= pairwise_predict(c, []) < 3
        assert pairwise_predict(c, [10_000, -5]) == pairwise_predict(c, [])  # unknown ids carry no weight
        assert c.votes(scipy.sparse.csr_matrix((0, 30)))[0].shape == (0,)
