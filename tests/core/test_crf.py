"""The Cython CRF against brute force and finite differences."""
import numpy
import pytest

from spacy_adf.core.crf import CRFModel
from spacy_adf.core.params import SparseGrad

from tests.helpers.crf import (brute_force, log_likelihoods, occurrences, path_score_dense, random_batch,
                               random_model)


@pytest.mark.parametrize("edge_mode", ["none", "some", "all"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_likelihood_marginals_viterbi_match_brute_force(edge_mode, seed):
    rng = numpy.random.default_rng(seed)
    model = random_model(rng, n_labels=3, n_attrs=7, edge_mode=edge_mode)
    lengths = [1, 2, 4, 5]
    ss, ptr, attrs = random_batch(rng, 7, lengths)
    labels = rng.integers(0, 3, int(ss[-1])).astype(numpy.int32)
    loglik = log_likelihoods(model, ss, ptr, attrs, labels)
    marg = model.marginals(ss, ptr, attrs)
    best = model.viterbi(ss, ptr, attrs)
    for i, n in enumerate(lengths):
        s = ss[i]
        bz, bm, bpath, bscore = brute_force(model, ptr, attrs, s, n)
        want = path_score_dense(model, ptr, attrs, s, n, labels[s:s + n]) - bz
        assert loglik[i] == pytest.approx(want, rel=1e-9, abs=1e-9)
        numpy.testing.assert_allclose(marg[s:s + n], bm, atol=1e-6)
        numpy.testing.assert_array_equal(best[s:s + n], bpath)


def test_gradient_matches_finite_differences():
    rng = numpy.random.default_rng(3)
    model = random_model(rng, n_labels=3, n_attrs=5, edge_mode="some", scale=0.5)
    # weights on a 2^-10 grid so +-eps perturbations are exact in float32
    model.set_weights(numpy.round(model.weights * 1024) / 1024)
    ss, ptr, attrs = random_batch(rng, 5, [3, 4])
    gold = rng.integers(0, 3, int(ss[-1])).astype(numpy.int32)
    grad = SparseGrad(model)
    ll = model.accumulate_gradient(ss, ptr, attrs, gold, grad)
    dense = grad.to_dense()

    def loglik(w):
        m = CRFModel(3, model.block_ptr, model.codes, w)
        return m.accumulate_gradient(ss, ptr, attrs, gold, SparseGrad(m))

    w0 = model.weights.copy()
    assert ll == pytest.approx(sum(path_score_dense(model, ptr, attrs, ss[i], ss[i + 1] - ss[i], gold[ss[i]:ss[i + 1]])
                                   - brute_force(model, ptr, attrs, ss[i], ss[i + 1] - ss[i])[0]
                                   for i in range(2)), rel=1e-9)
    eps = 2.0 ** -7
    checked = 0
    for j in range(model.n_weights):
        wp, wm = w0.copy(), w0.copy()
        wp[j] += eps
        wm[j] -= eps
        fd = (loglik(wp) - loglik(wm)) / (2 * eps)
        assert dense[j] == pytest.approx(fd, abs=2e-4), f"weight {j}"
        checked += 1
    assert checked == model.n_weights
    assert numpy.abs(dense).sum() > 0.1


def test_gradient_touches_only_active_groups():
    rng = numpy.random.default_rng(4)
    model = random_model(rng, n_labels=3, n_attrs=50)
    ss = numpy.array([0, 2], dtype=numpy.int64)
    ptr = numpy.array([0, 1, 2], dtype=numpy.int64)
    attrs = numpy.array([7, 11], dtype=numpy.int32)
    grad = SparseGrad(model)
    model.accumulate_gradient(ss, ptr, attrs, numpy.array([0, 1], dtype=numpy.int32), grad)
    assert sorted(occurrences(grad)) == [0, 8, 12]
    dense = grad.to_dense()
    untouched = numpy.ones(model.n_weights, bool)
    for g in (0, 8, 12):
        start = 0 if g == 0 else model.off_blocks + model.block_ptr[g - 1]
        end = model.off_blocks + (0 if g == 0 else model.block_ptr[g])
        untouched[start:end] = False
    assert not dense[untouched].any()


def test_long_sequence_is_stable_and_matches_short_pieces():
    """100,000 positions: marginals sum to one, and with no transition
    weights the sequence factorises, so log Z is a sum of per-position terms."""
    rng = numpy.random.default_rng(6)
    model = random_model(rng, n_labels=4, n_attrs=30, edge_mode="none", scale=2.0)
    w = model.weights.copy()
    w[: 16] = 0.0  # no transition weights: positions independent
    model.set_weights(w)
    n = 100_000
    ss, ptr, attrs = random_batch(rng, 30, [n])
    zeros = numpy.zeros(n, dtype=numpy.int32)
    log_z = path_score_dense(model, ptr, attrs, 0, n, zeros) - log_likelihoods(model, ss, ptr, attrs, zeros)[0]
    assert numpy.isfinite(log_z)
    marg = model.marginals(ss, ptr, attrs)
    numpy.testing.assert_allclose(marg.sum(axis=1), 1.0, atol=1e-4)
    L = 4
    best = model.viterbi(ss, ptr, attrs)
    assert best.shape == (n,)
    st = numpy.zeros((n, L))
    for t in range(n):
        for a in attrs[ptr[t]:ptr[t + 1]]:
            st[t] += w[model.off_blocks + a * L: model.off_blocks + a * L + L]
    st[0] += w[L * L:L * L + L]
    st[-1] += w[L * L + L:L * L + 2 * L]
    mx = st.max(axis=1, keepdims=True)
    expected = (mx[:, 0] + numpy.log(numpy.exp(st - mx).sum(axis=1))).sum()
    assert log_z == pytest.approx(expected, rel=1e-9)
    # with independent positions Viterbi picks each position's best state
    numpy.testing.assert_array_equal(best, st.argmax(axis=1))
    numpy.testing.assert_array_equal(best, marg.argmax(axis=1))


def test_bad_inputs_raise():
    rng = numpy.random.default_rng(0)
    model = random_model(rng, n_labels=2, n_attrs=3)
    with pytest.raises(ValueError, match="attribute id"):
        model.viterbi([0, 1], [0, 1], numpy.array([5], dtype=numpy.int32))
    with pytest.raises(ValueError, match="pos_ptr"):
        model.viterbi([0, 2], [0, 1], numpy.array([0], dtype=numpy.int32))
    with pytest.raises(ValueError, match="weights have shape"):
        CRFModel(2, model.block_ptr, model.codes, numpy.zeros(3, numpy.float32))
    with pytest.raises(ValueError, match="increasing"):
        CRFModel(2, [0, 3], numpy.array([1, 0, 2], dtype=numpy.uint16))
    # an empty sequence inside a batch is skipped, not a crash
    out = model.viterbi([0, 0, 1], [0, 1], numpy.array([1], dtype=numpy.int32))
    assert out.shape == (1,)
