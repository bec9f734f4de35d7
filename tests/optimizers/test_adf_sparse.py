"""Sparse ADF against its literal dense test oracle (tests.helpers.dense_adf)."""
import numpy
import pytest

from spacy_adf.core.adf import SparseADF
from spacy_adf.core.crf import CRFModel
from spacy_adf.core.params import SparseGrad

from tests.helpers.crf import random_batch, random_model
from tests.helpers.dense_adf import DenseADFReference, group_of_weights


def _run_both(batch_sizes, *, use_averages, inv_n_sigma2=0.003, window=5, seed=0, n_attrs=40, valued=False):
    """The sparse ADF state and the dense reference through the same
    batches; `valued`: real-valued features, some values 0 (absent: the
    reference counts a group in a sample only where its value is not 0)."""
    rng = numpy.random.default_rng(seed)
    model = random_model(rng, n_labels=3, n_attrs=n_attrs, edge_mode="some")
    model.set_weights(numpy.zeros(model.n_weights, numpy.float32))
    n_seq = sum(batch_sizes)
    lengths = rng.integers(1, 6, n_seq)
    ss, ptr, attrs = random_batch(rng, n_attrs, lengths, max_active=4)
    gold = rng.integers(0, 3, int(ss[-1])).astype(numpy.int32)
    vals = None
    if valued:
        vals = rng.normal(0.0, 1.0, len(attrs)).astype(numpy.float32)
        vals[rng.random(len(attrs)) < 0.2] = 0.0
    sparse = SparseADF(model, c=0.3, alpha=0.9, beta=0.5, window=window,
                       inv_n_sigma2=inv_n_sigma2, use_averages=use_averages)
    ref = DenseADFReference(model.n_weights, group_of_weights(model.off_blocks, model.block_ptr), c=0.3, alpha=0.9,
                            beta=0.5, window=window, inv_n_sigma2=inv_n_sigma2)
    ref_model = CRFModel(3, model.block_ptr, model.codes)
    grad = SparseGrad(model)
    ref_grad = SparseGrad(ref_model)
    i = 0
    for B in batch_sizes:
        sl = slice(i, i + B + 1)
        b_ss = ss[sl] - ss[i]
        p0, p1 = ss[i], ss[i + B]
        b_ptr = ptr[p0:p1 + 1]
        b_gold = gold[p0:p1]
        sparse.flush()  # the weights the forward pass reads, caught up (all of them: a test)
        model.accumulate_gradient(b_ss, b_ptr, attrs, b_gold, grad, values=vals)
        sparse.update(grad)
        grad.clear()
        ref_model.set_weights(ref.w.astype(numpy.float32))
        ref_model.accumulate_gradient(b_ss, b_ptr, attrs, b_gold, ref_grad, values=vals)
        groups = []
        for s in range(i, i + B):
            lo, hi = ptr[ss[s]], ptr[ss[s + 1]]
            g = {0} | {int(a) + 1 for j, a in enumerate(attrs[lo:hi]) if vals is None or vals[lo + j] != 0}
            groups.append(g)
        ref.update(ref_grad.to_dense(), groups)
        ref_grad.clear()
        i += B
    return model, sparse, ref


@pytest.mark.parametrize("batch_sizes", [[1] * 60, [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]])
def test_sparse_equals_dense_reference(batch_sizes):
    model, sparse, ref = _run_both(batch_sizes, use_averages=False)
    sparse.flush()
    assert numpy.abs(ref.w).max() > 0.05  # training did something
    numpy.testing.assert_allclose(model.weights, ref.w, atol=2e-5, rtol=1e-4)
    # learning rates match the reference's per-group rates
    numpy.testing.assert_allclose(sparse.learning_rates(), ref.gamma, rtol=1e-5)
    assert sparse.n_windows > 3


@pytest.mark.parametrize("use_averages", [False, True])
def test_sparse_equals_dense_reference_with_values(use_averages):
    """Real-valued gradients: the same weights, rates and averages as the
    dense algorithm, whose frequency counts skip zero values."""
    batch_sizes = [1] * 40 + [3, 1, 4, 1, 5, 9, 2]
    model, sparse, ref = _run_both(batch_sizes, use_averages=use_averages, valued=True)
    sparse.flush()
    assert numpy.abs(ref.w).max() > 0.05
    numpy.testing.assert_allclose(model.weights, ref.w, atol=2e-5, rtol=1e-4)
    numpy.testing.assert_allclose(sparse.learning_rates(), ref.gamma, rtol=1e-5)
    if use_averages:
        numpy.testing.assert_allclose(sparse.averaged_weights(), ref.averaged(), atol=2e-5, rtol=1e-4)
    # the counts are not all-or-nothing: the zero values changed some rates
    _, plain, _ = _run_both(batch_sizes, use_averages=use_averages, valued=False)
    assert not numpy.allclose(plain.learning_rates(), sparse.learning_rates())


def test_sparse_averages_equal_dense_reference():
    model, sparse, ref = _run_both([1] * 40 + [2, 3, 1, 4], use_averages=True)
    avg = sparse.averaged_weights()
    numpy.testing.assert_allclose(avg, ref.averaged(), atol=2e-5, rtol=1e-4)
    numpy.testing.assert_allclose(model.weights, ref.w, atol=2e-5, rtol=1e-4)


def test_lazy_l2_matters():
    """Without the prior the weights differ: the equality above is not vacuous."""
    model_a, sa, _ = _run_both([1] * 60, use_averages=False, inv_n_sigma2=0.05)
    model_b, sb, _ = _run_both([1] * 60, use_averages=False, inv_n_sigma2=0.0)
    sa.flush()
    sb.flush()
    assert numpy.abs(model_a.weights - model_b.weights).max() > 1e-3


def test_frequent_features_decay_faster():
    model, sparse, ref = _run_both([1] * 60, use_averages=False, window=10)
    rates = sparse.learning_rates()
    # group 0 (transitions) occurs in every sample: lowest rate of all
    assert rates[0] == pytest.approx(rates.min())
    assert rates[0] < rates[1:].max()


def test_bad_configuration_errors():
    rng = numpy.random.default_rng(0)
    model = random_model(rng)
    with pytest.raises(ValueError, match="beta"):
        SparseADF(model, c=0.1, alpha=0.5, beta=0.9, window=3)
    with pytest.raises(ValueError, match="window"):
        SparseADF(model, c=0.1, window=0)
    with pytest.raises(ValueError, match="learn_rate"):
        SparseADF(model, c=-1.0, window=3)
    other = random_model(rng)
    g = SparseGrad(other)
    with pytest.raises(ValueError, match="another model"):
        SparseADF(model, c=0.1, window=3).update(g)


@pytest.mark.parametrize("minibatch", [1, 3])
def test_online_loop_equals_dense_reference(minibatch):
    """The component's C training loop (catch-up, gradient, step per
    mini-batch) ends where the literal dense algorithm ends."""
    from tests.helpers.crf import train_crf_online

    batch_sizes = [minibatch] * (45 // minibatch)
    _, _, ref = _run_both(batch_sizes, use_averages=False, seed=7)
    rng = numpy.random.default_rng(7)
    model = random_model(rng, n_labels=3, n_attrs=40, edge_mode="some")
    model.set_weights(numpy.zeros(model.n_weights, numpy.float32))
    lengths = rng.integers(1, 6, sum(batch_sizes))
    ss, ptr, attrs = random_batch(rng, 40, lengths, max_active=4)
    gold = rng.integers(0, 3, int(ss[-1])).astype(numpy.int32)
    seqs = []
    for i in range(len(lengths)):
        p0, p1 = ss[i], ss[i + 1]
        seqs.append((ptr[p0:p1 + 1] - ptr[p0], attrs[ptr[p0]:ptr[p1]].copy(), gold[p0:p1].copy()))
    state = SparseADF(model, c=0.3, alpha=0.9, beta=0.5, window=5, inv_n_sigma2=0.003)
    train_crf_online(model, state, SparseGrad(model), seqs, minibatch=minibatch)
    state.flush()
    numpy.testing.assert_allclose(model.weights, ref.w, atol=2e-5, rtol=1e-4)


@pytest.mark.parametrize("setting", [
    {"learn_rate": float("nan")}, {"learn_rate": float("inf")}, {"grad_clip": -1.0},
    {"grad_clip": float("nan")}, {"L2": float("nan")}, {"sigma": float("inf")}, {"alpha": float("nan")},
])
def test_non_finite_or_negative_settings_are_rejected(setting):
    from spacy_adf.optimizers.adf import ADF

    args = {"learn_rate": 0.05, **setting}
    with pytest.raises(ValueError, match="finite|grad_clip"):
        ADF(args.pop("learn_rate"), **args)


def test_sgd_rejects_nan_rate():
    from spacy_adf.optimizers.sgd import SGD

    with pytest.raises(ValueError, match="finite"):
        SGD(float("nan"))
