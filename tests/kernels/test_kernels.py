"""Polynomial-kernel classifiers (PKB, PKI, PKE) against sklearn and brute force."""
import itertools
import pickle
from math import comb

import numpy
import pytest
import scipy.sparse

pytest.importorskip("sklearn")

from benchmarks.harness import sv_summary
from spacy_adf.kernels import (PKB, PKE, PKI, SupportVectors, load_classifier,
                               make_classifier, subset_weights, train_svm)
from spacy_adf.kernels.coefficients import stirling2
from spacy_adf.kernels.mining import mine_subsets, transactions
from tests.helpers.kernel_views import omega, sv_rows, to_csr

V = 60  # vocabulary of the toy problems


def _label(x):
    s = set(int(i) for i in x)
    return 1 if {3, 5} <= s or {7, 8, 9} <= s or (11 in s and 12 not in s) else -1


_CACHE = {}


def problem(degree, seed=0, n=300):
    """A small learnable set problem (pairs, a triple and a negation) and its SVM."""
    key = (degree, seed, n)
    if key not in _CACHE:
        rng = numpy.random.default_rng(seed)
        ex = [rng.choice(V, rng.integers(4, 13), replace=False) for _ in range(n)]
        X = to_csr(ex, V)
        y = numpy.array([_label(x) for x in ex])
        sv, svc = train_svm(X, y, degree=degree, C=1.0)
        _CACHE[key] = (ex, X, sv, svc)
    return _CACHE[key]


def brute_weights(sv, max_size):
    """{subset: (sum of coef over SVs containing it, support)} by enumeration."""
    out = {}
    for row, c in zip(sv_rows(sv), sv.coef):
        for r in range(1, max_size + 1):
            for s in itertools.combinations(sorted(row.tolist()), r):
                w, k = out.get(s, (0.0, 0))
                out[s] = (w + c, k + 1)
    return out


# ---- subset weights


def test_subset_weight_values():
    assert subset_weights(1) == (1, 1)
    assert subset_weights(2) == (1, 3, 2)
    assert subset_weights(3) == (1, 7, 12, 6)
    assert subset_weights(4) == (1, 15, 50, 60, 24)
    assert stirling2(5, 2) == 15 and stirling2(4, 4) == 1 and stirling2(3, 0) == 0
    with pytest.raises(ValueError):
        subset_weights(0)


def test_binomial_identity():
    rng = numpy.random.default_rng(1)
    for d in range(1, 8):
        c = subset_weights(d)
        for r in rng.integers(0, 60, 20).tolist() + [0, 1, d]:
            assert (1 + r) ** d == sum(c[k] * comb(r, k) for k in range(d + 1))


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_explicit_expansion_equals_kernel(d):
    rng = numpy.random.default_rng(d)
    c = subset_weights(d)
    for _ in range(30):
        X = set(rng.choice(15, rng.integers(0, 9), replace=False).tolist())
        Y = set(rng.choice(15, rng.integers(0, 9), replace=False).tolist())
        explicit = sum(c[len(s)] for r in range(d + 1)
                       for s in itertools.combinations(sorted(X), r) if set(s) <= Y)
        assert explicit == (1 + len(X & Y)) ** d


# ---- the SVM and the exact forms


@pytest.mark.parametrize("d", [2, 3])
def test_pkb_equals_sklearn_decision_function(d):
    ex, X, sv, svc = problem(d)
    ref = svc.decision_function(X)
    assert 0 < sv.n_pos < sv.n_sv and sv.n_pos + sv.n_neg == sv.n_sv
    assert numpy.mean(numpy.sign(ref) == [_label(x) for x in ex]) > 0.9
    pkb = PKB(sv)
    numpy.testing.assert_allclose(pkb.decision_batch(X), ref, rtol=0, atol=1e-9)
    for i in (0, 1, 17):
        assert pkb.decision(ex[i]) == pytest.approx(ref[i], abs=1e-9)


@pytest.mark.parametrize("d", [2, 3])
def test_pki_equals_pkb(d):
    ex, X, sv, _ = problem(d)
    pkb, pki = PKB(sv), PKI(sv)
    numpy.testing.assert_allclose(pki.decision_batch(X), pkb.decision_batch(X), rtol=0, atol=1e-9)
    rng = numpy.random.default_rng(7)
    for _ in range(50):  # random inputs, with repeated ids
        x = rng.integers(0, V, rng.integers(0, 20))
        assert pki.decision(x) == pytest.approx(pkb.decision(x), abs=1e-9)


@pytest.mark.parametrize("d", [2, 3])
def test_pke_exact_at_sigma_zero(d):
    ex, X, sv, _ = problem(d)
    ref = PKB(sv).decision_batch(X)
    pke = PKE(sv, sigma=0.0, xi=1)
    numpy.testing.assert_allclose(pke.decision_batch(X), ref, rtol=1e-6, atol=1e-9)
    # Omega is then every subset (size <= d) of every support example
    assert pke.n_kept == len(brute_weights(sv, d))


# ---- the approximation


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.parametrize("sigma,xi", [(0.0, 1), (0.01, 1), (0.05, 2), (0.0, 3)])
def test_pke_omega_matches_brute_force(d, sigma, xi):
    _, _, sv, _ = problem(d)
    c = subset_weights(d)
    sig_pos = sigma * sv.n_pos / sv.n_sv
    sig_neg = -sigma * sv.n_neg / sv.n_sv
    expect = {}
    for s, (sw, k) in brute_weights(sv, d).items():
        w = c[len(s)] * sw
        if k >= xi and (w >= sig_pos or w <= sig_neg) and w != 0:
            expect[s] = w
    pke = PKE(sv, sigma=sigma, xi=xi)
    got = omega(pke)
    assert got.keys() == expect.keys()
    for s, w in expect.items():
        assert got[s] == pytest.approx(w, rel=1e-9, abs=1e-12)
    assert pke.sigma_pos == pytest.approx(sig_pos) and pke.sigma_neg == pytest.approx(sig_neg)


def test_pke_approaches_pkb_as_sigma_shrinks():
    ex, X, sv, _ = problem(3)
    ref = PKB(sv).decision_batch(X)
    kept, errs, agree = [], [], []
    for sigma in (0.5, 0.1, 0.02, 0.005, 0.001, 0.0):
        out = PKE(sv, sigma=sigma).decision_batch(X)
        pke = PKE(sv, sigma=sigma)
        kept.append(pke.n_kept)
        errs.append(numpy.abs(out - ref).max())
        agree.append(numpy.mean(numpy.sign(out) == numpy.sign(ref)))
    assert kept == sorted(kept) and kept[0] < kept[-1]
    assert errs[0] > errs[2] > errs[4] and errs[-1] < 1e-9
    assert agree[-2] >= agree[0] and agree[-1] == 1.0


@pytest.mark.parametrize("d", [2, 3])
def test_xi_pruning_counts(d):
    _, X, sv, _ = problem(d)
    support = [k for _, k in brute_weights(sv, d).values()]
    sizes = []
    for xi in (1, 2, 3, 5):
        pke = PKE(sv, sigma=0.0, xi=xi)
        assert pke.n_kept == sum(k >= xi for k in support)
        assert sum(pke.stats["kept_by_size"]) == pke.n_kept
        sizes.append(pke.nbytes)
    assert sizes == sorted(sizes, reverse=True)


def test_mining_agrees_with_enumeration():
    from benchmarks.cython_modules import enumerate_subsets

    _, _, sv, _ = problem(3)
    tptr, titem, _, n_items = transactions(sv, 0.0, 0.0, 1)
    size, sp, sn, cnt = enumerate_subsets(tptr, titem, sv.coef, 3)
    parent, item, w, depth, keep, visited = mine_subsets(tptr, titem, sv.coef, n_items, 3,
                                                         0.0, 0.0, 1)
    assert keep.all() and len(w) == len(size) == visited
    c = numpy.array(subset_weights(3), dtype=float)
    numpy.testing.assert_allclose(numpy.sort(w), numpy.sort(c[size] * (sp + sn)), atol=1e-12)
    assert numpy.bincount(depth).tolist() == numpy.bincount(size).tolist()


# ---- inputs


@pytest.mark.parametrize("kind", ["pkb", "pki", "pke"])
def test_unseen_duplicate_and_empty_inputs(kind):
    _, _, sv, _ = problem(3)
    clf = make_classifier(kind, sv)
    pkb = PKB(sv)
    empty = sv.bias + sv.coef.sum()  # K(X_j, {}) = 1 for every support example
    assert clf.decision([]) == pytest.approx(empty, abs=1e-9)
    assert clf.decision(numpy.zeros(0, dtype=numpy.int64)) == pytest.approx(empty, abs=1e-9)
    x = [3, 5, 9, 22]
    noisy = [V + 5, 10 ** 6, 22, 3, -4, 5, 9, 3, 2 ** 40]
    assert clf.decision(noisy) == pytest.approx(pkb.decision(x), abs=1e-9)
    assert clf.decision([V, V + 1]) == pytest.approx(empty, abs=1e-9)
    with pytest.raises(ValueError):
        clf.decision([1.5, 2])


@pytest.mark.parametrize("kind", ["pkb", "pki", "pke"])
def test_batch_input_forms(kind):
    ex, X, sv, _ = problem(2)
    clf = make_classifier(kind, sv)
    ref = numpy.array([clf.decision(x) for x in ex])
    numpy.testing.assert_allclose(clf.decision_batch(X), ref, atol=1e-12)
    numpy.testing.assert_allclose(clf.decision_batch((X.indptr, X.indices)), ref, atol=1e-12)
    rows = [x[::-1] for x in ex]  # unsorted rows
    indptr = numpy.cumsum([0] + [len(r) for r in rows])
    out = clf.decision_batch((indptr, numpy.concatenate(rows)))
    numpy.testing.assert_allclose(out, ref, atol=1e-12)
    assert clf.decision_batch(scipy.sparse.csr_matrix((0, V))).shape == (0,)
    Z = X.copy().astype(float)
    Z.data[::3] = 0.0  # stored zeros are absent features
    Z2 = Z.copy()
    Z2.eliminate_zeros()
    numpy.testing.assert_array_equal(clf.decision_batch(Z), clf.decision_batch(Z2))
    Z.data[1] = 2.0
    with pytest.raises(ValueError, match="binary"):
        clf.decision_batch(Z)
    with pytest.raises(ValueError):
        clf.decision_batch((numpy.array([0, 5]), numpy.array([1, 2], dtype=numpy.int32)))


# ---- serialization and the factory


@pytest.mark.parametrize("kind,sigma,xi", [("pkb", 0, 1), ("pki", 0, 1), ("pke", 0.0, 1),
                                           ("pke", 0.01, 2)])
@pytest.mark.parametrize("d", [2, 3])
def test_serialization_round_trip(kind, sigma, xi, d):
    _, X, sv, _ = problem(d)
    clf = make_classifier(kind, sv, sigma=sigma, xi=xi)
    data = clf.to_bytes()
    again = type(clf).from_bytes(data)
    numpy.testing.assert_array_equal(again.decision_batch(X), clf.decision_batch(X))
    numpy.testing.assert_array_equal(load_classifier(data).decision_batch(X),
                                     clf.decision_batch(X))
    numpy.testing.assert_array_equal(pickle.loads(pickle.dumps(clf)).decision_batch(X),
                                     clf.decision_batch(X))
    assert again.degree == d and again.to_bytes() == data


def test_support_vectors_round_trip_and_validation():
    _, _, sv, _ = problem(2)
    again = SupportVectors.from_bytes(sv.to_bytes())
    numpy.testing.assert_array_equal(again.coef, sv.coef)
    numpy.testing.assert_array_equal(again.indices, sv.indices)
    assert (again.bias, again.degree, again.classes) == (sv.bias, sv.degree, sv.classes)
    with pytest.raises(ValueError):  # unsorted row
        SupportVectors([0, 2], [5, 3], [1.0], 0.0, 2, 10)
    with pytest.raises(ValueError):  # id out of range
        SupportVectors([0, 1], [10], [1.0], 0.0, 2, 10)
    with pytest.raises(ValueError):
        SupportVectors([0, 1], [1], [1.0], 0.0, 0, 10)


def test_support_vector_summary_counts_by_hand():
    # rows {0, 2}, {2}, {1, 2, 5}: 4 distinct features (0, 1, 2, 5), 6 ids in all
    sv = SupportVectors([0, 2, 3, 6], [0, 2, 2, 1, 2, 5], [0.5, -1.0, 2.0], 0.1, 2, 8)
    s = sv_summary(sv)
    assert (s["n_sv"], s["n_pos_sv"], s["n_neg_sv"], s["n_features_sv"]) == (3, 2, 1, 4)
    assert s["avg_len"] == pytest.approx(2.0)
    # inverted lists: h(0) = 1, h(1) = 1, h(2) = 3, h(5) = 1
    assert s["avg_list"] == pytest.approx(6 / 4)


@pytest.mark.parametrize("kind", ["pkb", "pki", "pke"])
def test_corrupt_data_raises_value_error(kind):
    _, _, sv, _ = problem(2)
    clf = make_classifier(kind, sv)
    cls = type(clf)
    data = clf.to_bytes()
    bad = bytearray(data)
    bad[len(bad) // 2] ^= 0xFF
    for blob in (data[: len(data) // 2], bytes(bad), b"", b"\x00garbage", b"\x93\x01\x02\x03"):
        with pytest.raises(ValueError):
            cls.from_bytes(blob)
    other = PKB(sv) if kind != "pkb" else PKI(sv)
    with pytest.raises(ValueError, match="expected"):
        cls.from_bytes(other.to_bytes())
    import srsly
    msg = srsly.msgpack_loads(data)
    msg["version"] = 99
    with pytest.raises(ValueError, match="version"):
        cls.from_bytes(srsly.msgpack_dumps(msg))


def test_pke_rejects_inconsistent_arrays():
    from spacy_adf.serialization.framed import pack
    _, _, sv, _ = problem(2)
    pke = PKE(sv)
    arrays = dict(pke.arrays)
    arrays["cptr"] = arrays["cptr"].copy()
    arrays["cptr"][3] = 10 ** 8  # would walk out of bounds
    meta = {"degree": 2, "bias": 0.0, "n_features": V, "sigma": 0.0, "sigma_pos": 0.0,
            "sigma_neg": 0.0, "xi": 1, "stats": {}}
    with pytest.raises(ValueError, match="pointers"):
        PKE.from_bytes(pack(PKE.FORMAT, 1, arrays, meta))


def test_make_classifier_kinds():
    _, _, sv, _ = problem(2)
    assert isinstance(make_classifier("PKB", sv), PKB)
    assert isinstance(make_classifier("pki", sv), PKI)
    pke = make_classifier("pke", sv, sigma=0.01, xi=2)
    assert isinstance(pke, PKE) and (pke.sigma, pke.xi) == (0.01, 2)
    with pytest.raises(ValueError):
        make_classifier("svm", sv)
    assert isinstance(make_classifier("pki", sv, sigma=0.1, xi=3), PKI)  # exact: ignored
    with pytest.raises(ValueError):
        PKE(sv, sigma=-1.0)


def test_degree_one_and_empty_support_rows():
    # a linear kernel (d = 1) and support examples with no features
    sv = SupportVectors([0, 0, 2, 3], [1, 4, 4], [0.5, -1.0, 0.25], 0.1, 1, 6)
    ref = lambda x: sum(c * (1 + len(set(r.tolist()) & set(x))) for r, c in
                        zip(sv_rows(sv), sv.coef)) + 0.1
    for kind in ("pkb", "pki", "pke"):
        clf = make_classifier(kind, sv)
        for x in ([], [4], [1, 4], [0, 5]):
            assert clf.decision(x) == pytest.approx(ref(x), abs=1e-12)


def test_double_array_trie_gives_the_pke_decisions():
    """The paper's double-array trie, built from PKE's trie, scores every
    input as PKE does (it is the yardstick for PKE's own structure)."""
    from benchmarks.cython_modules import DoubleArrayPKE

    rng = numpy.random.default_rng(7)
    n_sv, n_feat = 200, 300
    rows = [numpy.unique(rng.integers(0, n_feat, 12)) for _ in range(n_sv)]
    indptr = numpy.zeros(n_sv + 1, dtype=numpy.int64)
    indptr[1:] = numpy.cumsum([len(r) for r in rows])
    sv = SupportVectors(indptr, numpy.concatenate(rows), rng.normal(size=n_sv), 0.3, 3, n_feat)
    X = [numpy.unique(rng.integers(0, n_feat + 20, 25)) for _ in range(300)] + [numpy.zeros(0, dtype=int)]
    ip = numpy.zeros(len(X) + 1, dtype=numpy.int64)
    ip[1:] = numpy.cumsum([len(r) for r in X])
    ix = numpy.concatenate(X).astype(numpy.int32)
    for sigma, xi in [(0.0, 1), (0.05, 1), (0.0, 2)]:
        pke = PKE(sv, sigma=sigma, xi=xi)
        da = DoubleArrayPKE(pke)
        numpy.testing.assert_allclose(da.decision_batch((ip, ix)), pke.decision_batch((ip, ix)),
                                      rtol=1e-9, atol=1e-9)
        assert da.n_slots >= len(pke.arrays["item"])


def test_binary_csr_keeps_a_canonical_matrix_and_never_changes_its_input():
    """A canonical binary float64 CSR is used as it is (a training matrix is
    not copied); any other input is copied, canonicalized and left unchanged."""
    import numpy
    import scipy.sparse

    from spacy_adf.kernels.svm import binary_csr

    X = scipy.sparse.csr_matrix(numpy.array([[1.0, 0, 1], [0, 1, 0]]))
    assert binary_csr(X) is X
    messy = scipy.sparse.csr_matrix((numpy.array([1.0, 0.0, 1.0]), numpy.array([2, 0, 1]), numpy.array([0, 2, 3])),
                                    shape=(2, 3))
    before = (messy.data.copy(), messy.indices.copy())
    out = binary_csr(messy)
    assert out is not messy and out.has_canonical_format and out.nnz == 2
    assert (messy.data == before[0]).all() and (messy.indices == before[1]).all()
