"""The on-line trainer (kernels/subset_learner.pyx, kernels/online.py): its
per-example subset expansion against the kernel's explicit feature map
(dense brute force), learning, determinism, agreement with the exact primal
and libsvm trainers, pruning and file round trips; and the progress lines
(kernels/progress.py)."""
import itertools
import time

import numpy
import pytest

pytest.importorskip("sklearn")

from spacy_adf.kernels import PKE, load_classifier, subset_weights, train_online, train_primal, train_svm
from spacy_adf.kernels.classifiers import make_classifier
from spacy_adf.kernels.progress import Progress
from spacy_adf.kernels.subset_learner import SubsetLearner
from tests.helpers.kernel_views import omega, primal_weights, subset_of, to_csr
from tests.helpers.subset_data import V, label_of, random_sets


def _subset_of(arrays, sid):
    out = []
    while sid > 0:
        out.append(int(arrays["item"][sid]))
        sid = int(arrays["parent"][sid])
    return tuple(reversed(out))


# ---------------------------------------------------------------- the expansion


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_one_example_expands_into_its_subsets_with_the_kernel_weights(d):
    """A step along one example interns exactly its subsets of size 1..d,
    each with weight c_d(|s|) (dense enumeration with itertools), parents
    being the subsets without their largest id."""
    x = [17, 3, 8, 3, 30, 1, 12]  # unsorted, with a repeat
    learner = SubsetLearner(d)
    learner.add(x, 1.0)
    arrays = learner.arrays()
    c = subset_weights(d)
    got = {_subset_of(arrays, sid): arrays["weight"][sid] for sid in range(1, learner.n_subsets)}
    ids = sorted(set(x))
    want = {s: float(c[r]) for r in range(1, d + 1) for s in itertools.combinations(ids, r)}
    assert got == want
    assert learner.bias == c[0] == 1
    for sid in range(1, learner.n_subsets):
        assert arrays["size"][sid] == len(_subset_of(arrays, sid))


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_primal_weights_are_the_kernel_expansion(d):
    """sum_j a_j phi(X_j) . phi(Z) == sum_j a_j (1 + |X_j & Z|)^d for any Z:
    the learner's weights and decisions are the kernel's explicit feature
    map (dense brute force over random sets, unseen ids included)."""
    rng = numpy.random.default_rng(d)
    xs = random_sets(rng, 40)
    amounts = rng.normal(size=len(xs))
    learner = SubsetLearner(d)
    for x, a in zip(xs, amounts):
        learner.add(x, float(a))
    for z in random_sets(rng, 60, v=V + 5) + [[], [44]]:
        want = sum(a * (1 + len(set(x) & set(z))) ** d for x, a in zip(xs, amounts))
        assert learner.decision(z) == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_the_slot_table_doubles_many_times_and_still_finds_every_subset():
    """From the smallest table (1,024 slots), thousands of subsets make the
    slots double several times; each doubling rebuilds them from the id
    arrays (not from the old slots), so every subset is found once after
    it: each interned subset's weight adds up again (no id lost, none
    doubled) and decisions equal the kernel's brute force."""
    rng = numpy.random.default_rng(7)
    xs = random_sets(rng, 300, v=400, lo=6, hi=12)
    amounts = rng.normal(size=len(xs))
    learner = SubsetLearner(3)
    first_bytes = learner.nbytes
    for x, a in zip(xs, amounts):
        learner.add(x, float(a))
    assert learner.n_subsets > 20000 and learner.nbytes > 16 * first_bytes
    arrays = learner.arrays()
    c = subset_weights(3)
    want = {}
    for x, a in zip(xs, amounts):
        ids = sorted(set(int(i) for i in x))
        for r in (1, 2, 3):
            for sub in itertools.combinations(ids, r):
                want[sub] = want.get(sub, 0.0) + a * c[r]
    got = {_subset_of(arrays, sid): arrays["weight"][sid] for sid in range(1, learner.n_subsets)}
    assert got.keys() == want.keys()
    assert all(got[k] == pytest.approx(want[k], abs=1e-9) for k in want)
    for z in random_sets(rng, 30, v=400, lo=6, hi=12):
        brute = sum(a * (1 + len(set(x) & set(z))) ** 3 for x, a in zip(xs, amounts))
        assert learner.decision(z) == pytest.approx(brute, rel=1e-9, abs=1e-9)


def test_take_arrays_gives_the_arrays_and_empties_the_learner():
    rng = numpy.random.default_rng(5)
    learner = SubsetLearner(3)
    for x in random_sets(rng, 30):
        learner.add(x, float(rng.normal()))
    copied = learner.arrays()
    taken = learner.take_arrays()
    assert sorted(taken) == sorted(copied)
    for key in copied:
        assert numpy.array_equal(taken[key], copied[key]) and taken[key].dtype == copied[key].dtype
    assert learner.taken and learner.n_subsets == 0
    with pytest.raises(ValueError, match="taken"):
        learner.decision([1, 2])
    with pytest.raises(ValueError, match="taken"):
        learner.arrays()


# ---------------------------------------------------------------- training


@pytest.mark.parametrize("d", [2, 3])
def test_learns_a_tiny_data_set_to_zero_training_error(d):
    rng = numpy.random.default_rng(40 + d)
    # distinct sets with random labels: separable in the subset space
    seen, train = set(), []
    while len(train) < 60:
        x = tuple(sorted(rng.choice(12, rng.integers(1, d + 1), replace=False).tolist()))
        if x not in seen:
            seen.add(x)
            train.append(x)
    y = rng.choice([-1, 1], len(train))
    X = to_csr(train, 12)
    stats = {}
    model = train_online(X, y, degree=d, C=10.0, epochs=100, stats=stats)
    pke = model.to_pke(sigma=0.0, xi=1)
    assert numpy.all(numpy.sign(pke.decision_batch(X)) == y)
    assert stats["training_errors"] == 0 and stats["passes"][-1]["mistakes"] == 0


def test_the_xor_of_two_features_needs_degree_two():
    X = to_csr([[0], [1], [0, 1], []] * 5, 3)  # XOR: no linear separator
    y = numpy.array([1, 1, -1, -1] * 5)
    assert numpy.all(numpy.sign(train_online(X, y, degree=2, epochs=200).to_pke().decision_batch(X)) == y)
    linear = train_online(X, y, degree=1, epochs=200).to_pke().decision_batch(X)
    assert numpy.any(numpy.sign(linear) != y)


def test_deterministic_under_a_seed():
    rng = numpy.random.default_rng(9)
    train = random_sets(rng, 300, lo=3, hi=12)
    X = to_csr(train, V)
    y = numpy.array([label_of(x) for x in train])
    a = train_online(X, y, degree=3, epochs=4, seed=1).to_pke(sigma=0.001)
    b = train_online(X, y, degree=3, epochs=4, seed=1).to_pke(sigma=0.001)
    c = train_online(X, y, degree=3, epochs=4, seed=2).to_pke(sigma=0.001)
    assert a.to_bytes() == b.to_bytes()
    assert c.to_bytes() != a.to_bytes()  # the seed orders the passes


def test_agrees_with_the_primal_and_libsvm_trainers():
    """On a held-out set drawn like the training set the online trainer's
    decisions agree with libsvm's and the primal trainer's on >= 93% of the
    examples and its accuracy is within 3 points of theirs (measured: 97-98%
    agreement, accuracy within 1 point)."""
    rng = numpy.random.default_rng(21)
    train = random_sets(rng, 1500, lo=3, hi=12)
    test = random_sets(rng, 1000, lo=3, hi=12)
    X, T = to_csr(train, V), to_csr(test, V)
    y = numpy.array([label_of(x) for x in train])
    gold = numpy.array([label_of(x) for x in test])
    online = numpy.sign(train_online(X, y, degree=3, C=1.0, epochs=10).to_pke().decision_batch(T))
    primal = numpy.sign(train_primal(X, y, degree=3, C=1.0).to_pke().decision_batch(T))
    sv, _ = train_svm(X, y, degree=3, C=1.0)
    libsvm = numpy.sign(make_classifier("pkb", sv).decision_batch(T))
    for ref in (primal, libsvm):
        assert (online == ref).mean() >= 0.93
        assert (online == gold).mean() >= (ref == gold).mean() - 0.03


def test_pruning_support_and_the_file_round_trip():
    rng = numpy.random.default_rng(3)
    train = random_sets(rng, 300, lo=3, hi=12)
    X = to_csr(train, V)
    y = numpy.array([label_of(x) for x in train])
    model = train_online(X, y, degree=3, epochs=5)
    assert model.trainer == "online" and model.n_pos + model.n_neg > 0
    # the support of a subset is the number of training examples containing it
    sets = [set(int(f) for f in x) for x in train]
    for sid in rng.choice(numpy.arange(1, model.weight.shape[0]), 50, replace=False):
        s = set(subset_of(model, int(sid)))
        assert model.support[sid] == sum(s <= x for x in sets)
    exact = model.to_pke(sigma=0.0, xi=1)
    assert omega(exact) == pytest.approx(primal_weights(model))
    pruned = model.to_pke(sigma=0.01, xi=2)
    assert pruned.n_kept < exact.n_kept and pruned.stats["trainer"] == "online"
    again = load_classifier(pruned.to_bytes())
    assert isinstance(again, PKE) and again.to_bytes() == pruned.to_bytes()
    numpy.testing.assert_array_equal(again.decision_batch(X), pruned.decision_batch(X))


def test_errors_are_clear():
    X = to_csr([[1], [2]], 3)
    with pytest.raises(ValueError, match="two classes"):
        train_online(X, [1, 1])
    with pytest.raises(ValueError, match="epochs"):
        train_online(X, [1, -1], epochs=0)
    with pytest.raises(ValueError, match="degree"):
        SubsetLearner(0)
    learner = SubsetLearner(2)
    learner.finish()
    indptr, indices = numpy.array([0, 1], dtype=numpy.int64), numpy.array([1], dtype=numpy.int32)
    with pytest.raises(ValueError, match="finished"):
        learner.run(indptr, indices, numpy.array([1], dtype=numpy.int8), numpy.zeros(1, dtype=numpy.int64), 0, 1)


# ---------------------------------------------------------------- progress


def test_progress_lines_during_a_long_call_and_rate_limited_ticks():
    lines = []
    progress = Progress("unit", interval=0.05, write=lines.append)
    with progress.running("sleeping", status=lambda: "zzz"):
        time.sleep(0.3)
    assert lines[0] == "\u2139 [unit] sleeping ..."
    assert any("still running" in line and "zzz" in line for line in lines[1:-1])
    assert lines[-1].startswith("\u2139 [unit] sleeping: done in")
    lines.clear()
    slow = Progress("unit", interval=60.0, write=lines.append)
    assert not slow.tick(lambda: "never")
    assert list(slow.counted(range(1000), "reading", "items")) == list(range(1000))
    assert lines == [lines[-1]] and "1,000 items" in lines[-1]


def test_online_training_prints_every_pass():
    lines = []
    X = to_csr([[0], [1], [0, 1], [2]], 3)
    train_online(X, [1, 1, -1, -1], degree=2, epochs=3, progress=Progress("unit", write=lines.append))
    assert any(line.startswith("\u2139 [unit] online pass 1/3") for line in lines)


def test_support_counted_on_threads_equals_one_pass(monkeypatch):
    """Row ranges counted on four threads at once (atomic counts) give the
    supports and decisions of one pass over all rows; ranges are checked."""
    from concurrent.futures import ThreadPoolExecutor

    from spacy_adf.kernels import online

    rng = numpy.random.default_rng(11)
    xs = random_sets(rng, 300, lo=1)
    amounts = rng.normal(size=len(xs))
    rows = [numpy.unique(numpy.asarray(x, dtype=numpy.int32)) for x in random_sets(rng, 4000)]
    indptr = numpy.concatenate([[0], numpy.cumsum([len(r) for r in rows])]).astype(numpy.int64)
    indices = numpy.concatenate(rows).astype(numpy.int32)

    def learner():
        out = SubsetLearner(3)
        for x, a in zip(xs, amounts):
            out.add(x, float(a))
        return out

    one, many = learner(), learner()
    want = one.count(indptr, indices)
    assert many.atomic_counts
    cuts = [0, 1000, 1001, 2500, 4000]
    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(lambda k: many.count(indptr, indices, cuts[k], cuts[k + 1]), range(4)))
    assert numpy.array_equal(numpy.concatenate(parts), want)
    assert numpy.array_equal(many.arrays()["support"], one.arrays()["support"])
    assert one.arrays()["support"][0] == 4000 and one.arrays()["support"][1:].sum() > 0
    monkeypatch.setattr(online, "_MIN_COUNT_ROWS", 1)
    third = learner()
    assert numpy.array_equal(online.count_support(third, indptr, indices, 4000, threads=3), want)
    assert numpy.array_equal(third.arrays()["support"], one.arrays()["support"])
    with pytest.raises(ValueError, match="not within"):
        one.count(indptr, indices, 10, 4001)
