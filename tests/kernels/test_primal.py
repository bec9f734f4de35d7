"""The explicit subset expansion, the primal trainer and duplicate merging
for libsvm (kernels/expansion.pyx, kernels/primal.py, kernels/svm.py), and
the pke_dependency component with trainer = "primal"."""
import itertools

import numpy
import pytest
import spacy

pytest.importorskip("sklearn")

from spacy_adf.kernels import PKB, PKE, load_classifier, subset_weights, train_svm
from spacy_adf.kernels.expansion import SubsetIndex, expansion_nnz
from spacy_adf.kernels.primal import PrimalSVM, fit_linear_svc, train_primal
from spacy_adf.kernels.svm import merge_duplicates

from tests.helpers.dep_data import corpus_examples
from tests.helpers.kernel_views import lookup, omega, primal_weights, subset_of, to_csr
from tests.helpers.subset_data import V, label_of, random_sets


# ---------------------------------------------------------------- expansion


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_phi_dot_products_are_the_kernel(d):
    rng = numpy.random.default_rng(d)
    ex = random_sets(rng, 60)
    X = to_csr(ex, V)
    index = SubsetIndex(d)
    phi = index.expand(X)
    assert phi.nnz == expansion_nnz(X, d)
    K = (1.0 + (X @ X.T).toarray()) ** d
    numpy.testing.assert_allclose((phi @ phi.T).toarray(), K, rtol=1e-12)
    # unseen rows: dot products with the training rows are still the kernel
    new = to_csr(random_sets(rng, 20), V)
    phi_new = index.expand(new, add=False)
    assert index.n_subsets == phi.shape[1]  # lookups add nothing
    numpy.testing.assert_allclose((phi_new @ phi.T).toarray(),
                                  (1.0 + (new @ X.T).toarray()) ** d, rtol=1e-12)


def test_subset_ids_parents_and_support():
    index = SubsetIndex(3)
    X = to_csr([[5, 2, 9], [2, 9], [9, 2, 2, 7]], 10)  # a repeated id counts once
    phi = index.expand(X, counts=[1, 2, 3])
    arrays = index.arrays()
    assert arrays["size"][0] == 0 and arrays["support"][0] == 6  # the empty set
    expected = {}
    for row, k in zip([[2, 5, 9], [2, 9], [2, 7, 9]], [1, 2, 3]):
        for r in range(1, 4):
            for s in itertools.combinations(row, r):
                expected[s] = expected.get(s, 0) + k
    assert index.n_subsets == len(expected) + 1
    for s, k in expected.items():
        sid = lookup(index, s)
        assert sid > 0 and arrays["support"][sid] == k and arrays["size"][sid] == len(s)
        assert arrays["item"][sid] == s[-1]
        assert arrays["parent"][sid] == (lookup(index, s[:-1]) if len(s) > 1 else 0)
    assert lookup(index, [2, 5, 7]) == -1 and lookup(index, [1]) == -1
    c = numpy.sqrt(subset_weights(3))
    assert sorted(phi[0].data.tolist()) == sorted([c[0]] + [c[1]] * 3 + [c[2]] * 3 + [c[3]])


def test_many_subsets_rehash():
    rng = numpy.random.default_rng(5)
    X = to_csr(random_sets(rng, 300, v=2000, lo=10, hi=30), 2000)
    index = SubsetIndex(3)
    phi = index.expand(X)
    assert phi.nnz == expansion_nnz(X, 3)
    assert index.n_subsets > 100_000
    again = index.expand(X, add=False)
    assert (again != phi).nnz == 0
    # the doublings rebuild the slots from the id arrays: every id is found
    # again by its feature set, read back through its parent chain
    a = index.arrays()
    sids = rng.choice(index.n_subsets - 1, 3000, replace=False) + 1
    rows = []
    for sid in sids:
        features, s = [], int(sid)
        while s > 0:
            features.append(int(a["item"][s]))
            s = int(a["parent"][s])
        assert len(features) == a["size"][sid]
        rows.append(sorted(features))
    # looked up through the rebuilt slots: each set's expansion holds its id
    found = index.expand(to_csr(rows, 2000), add=False)
    for r, sid in enumerate(sids):
        assert found[r, int(sid)] != 0


# ---------------------------------------------------------------- primal trainer


@pytest.mark.parametrize("d", [1, 2, 3])
def test_linear_decisions_equal_pke_from_converted_weights(d):
    rng = numpy.random.default_rng(10 + d)
    train = random_sets(rng, 200, lo=3, hi=12)
    X = to_csr(train, V)
    y = numpy.array([label_of(x) for x in train])
    test = random_sets(rng, 100, lo=0, hi=14) + [[], [39], [100, 3, 5]]  # 100: unseen id
    index = SubsetIndex(d)
    phi = index.expand(X)
    svc = fit_linear_svc(phi, y, C=1.0)
    model = train_primal(X, y, degree=d, C=1.0)
    pke = model.to_pke(sigma=0.0, xi=1)
    assert isinstance(pke, PKE)
    T = to_csr(test, 101)
    lin = svc.decision_function(index.expand(T, add=False))
    numpy.testing.assert_allclose(pke.decision_batch(T), lin, rtol=1e-9, atol=1e-9)
    # the trie holds exactly the non-zero weights; the bias is w(empty set)
    assert omega(pke) == pytest.approx(primal_weights(model), rel=1e-12, abs=0)
    assert pke.bias == pytest.approx(svc.coef_[0, 0])
    # same format as a mined PKE: it round-trips through load_classifier
    again = load_classifier(pke.to_bytes())
    numpy.testing.assert_array_equal(again.decision_batch(X), pke.decision_batch(X))


def test_pruning_follows_sigma_and_xi():
    rng = numpy.random.default_rng(3)
    train = random_sets(rng, 300, lo=3, hi=12)
    X = to_csr(train, V)
    y = numpy.array([label_of(x) for x in train])
    model = train_primal(X, y, degree=3, C=1.0)
    exact = model.to_pke()
    ref = exact.decision_batch(X)
    sid_of = {subset_of(model, i): i for i in range(1, model.weight.shape[0])}
    for sigma, xi in [(0.01, 1), (0.0, 3), (0.005, 2)]:
        pke = model.to_pke(sigma=sigma, xi=xi)
        kept = omega(pke)
        want = {}
        for s, w in primal_weights(model).items():
            if model.support[sid_of[s]] >= xi and (w >= pke.sigma_pos or w <= pke.sigma_neg):
                want[s] = w
        assert kept == pytest.approx(want)
        assert pke.n_kept == len(want) < exact.n_kept
        # the decisions are the bias plus the kept weights of the input's subsets
        x = train[0]
        subsets = [tuple(sorted(int(f) for f in s)) for r in range(1, 4)
                   for s in itertools.combinations(x, r)]
        assert pke.decision(x) == pytest.approx(pke.bias + sum(want.get(s, 0.0) for s in subsets))
    assert numpy.abs(model.to_pke(sigma=1e-9).decision_batch(X) - ref).max() < 1e-6


def test_primal_fits_a_separable_problem():
    rng = numpy.random.default_rng(7)
    train = random_sets(rng, 150, lo=3, hi=10)
    X = to_csr(train, V)
    y = numpy.array([label_of(x) for x in train])
    for d in (2, 3):
        stats = {}
        model = train_primal(X, y, degree=d, C=100.0, stats=stats, max_iter=100_000)
        pke = model.to_pke()
        assert numpy.all(numpy.sign(pke.decision_batch(X)) == y)
        assert stats["n_examples"] == 150 and stats["phi_nnz"] == expansion_nnz(X, d)
        assert model.n_sv > 0 and model.n_pos > 0 and model.n_neg > 0


def test_intercept_scaling_approaches_libsvm():
    """liblinear regularises its bias: the larger intercept_scaling, the
    closer the primal solution to libsvm's (free bias)."""
    rng = numpy.random.default_rng(0)
    train = random_sets(rng, 200, lo=4, hi=12)
    X = to_csr(train, V)
    y = numpy.array([label_of(x) for x in train])
    test = to_csr(random_sets(rng, 100, lo=4, hi=12), V)
    sv, _ = train_svm(X, y, degree=2, C=1.0, tol=1e-8)
    ref = PKB(sv).decision_batch(test)
    gaps = []
    for s in (None, 10.0, 100.0):
        model = train_primal(X, y, degree=2, C=1.0, intercept_scaling=s, tol=1e-8, max_iter=200_000)
        gaps.append(numpy.abs(model.to_pke().decision_batch(test) - ref).max())
    assert gaps[2] < gaps[1] < gaps[0] and gaps[2] < 1e-2


def test_primal_merges_duplicates_like_weights():
    rng = numpy.random.default_rng(4)
    base = random_sets(rng, 80, lo=3, hi=10)
    rows = base + base[:30] + base[:10]
    X = to_csr(rows, V)
    y = numpy.array([label_of(x) for x in rows])
    stats = {}
    merged = train_primal(X, y, degree=2, C=1.0, stats=stats, tol=1e-8, max_iter=100_000)
    plain = train_primal(X, y, degree=2, C=1.0, merge=False, tol=1e-8, max_iter=100_000)
    assert stats["n_examples"] == 120 and stats["n_unique"] == 80
    numpy.testing.assert_array_equal(merged.support, plain.support)
    numpy.testing.assert_allclose(merged.to_pke().decision_batch(X), plain.to_pke().decision_batch(X),
                                  atol=1e-4)


def test_primal_needs_two_classes():
    X = to_csr([[1, 2], [2, 3]], 5)
    with pytest.raises(ValueError, match="two classes"):
        train_primal(X, [1, 1], degree=2)


# ---------------------------------------------------------------- duplicate merging (libsvm)


def test_merge_duplicates_counts():
    X = to_csr([[1, 2], [2, 1], [3], [1, 2], [3]], 5)
    y = numpy.array([1, 1, -1, -1, -1])
    Xu, yu, w, first = merge_duplicates(X, y)
    assert first.tolist() == [0, 2, 3]  # [1, 2] with -1 is another example
    assert yu.tolist() == [1, -1, -1] and w.tolist() == [2.0, 2.0, 1.0]
    assert (Xu != X[[0, 2, 3]]).nnz == 0


@pytest.mark.parametrize("d", [2, 3])
def test_merged_libsvm_gives_the_same_decisions(d):
    rng = numpy.random.default_rng(20 + d)
    base = random_sets(rng, 120, lo=3, hi=10)
    rows = base + [base[i] for i in rng.integers(0, 120, 80)]  # 40% duplicates
    X = to_csr(rows, V)
    y = numpy.array([label_of(x) for x in rows])
    stats = {}
    merged, _ = train_svm(X, y, degree=d, C=1.0, tol=1e-10, merge=True, stats=stats)
    plain, _ = train_svm(X, y, degree=d, C=1.0, tol=1e-10, merge=False)
    assert stats["n_examples"] == 200 and stats["n_unique"] < 200
    assert merged.n_sv < plain.n_sv
    test = to_csr(random_sets(rng, 200, lo=0, hi=12), V)
    numpy.testing.assert_allclose(PKB(merged).decision_batch(test), PKB(plain).decision_batch(test),
                                  rtol=0, atol=1e-6)


# ---------------------------------------------------------------- the component


@pytest.fixture(scope="module")
def corpus(dep_corpus):
    return dep_corpus


_examples = corpus_examples


@pytest.fixture(scope="module")
def primal_nlp(corpus):
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pke", "sigma": 0.0,
                                           "trainer": "primal"})
    train = _examples(nlp, corpus / "train.knp")
    nlp.initialize(lambda: train)
    return nlp, train


def test_component_trains_with_the_primal_trainer(primal_nlp, corpus, tmp_path):
    nlp, train = primal_nlp
    pipe = nlp.get_pipe("pke_dependency")
    assert pipe.plain_model.support_vectors is None and isinstance(pipe.plain_model.primal, PrimalSVM)
    assert isinstance(pipe.plain_model.classifier, PKE) and pipe.plain_model.classifier.stats["trainer"] == "primal"
    stats = pipe.cfg["stats"]
    assert stats["training"]["trainer"] == "primal" and stats["n_sv"] > 0
    assert nlp.evaluate(train)["bunsetsu_dep_acc"] > 0.98
    dev = _examples(nlp, corpus / "dev.knp")
    assert nlp.evaluate(dev)["bunsetsu_dep_acc"] > 0.9
    # rebuilt at another sigma in memory; saved and loaded as a PKE
    pipe.set_classifier("pke", sigma=0.001)
    assert pipe.cfg["sigma"] == 0.001
    nlp.to_disk(tmp_path / "m")
    loaded = spacy.load(tmp_path / "m")
    lp = loaded.get_pipe("pke_dependency")
    assert lp.cfg["trainer"] == "primal"
    assert loaded.evaluate(dev)["bunsetsu_dep_acc"] == nlp.evaluate(dev)["bunsetsu_dep_acc"]
    numpy.testing.assert_array_equal(lp.plain_model.classifier.decision_batch(X_of(pipe, train)),
                                     pipe.plain_model.classifier.decision_batch(X_of(pipe, train)))
    with pytest.raises(ValueError, match="primal trainer"):
        lp.set_classifier("pke", sigma=0.01)
    pipe.set_classifier("pke", sigma=0.0)


def X_of(pipe, examples):
    spans = [eg.reference.spans["bunsetsu"] for eg in examples[:20]]
    return pipe.plain_model.examples([(s.doc, s, s.attrs["heads"]) for s in spans], build_vocab=False)[0]


@pytest.mark.parametrize("kind", ["pkb", "pki"])
def test_pkb_and_pki_of_a_primal_model_are_a_clear_error(primal_nlp, kind):
    nlp, _ = primal_nlp
    pipe = nlp.get_pipe("pke_dependency")
    with pytest.raises(ValueError, match="primal trainer gives PKE only"):
        pipe.set_classifier(kind)
    with pytest.raises(ValueError, match="primal trainer gives PKE only"):
        pipe.plain_model.build(kind)
    with pytest.raises(ValueError, match="primal trainer gives PKE only"):
        spacy.blank("xx").add_pipe("pke_dependency", config={"trainer": "primal", "classifier": kind})


def test_unknown_trainer_is_an_error():
    with pytest.raises(Exception, match="trainer must be one of"):
        spacy.blank("xx").add_pipe("pke_dependency", config={"trainer": "liblinear"})


def test_libsvm_is_the_default_trainer_and_a_cfg_without_one_is_refused(primal_nlp):
    import json

    nlp = spacy.blank("xx")
    pipe = nlp.add_pipe("pke_dependency")
    assert pipe.cfg["trainer"] == "libsvm"
    cfg = json.loads(pipe._cfg_to_bytes())
    del cfg["trainer"]
    other = spacy.blank("xx").add_pipe("pke_dependency", config={"trainer": "primal"})
    with pytest.raises(ValueError, match="cfg is incomplete.*trainer"):
        other._cfg_from_bytes(json.dumps(cfg).encode("utf8"))
