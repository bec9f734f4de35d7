"""On-line steps on the background thread (OnlineSteps.start / wait) give
bit-identical weights, optimizer state and results to the same steps run in
the calling thread; bad input is refused before any step."""
import os

import numpy
import pytest

from spacy_adf.core.adf import SparseADF
from spacy_adf.core.crf import CRFContext
from spacy_adf.core.online import OnlineSteps
from spacy_adf.core.params import SparseGrad

from tests.helpers.crf import random_batch, random_model, train_crf_online


def _problem(seed=0, n_seq=40, n_attrs=30, L=4, max_len=12):
    rng = numpy.random.default_rng(seed)
    model = random_model(rng, n_labels=L, n_attrs=n_attrs, edge_mode="some", scale=0.1)
    lengths = rng.integers(0, max_len, n_seq)  # some empty sequences too
    ss, ptr, attrs = random_batch(rng, n_attrs, lengths, max_active=5)
    gold = rng.integers(0, L, int(ss[-1])).astype(numpy.int32)
    seqs = []
    for i in range(n_seq):
        a, b = ss[i], ss[i + 1]
        p = ptr[a:b + 1]
        seqs.append((numpy.ascontiguousarray(p - p[0]), attrs[p[0]:p[-1]].copy(), gold[a:b].copy()))
    return model, seqs


def _state(model, n, **kw):
    return SparseADF(model, c=0.3, alpha=0.99, beta=0.6, window=max(n // 3, 1),
                     inv_n_sigma2=1.0 / (n * 4.0), **kw)


def _train(background, minibatch=1, perceptron=False, use_averages=False, grad_clip=0.0, chunks=5):
    model, seqs = _problem()
    state = _state(model, len(seqs), use_averages=use_averages, grad_clip=grad_clip)
    grad, ctx = SparseGrad(model), CRFContext()
    results = []
    for epoch in range(3):
        for i in range(0, len(seqs), chunks):
            steps = OnlineSteps(model, state, grad, seqs[i:i + chunks], minibatch, ctx, perceptron)
            if background:
                steps.start()
                results.append(steps.wait())
            else:
                results.append(steps.run())
    state.flush()
    extra = state.averaged_weights() if use_averages else None
    return model.weights.copy(), state.learning_rates(), results, extra


@pytest.mark.parametrize("options", [
    {}, {"minibatch": 3}, {"perceptron": True}, {"use_averages": True}, {"grad_clip": 0.5},
])
def test_background_steps_are_bit_identical(options):
    w_a, r_a, res_a, avg_a = _train(False, **options)
    w_b, r_b, res_b, avg_b = _train(True, **options)
    assert w_a.tobytes() == w_b.tobytes()
    assert r_a.tobytes() == r_b.tobytes()
    assert res_a == res_b
    if avg_a is not None:
        assert avg_a.tobytes() == avg_b.tobytes()


def test_one_run_equals_train_crf_online():
    model_a, seqs = _problem()
    model_b, _ = _problem()
    state_a, state_b = _state(model_a, len(seqs)), _state(model_b, len(seqs))
    total_a = train_crf_online(model_a, state_a, SparseGrad(model_a), seqs)
    steps = OnlineSteps(model_b, state_b, SparseGrad(model_b), seqs)
    steps.start()
    assert steps.wait() == total_a
    assert model_a.weights.tobytes() == model_b.weights.tobytes()
    assert total_a < 0


def test_on_done_called_once_and_wait_repeats_the_result():
    model, seqs = _problem()
    steps = OnlineSteps(model, _state(model, len(seqs)), SparseGrad(model), seqs)
    seen = []
    steps.on_done = seen.append
    steps.start()
    total = steps.wait()
    assert steps.wait() == total and steps.done
    assert seen == [total]
    with pytest.raises(RuntimeError, match="already run"):
        steps.start()


def test_a_second_start_waits_for_the_first():
    # two models, one run in flight at a time: the second start collects the first
    model_a, seqs = _problem(seed=1)
    model_b, _ = _problem(seed=1)
    ref, _ = _problem(seed=1)
    state_ref = _state(ref, len(seqs))
    expected = train_crf_online(ref, state_ref, SparseGrad(ref), seqs)
    seen = []
    a = OnlineSteps(model_a, _state(model_a, len(seqs)), SparseGrad(model_a), seqs)
    a.on_done = seen.append
    b = OnlineSteps(model_b, _state(model_b, len(seqs)), SparseGrad(model_b), seqs)
    a.start()
    b.start()
    assert seen == [expected]  # collected by b.start()
    assert a.wait() == expected == b.wait()
    assert model_a.weights.tobytes() == model_b.weights.tobytes() == ref.weights.tobytes()


@pytest.mark.parametrize("bad, message", [
    (lambda s: (s[0], numpy.array([99], numpy.int32), s[2]), "attribute id out of range"),
    (lambda s: (s[0][:-1], s[1], s[2]), "malformed sequence features"),
    (lambda s: (s[0], s[1], numpy.full(len(s[2]), 7, numpy.int32)), "gold label id out of range"),
])
def test_bad_sequences_refused_before_any_step(bad, message):
    model, seqs = _problem()
    before = model.weights.copy()
    seqs = list(seqs)
    k = next(i for i, s in enumerate(seqs) if len(s[2]) > 1)
    seqs[k] = bad(seqs[k])
    with pytest.raises(ValueError, match=message):
        OnlineSteps(model, _state(model, len(seqs)), SparseGrad(model), seqs)
    assert model.weights.tobytes() == before.tobytes()  # the good sequences before it did not step


def test_mismatched_state_refused():
    model, seqs = _problem()
    other, _ = _problem(seed=3)
    with pytest.raises(ValueError, match="do not belong together"):
        OnlineSteps(model, _state(other, len(seqs)), SparseGrad(model), seqs)
    with pytest.raises(ValueError, match="minibatch"):
        OnlineSteps(model, _state(model, len(seqs)), SparseGrad(model), seqs, 0)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_fork_while_steps_run_leaves_a_working_child():
    model, seqs = _problem()
    state = _state(model, len(seqs))
    steps = OnlineSteps(model, state, SparseGrad(model), seqs * 20)
    steps.start()
    pid = os.fork()  # the fork hook waits for the run in flight
    if pid == 0:  # child: the weights are whole and a new run works
        code = 0
        try:
            more = OnlineSteps(model, state, SparseGrad(model), seqs)
            more.start()
            more.wait()
        except BaseException:
            code = 1
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert steps.done and steps.wait() < 0
