"""Training methods on tiny problems: each reaches its expected optimum or
fixed point (perceptron: separates separable data; L-BFGS: scipy's optimum
of an independent dense objective; ADF and SGD: close to that optimum), the
perceptron step and averages against dense references, SGD's rate schedule,
and every method from a spaCy config."""
import itertools

import numpy
import pytest
import spacy
from scipy.optimize import minimize
from thinc.api import Config

from spacy_adf.core.adf import SparseADF
from spacy_adf.core.params import SparseGrad
from spacy_adf.optimizers.perceptron import Perceptron
from spacy_adf.optimizers.sgd import SGD
from spacy_adf.training.lbfgs import train_lbfgs

from tests.helpers.crf import path_score_dense, random_batch, random_model, train_crf_online
from tests.helpers.tiny_data import chunk_examples


def _sequences(ss, ptr, attrs, gold):
    out = []
    for i in range(len(ss) - 1):
        a, b = ss[i], ss[i + 1]
        p = ptr[a:b + 1]
        out.append((numpy.ascontiguousarray(p - p[0]), attrs[p[0]:p[-1]].copy(), gold[a:b].copy()))
    return out


def _features(model, seq, labels):
    """Phi(x, y) as a dense vector: the path score is linear in the weights."""
    ptr, attrs, _ = seq
    n = len(labels)
    saved = model.weights.copy()
    phi = numpy.zeros(model.n_weights)
    for j in range(model.n_weights):
        e = numpy.zeros(model.n_weights, numpy.float32)
        e[j] = 1.0
        model.set_weights(e)
        phi[j] = path_score_dense(model, ptr, attrs, 0, n, labels)
    model.set_weights(saved)
    return phi


def _problem(seed=0, n_seq=6, n_attrs=5, L=2):
    rng = numpy.random.default_rng(seed)
    model = random_model(rng, n_labels=L, n_attrs=n_attrs, edge_mode="some")
    model.set_weights(numpy.zeros(model.n_weights, numpy.float32))
    lengths = rng.integers(1, 5, n_seq)
    ss, ptr, attrs = random_batch(rng, n_attrs, lengths, max_active=3)
    gold = rng.integers(0, L, int(ss[-1])).astype(numpy.int32)
    return model, _sequences(ss, ptr, attrs, gold)


def _dense_objective(model, seqs, sigma):
    """Exact CRF objective by enumerating every label path (numpy only)."""
    L = model.n_labels
    blocks = []
    for seq in seqs:
        n = len(seq[2])
        paths = list(itertools.product(range(L), repeat=n))
        phis = numpy.array([_features(model, seq, numpy.array(p)) for p in paths])
        gold_phi = _features(model, seq, seq[2])
        blocks.append((phis, gold_phi))

    def f(w):
        value = 0.5 * w @ w / sigma ** 2
        grad = w / sigma ** 2
        for phis, gold_phi in blocks:
            s = phis @ w
            mx = s.max()
            p = numpy.exp(s - mx)
            z = p.sum()
            value += mx + numpy.log(z) - gold_phi @ w
            grad = grad + (p / z) @ phis - gold_phi
        return value, grad

    return f


class _Problem:
    """What train_lbfgs needs from a component, over raw sequences."""

    def __init__(self, model, seqs):
        self.trainable_params = model
        self.seqs = seqs

    def batch_objective(self, examples):
        model, seqs = self.trainable_params, self.seqs

        def f(w):
            model.set_weights(numpy.asarray(w, dtype=numpy.float32))
            grad = SparseGrad(model)
            total = 0.0
            for ptr, attrs, gold in seqs:
                total += model.accumulate_gradient([0, len(gold)], ptr, attrs, gold, grad)
            return total, grad.to_dense()

        return f


def test_lbfgs_matches_scipy_optimum_of_dense_objective():
    sigma = 2.0
    model, seqs = _problem()
    dense = _dense_objective(model, seqs, sigma)
    ref = minimize(dense, numpy.zeros(model.n_weights), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-9, "ftol": 1e-14, "maxiter": 1000})
    assert ref.success
    out = train_lbfgs(_Problem(model, seqs), None, sigma=sigma, max_iter=500)
    ours = model.weights.astype(numpy.float64)
    assert out["objective"] == pytest.approx(ref.fun, rel=1e-6)
    assert dense(ours)[0] == pytest.approx(ref.fun, rel=1e-6)
    numpy.testing.assert_allclose(ours, ref.x, atol=2e-3)


def _objective_at(model, seqs, sigma, w):
    f = _Problem(model, seqs).batch_objective(None)
    loglik, _ = f(w)
    return -loglik + 0.5 * float(w @ w) / sigma ** 2


@pytest.mark.parametrize("method", ["adf", "sgd"])
def test_online_methods_approach_the_optimum(method):
    sigma = 2.0
    model, seqs = _problem()
    train_lbfgs(_Problem(model, seqs), None, sigma=sigma, max_iter=500)
    best = _objective_at(model, seqs, sigma, model.weights.astype(numpy.float64))
    model.set_weights(numpy.zeros(model.n_weights, numpy.float32))
    start = _objective_at(model, seqs, sigma, numpy.zeros(model.n_weights))
    n = len(seqs)
    if method == "adf":
        # rates that decay slowly enough for their sum to reach the optimum
        state = SparseADF(model, c=0.5, alpha=0.999, beta=0.95, window=n,
                          inv_n_sigma2=1.0 / (n * sigma ** 2))
    else:
        opt = SGD(0.5, decay=0.99, sigma=sigma, window=n)
        state = opt.sparse_state((0, "w"), model, n_examples=n)
    grad = SparseGrad(model)
    rng = numpy.random.default_rng(0)
    for _ in range(300):
        order = rng.permutation(n)
        train_crf_online(model, state, grad, [seqs[i] for i in order])
    state.flush()
    reached = _objective_at(model, seqs, sigma, model.weights.astype(numpy.float64))
    # within 1% of the way from the start to the optimum
    assert reached - best < 0.01 * (start - best)


def test_sgd_rate_decays_by_decay_per_pass():
    model, seqs = _problem(n_seq=10)
    opt = SGD(0.3, decay=0.5)  # window auto: n/10 = 1 sample
    state = opt.sparse_state((0, "w"), model, n_examples=10)
    grad = SparseGrad(model)
    train_crf_online(model, state, grad, seqs[:5])
    numpy.testing.assert_allclose(state.learning_rates(), 0.3 * 0.5 ** 0.5, rtol=1e-6)
    train_crf_online(model, state, grad, seqs[5:])
    numpy.testing.assert_allclose(state.learning_rates(), 0.3 * 0.5, rtol=1e-6)


def test_sgd_rejects_bad_decay():
    with pytest.raises(ValueError, match="decay"):
        SGD(0.1, decay=1.5)


def test_perceptron_step_is_gold_minus_viterbi_features():
    rng = numpy.random.default_rng(3)
    model = random_model(rng, n_labels=3, n_attrs=5, edge_mode="some")
    lengths = [4]
    ss, ptr, attrs = random_batch(rng, 5, lengths, max_active=3)
    gold = rng.integers(0, 3, 4).astype(numpy.int32)
    seq = _sequences(ss, ptr, attrs, gold)[0]
    pred = model.viterbi([0, 4], seq[0], seq[1])
    before = model.weights.astype(numpy.float64)
    expected = before + _features(model, seq, gold) - _features(model, seq, pred)
    opt = Perceptron(averaged=False)
    state = opt.sparse_state((0, "w"), model, n_examples=1)
    errors = -train_crf_online(model, state, SparseGrad(model), [seq], perceptron=True)
    assert errors == int((pred != gold).sum())
    numpy.testing.assert_allclose(model.weights, expected, atol=1e-5)


def test_averaged_perceptron_keeps_the_mean_of_all_updates():
    model, seqs = _problem(seed=5, n_seq=8, L=3)
    opt = Perceptron(averaged=True)
    state = opt.sparse_state((0, "w"), model, n_examples=len(seqs))
    grad = SparseGrad(model)
    snapshots = []
    for _ in range(3):
        for seq in seqs:
            train_crf_online(model, state, grad, [seq], perceptron=True)
            state.flush()
            snapshots.append(model.weights.astype(numpy.float64))
    numpy.testing.assert_allclose(state.averaged_weights(), numpy.mean(snapshots, axis=0),
                                  atol=1e-4)


def _chunk_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="chunker",
                 config={"target": "spans:chunks",
                         "model": {"@architectures": "spacy_adf.CRF.v1",
                                   "templates": ["w[0]", "t[0]", "t[-1]", "t[1]"]}})
    examples = chunk_examples(nlp)
    nlp.initialize(lambda: examples)
    return nlp, examples


@pytest.mark.parametrize("averaged", [False, True])
def test_perceptron_separates_separable_data(averaged):
    nlp, examples = _chunk_nlp()
    opt = Perceptron(averaged=averaged)
    for epoch in range(50):
        losses = {}
        nlp.update(examples, sgd=opt, losses=losses)
        if losses["chunker"] == 0:
            break
    assert losses["chunker"] == 0, "the perceptron made mistakes on separable data"
    with nlp.use_params(opt.averages):
        scores = nlp.evaluate(examples)
    assert scores["spans_chunks_f"] == 1.0


def test_perceptron_refuses_dense_components():
    with pytest.raises(ValueError, match="spacy-adf's components"):
        Perceptron()((0, "W"), numpy.zeros(3, "f"), numpy.zeros(3, "f"))


METHOD_CONFIGS = {
    "adf": '@optimizers = "spacy_adf.ADF.v1"\nlearn_rate = 0.1\nsigma = 5.0\nminibatch = 2',
    "sgd": '@optimizers = "spacy_adf.SGD.v1"\nlearn_rate = 0.1\ndecay = 0.9\nsigma = 5.0',
    "perc": '@optimizers = "spacy_adf.Perceptron.v1"\naveraged = false',
    "avgperc": '@optimizers = "spacy_adf.Perceptron.v1"\naveraged = true\nminibatch = 2',
}


@pytest.mark.parametrize("method", sorted(METHOD_CONFIGS))
def test_every_method_trains_from_a_config(method):
    from spacy.util import registry

    cfg = Config().from_str("[optimizer]\n" + METHOD_CONFIGS[method])
    opt = registry.resolve(cfg)["optimizer"]
    nlp, examples = _chunk_nlp()
    for _ in range(30):
        nlp.update(examples, sgd=opt)
    with nlp.use_params(opt.averages):
        assert nlp.evaluate(examples)["spans_chunks_f"] == 1.0


def test_component_batch_objective_equals_summed_examples():
    nlp, examples = _chunk_nlp()
    pipe = nlp.get_pipe("chunker")
    rng = numpy.random.default_rng(0)
    w = rng.normal(0, 0.3, pipe.trainable_params.n_weights)
    f = pipe.batch_objective(examples)
    total, grad = f(w)
    crf = pipe.trainable_params
    ref_total, ref_grad = 0.0, numpy.zeros_like(grad)
    for eg in examples:
        for ptr, attrs, gold in pipe.training_samples(eg):
            g = SparseGrad(crf)
            ref_total += crf.accumulate_gradient([0, len(gold)], ptr, attrs, gold, g)
            ref_grad += g.to_dense()
    assert total == pytest.approx(ref_total, rel=1e-9)
    numpy.testing.assert_allclose(grad, ref_grad, atol=1e-9)


def test_lbfgs_command_trains_and_saves(tmp_path):
    from pathlib import Path

    from spacy_adf.training.lbfgs import main

    repo = Path(__file__).resolve().parents[2]
    out = tmp_path / "lbfgs"
    summary = main([
        str(repo / "configs" / "chunking_np.cfg"), str(out), "--max-iter", "30",
        "--paths.train", str(repo / "assets" / "sample_chunking" / "train.txt"),
        "--paths.dev", str(repo / "assets" / "sample_chunking" / "dev.txt"),
    ])
    assert summary["components"]["chunker"]["iterations"] >= 1
    assert summary["dev_scores"]["spans_chunks_f"] > 0.9
    nlp = spacy.load(out)
    assert "chunker" in nlp.pipe_names
