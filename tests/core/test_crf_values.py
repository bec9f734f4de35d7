"""Real-valued features in the Cython CRF: against a dense numpy reference
written here (log-likelihood, marginals, Viterbi, perceptron step), finite
differences, the binary results for values of 1.0, and a tiny set it must
fit."""
import numpy
import pytest

from spacy_adf.core.adf import SparseADF
from spacy_adf.core.crf import CRFContext, CRFModel
from spacy_adf.core.online import OnlineSteps
from spacy_adf.core.params import SparseGrad

from tests.helpers.crf import log_likelihoods, occurrences, random_batch, random_model, train_crf_online


def _values(rng, n, zeros=True):
    """Real values of mixed sign and size, some exactly 0 (absent) and 1."""
    v = rng.normal(0.0, 1.5, n)
    if zeros and n:
        v[rng.random(n) < 0.15] = 0.0
        v[rng.random(n) < 0.15] = 1.0
    return v.astype(numpy.float32)


# ---------------------------------------------------------------- dense reference

def _dense_weights(model):
    """The model's weights as dense arrays: transitions (L, L), start, end (L),
    state (A, L) and edge (A, L, L) weights, 0 where the layout has no entry."""
    L, A = model.n_labels, model.n_attrs
    w = model.weights.astype(numpy.float64)
    state, edge = numpy.zeros((A, L)), numpy.zeros((A, L, L))
    bp, codes, off = model.block_ptr, model.codes, model.off_blocks
    for a in range(A):
        for k in range(bp[a], bp[a + 1]):
            c = int(codes[k])
            if c < L:
                state[a, c] = w[off + k]
            else:
                edge[a].flat[c - L] = w[off + k]
    return w[:L * L].reshape(L, L), w[L * L:L * L + L], w[L * L + L:L * L + 2 * L], state, edge


def _dense_scores(model, ptr, attrs, vals, start, n):
    """Per-position state scores (n, L) and transition scores into each
    position (n, L, L; row 0 unused): sum of value * weight."""
    trans, w_start, w_end, state, edge = _dense_weights(model)
    L = model.n_labels
    st = numpy.zeros((n, L))
    tr = numpy.zeros((n, L, L))
    for t in range(n):
        lo, hi = ptr[start + t], ptr[start + t + 1]
        a, v = attrs[lo:hi], vals[lo:hi].astype(numpy.float64)
        st[t] = v @ state[a] if len(a) else 0.0
        tr[t] = trans + (numpy.tensordot(v, edge[a], axes=1) if len(a) else 0.0)
    st[0] += w_start
    st[n - 1] += w_end
    return st, tr


def _logsumexp(x, axis):
    mx = x.max(axis=axis, keepdims=True)
    return numpy.squeeze(mx, axis) + numpy.log(numpy.exp(x - mx).sum(axis=axis))


def dense_reference(model, ptr, attrs, vals, start, n):
    """(log Z, marginals (n, L), Viterbi path) in log space with numpy."""
    st, tr = _dense_scores(model, ptr, attrs, vals, start, n)
    L = model.n_labels
    fwd = numpy.zeros((n, L))
    bwd = numpy.zeros((n, L))
    fwd[0] = st[0]
    for t in range(1, n):
        fwd[t] = _logsumexp(fwd[t - 1][:, None] + tr[t], axis=0) + st[t]
    for t in range(n - 2, -1, -1):
        bwd[t] = _logsumexp(tr[t + 1] + (st[t + 1] + bwd[t + 1])[None, :], axis=1)
    log_z = _logsumexp(fwd[-1], axis=0)
    marg = numpy.exp(fwd + bwd - log_z)
    delta = st[0].copy()
    back = numpy.zeros((n, L), dtype=int)
    for t in range(1, n):
        cand = delta[:, None] + tr[t]
        back[t] = cand.argmax(axis=0)  # the first best previous label, as the kernel takes
        delta = cand.max(axis=0) + st[t]
    path = [int(delta.argmax())]
    for t in range(n - 1, 0, -1):
        path.append(int(back[t, path[-1]]))
    return log_z, marg, numpy.array(path[::-1])


def dense_path_score(model, ptr, attrs, vals, start, n, labels):
    st, tr = _dense_scores(model, ptr, attrs, vals, start, n)
    return st[numpy.arange(n), labels].sum() + sum(tr[t, labels[t - 1], labels[t]] for t in range(1, n))


# ---------------------------------------------------------------- tests

@pytest.mark.parametrize("edge_mode", ["none", "some", "all"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_likelihood_marginals_viterbi_match_dense_reference(edge_mode, seed):
    rng = numpy.random.default_rng(seed)
    model = random_model(rng, n_labels=3, n_attrs=7, edge_mode=edge_mode)
    lengths = [1, 2, 5, 8]
    ss, ptr, attrs = random_batch(rng, 7, lengths)
    vals = _values(rng, len(attrs))
    marg = model.marginals(ss, ptr, attrs, values=vals)
    best = model.viterbi(ss, ptr, attrs, values=vals)
    labels = rng.integers(0, 3, int(ss[-1])).astype(numpy.int32)
    loglik = log_likelihoods(model, ss, ptr, attrs, labels, values=vals)
    for i, n in enumerate(lengths):
        s = ss[i]
        ref_z, ref_marg, ref_path = dense_reference(model, ptr, attrs, vals, s, n)
        numpy.testing.assert_allclose(marg[s:s + n], ref_marg, atol=1e-6)
        numpy.testing.assert_array_equal(best[s:s + n], ref_path)
        want = dense_path_score(model, ptr, attrs, vals, s, n, labels[s:s + n]) - ref_z
        assert loglik[i] == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_values_change_the_results():
    """The reference comparison above is not vacuous: the same attributes
    with other values give another likelihood."""
    rng = numpy.random.default_rng(9)
    model = random_model(rng, n_labels=3, n_attrs=6)
    ss, ptr, attrs = random_batch(rng, 6, [6])
    gold = numpy.zeros(6, dtype=numpy.int32)
    assert abs(log_likelihoods(model, ss, ptr, attrs, gold)[0]
               - log_likelihoods(model, ss, ptr, attrs, gold, values=_values(rng, len(attrs)))[0]) > 1e-3


def test_gradient_with_values_matches_finite_differences():
    rng = numpy.random.default_rng(3)
    model = random_model(rng, n_labels=3, n_attrs=5, edge_mode="some", scale=0.5)
    # weights on a 2^-10 grid so +-eps perturbations are exact in float32
    model.set_weights(numpy.round(model.weights * 1024) / 1024)
    ss, ptr, attrs = random_batch(rng, 5, [3, 4])
    vals = _values(rng, len(attrs))
    gold = rng.integers(0, 3, int(ss[-1])).astype(numpy.int32)
    grad = SparseGrad(model)
    ll = model.accumulate_gradient(ss, ptr, attrs, gold, grad, values=vals)
    dense = grad.to_dense()

    def loglik(w):
        m = CRFModel(3, model.block_ptr, model.codes, w)
        return m.accumulate_gradient(ss, ptr, attrs, gold, SparseGrad(m), values=vals)

    w0 = model.weights.copy()
    assert ll == pytest.approx(sum(dense_path_score(model, ptr, attrs, vals, a, b - a, gold[a:b])
                                   - dense_reference(model, ptr, attrs, vals, a, b - a)[0]
                                   for a, b in zip(ss[:-1], ss[1:])), rel=1e-9)
    eps = 2.0 ** -7
    for j in range(model.n_weights):
        wp, wm = w0.copy(), w0.copy()
        wp[j] += eps
        wm[j] -= eps
        fd = (loglik(wp) - loglik(wm)) / (2 * eps)
        assert dense[j] == pytest.approx(fd, abs=5e-4), f"weight {j}"
    assert numpy.abs(dense).sum() > 0.1


def test_zero_values_are_absent_attributes():
    """An entry of value 0 gives the results of dropping it, and its group
    is not touched (ADF does not count it as occurring)."""
    rng = numpy.random.default_rng(11)
    model = random_model(rng, n_labels=3, n_attrs=40)
    ss = numpy.array([0, 3], dtype=numpy.int64)
    ptr = numpy.array([0, 2, 3, 5], dtype=numpy.int64)
    attrs = numpy.array([7, 11, 20, 7, 30], dtype=numpy.int32)
    vals = numpy.array([0.5, 0.0, -2.0, 1.5, 0.0], dtype=numpy.float32)
    keep = vals != 0
    ptr_kept = numpy.concatenate([[0], numpy.cumsum([keep[ptr[t]:ptr[t + 1]].sum() for t in range(3)])])
    gold = numpy.array([0, 2, 1], dtype=numpy.int32)
    g_full, g_kept = SparseGrad(model), SparseGrad(model)
    ll = model.accumulate_gradient(ss, ptr, attrs, gold, g_full, values=vals)
    ll_kept = model.accumulate_gradient(ss, ptr_kept, attrs[keep], gold, g_kept, values=vals[keep])
    assert ll == ll_kept
    assert sorted(occurrences(g_full)) == [0, 8, 21]
    numpy.testing.assert_array_equal(g_full.to_dense(), g_kept.to_dense())
    numpy.testing.assert_array_equal(model.viterbi(ss, ptr, attrs, values=vals),
                                     model.viterbi(ss, ptr_kept, attrs[keep], values=vals[keep]))


def _sequences(ss, ptr, attrs, gold, vals=None):
    out = []
    for i in range(len(ss) - 1):
        a, b = ss[i], ss[i + 1]
        p = ptr[a:b + 1]
        seq = (numpy.ascontiguousarray(p - p[0]), attrs[p[0]:p[-1]].copy(), gold[a:b].copy())
        out.append(seq if vals is None else seq + (vals[p[0]:p[-1]].copy(),))
    return out


@pytest.mark.parametrize("edge_mode", ["some", "all"])
def test_values_of_one_give_the_binary_results_exactly(edge_mode):
    rng = numpy.random.default_rng(5)
    model = random_model(rng, n_labels=4, n_attrs=30, edge_mode=edge_mode, scale=0.7)
    lengths = [1, 3, 9, 20]
    ss, ptr, attrs = random_batch(rng, 30, lengths, max_active=5)
    ones = numpy.ones(len(attrs), dtype=numpy.float32)
    gold = rng.integers(0, 4, int(ss[-1])).astype(numpy.int32)
    for name, args in [("viterbi", ()), ("marginals", ())]:
        fn = getattr(model, name)
        a, b = fn(ss, ptr, attrs, *args), fn(ss, ptr, attrs, *args, values=ones)
        assert a.tobytes() == b.tobytes(), name
    g_bin, g_val = SparseGrad(model), SparseGrad(model)
    ll_bin = model.accumulate_gradient(ss, ptr, attrs, gold, g_bin)
    ll_val = model.accumulate_gradient(ss, ptr, attrs, gold, g_val, values=ones)
    assert ll_bin == ll_val
    assert g_bin.to_dense().tobytes() == g_val.to_dense().tobytes()
    assert occurrences(g_bin) == occurrences(g_val)

    # on-line training: ADF with averages, and the perceptron
    for perceptron in (False, True):
        trained = []
        for vals in (None, ones):
            m = CRFModel(4, model.block_ptr, model.codes, model.weights.copy())
            state = SparseADF(m, c=0.2, alpha=0.99, beta=0.6, window=2, inv_n_sigma2=0.01, use_averages=True)
            seqs = _sequences(ss, ptr, attrs, gold, vals)
            total = train_crf_online(m, state, SparseGrad(m), seqs * 3, minibatch=2, perceptron=perceptron)
            trained.append((total, m.weights.tobytes(), state.averaged_weights().tobytes(),
                            state.learning_rates().tobytes()))
        assert trained[0] == trained[1]


def test_perceptron_step_is_gold_minus_prediction_values():
    """The perceptron direction with values: f(x, gold) - f(x, viterbi), f
    the dense value-weighted feature vector (path scores are linear in w)."""
    rng = numpy.random.default_rng(8)
    model = random_model(rng, n_labels=3, n_attrs=6, edge_mode="some")
    ss, ptr, attrs = random_batch(rng, 6, [7])
    vals = _values(rng, len(attrs))
    gold = rng.integers(0, 3, 7).astype(numpy.int32)
    pred = model.viterbi(ss, ptr, attrs, values=vals)
    assert (pred != gold).any()

    def phi(labels):
        out = numpy.zeros(model.n_weights)
        for j in range(model.n_weights):
            e = numpy.zeros(model.n_weights, numpy.float32)
            e[j] = 1.0
            out[j] = dense_path_score(CRFModel(3, model.block_ptr, model.codes, e), ptr, attrs, vals, 0, 7, labels)
        return out

    state = SparseADF(model, c=1.0, alpha=1.0, beta=1.0, window=10)
    before = model.weights.astype(numpy.float64)
    seq = _sequences(ss, ptr, attrs, gold, vals)
    errors = -train_crf_online(model, state, SparseGrad(model), seq, perceptron=True)
    assert errors == int((pred != gold).sum())
    numpy.testing.assert_allclose(model.weights - before, phi(gold) - phi(pred), atol=1e-5)


def _sign_problem(rng, n_seq):
    """Label 1 where a token's real value is positive (values kept away
    from 0): separable by the state weights of the valued attribute and a
    bias attribute."""
    seqs = []
    for _ in range(n_seq):
        n = int(rng.integers(2, 9))
        x = rng.uniform(-1.0, 1.0, n)
        x[numpy.abs(x) < 0.05] = 0.3
        gold = (x > 0).astype(numpy.int32)
        ptr = numpy.arange(0, 2 * n + 1, 2, dtype=numpy.int64)
        attrs = numpy.tile(numpy.array([0, 1], dtype=numpy.int32), n)  # 0: the value, 1: a bias
        vals = numpy.empty(2 * n, dtype=numpy.float32)
        vals[0::2] = x
        vals[1::2] = 1.0
        seqs.append((ptr, attrs, gold, vals))
    return seqs


@pytest.mark.parametrize("perceptron", [False, True])
def test_overfits_a_tiny_valued_set(perceptron):
    """Only real-valued evidence: label by the sign of the value. Binary
    features could not tell the tokens apart (the attributes are the same
    everywhere), so this needs the values."""
    rng = numpy.random.default_rng(0)
    seqs = _sign_problem(rng, 30)
    model = CRFModel(2, numpy.array([0, 2, 4]), numpy.array([0, 1, 0, 1], dtype=numpy.uint16))
    state = SparseADF(model, c=1.0 if perceptron else 0.5, alpha=1.0 if perceptron else 0.995,
                      beta=1.0 if perceptron else 0.6, window=10)
    grad, ctx = SparseGrad(model), CRFContext()
    for _ in range(40):
        OnlineSteps(model, state, grad, seqs, 1, ctx, perceptron).run()
    state.flush()
    errors = 0
    for ptr, attrs, gold, vals in seqs:
        pred = model.viterbi([0, len(gold)], ptr, attrs, values=vals)
        errors += int((pred != gold).sum())
    assert errors == 0
    assert model.weights[model.off_blocks + 1] > model.weights[model.off_blocks]  # label 1 likes positive values


def test_bad_values_are_refused():
    rng = numpy.random.default_rng(0)
    model = random_model(rng, n_labels=2, n_attrs=3)
    ss, ptr, attrs = [0, 2], numpy.array([0, 1, 2]), numpy.array([0, 2], dtype=numpy.int32)
    with pytest.raises(ValueError, match="2 attribute entries"):
        model.viterbi(ss, ptr, attrs, values=numpy.ones(3, numpy.float32))
    with pytest.raises(ValueError, match="finite"):
        model.accumulate_gradient(ss, ptr, attrs, [0, 1], SparseGrad(model), values=numpy.array([1.0, numpy.nan]))
    with pytest.raises(ValueError, match="finite"):
        model.marginals(ss, ptr, attrs, values=numpy.array([1e300, 1.0]))  # inf as float32
    seq = (numpy.array(ptr, dtype=numpy.int64), attrs, numpy.zeros(2, numpy.int32))
    state = SparseADF(model, c=0.1, window=3)
    for vals, match in [(numpy.ones(1, numpy.float32), "do not match"),
                        (numpy.array([numpy.inf, 1.0], numpy.float32), "finite")]:
        with pytest.raises(ValueError, match=match):
            OnlineSteps(model, state, SparseGrad(model), [seq + (vals,)])


def test_linear_crf_gradient_and_batch_objective_take_valued_samples():
    """LinearChainCRF's dense-optimizer paths (accumulate_gradient, the
    L-BFGS objective) with valued samples mixed with binary ones: the
    summed gradient of the core's batch calls."""
    from spacy_adf.features.extract import FeatureTable
    from spacy_adf.models.linear_crf import LinearChainCRF

    rng = numpy.random.default_rng(4)
    model = random_model(rng, n_labels=3, n_attrs=8, scale=0.3)
    crf = LinearChainCRF()
    crf.set(FeatureTable(numpy.arange(2, 10, dtype=numpy.uint64)), model)
    ss, ptr, attrs = random_batch(rng, 8, [4, 3, 5])
    vals = _values(rng, len(attrs))
    gold = rng.integers(0, 3, int(ss[-1])).astype(numpy.int32)
    samples = _sequences(ss, ptr, attrs, gold, vals)
    samples[1] = samples[1][:3]  # a binary sample: its values are 1
    vals_mixed = vals.copy()
    vals_mixed[ptr[ss[1]]:ptr[ss[2]]] = 1.0
    expected = SparseGrad(model)
    ll = model.accumulate_gradient(ss, ptr, attrs, gold, expected, values=vals_mixed)
    grad = SparseGrad(model)
    assert crf.accumulate_gradient(grad, samples, False) == pytest.approx(ll, rel=1e-12)
    numpy.testing.assert_allclose(grad.to_dense(), expected.to_dense(), atol=1e-12)
    f_ll, f_grad = crf.batch_objective(samples)(model.weights.astype(numpy.float64))
    assert f_ll == pytest.approx(ll, rel=1e-12)
    numpy.testing.assert_allclose(f_grad, expected.to_dense(), atol=1e-12)
