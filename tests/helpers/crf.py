"""Random CRF models and sequences for the core tests."""
import itertools

import numpy

from spacy_adf.core.adf import SparseADF
from spacy_adf.core.crf import CRFModel
from spacy_adf.core.online import OnlineSteps
from spacy_adf.core.params import SparseGrad
from spacy_adf.features.crf_layout import _blocks_generic


def random_model(rng, n_labels=3, n_attrs=6, edge_mode="some", scale=1.0):
    """A CRF with every label as state entries and a random subset of label
    pairs as edge entries (or all pairs / none)."""
    L = n_labels
    ptr = [0]
    codes = []
    for _ in range(n_attrs):
        if edge_mode == "all":
            pairs = list(range(L * L))
        elif edge_mode == "none":
            pairs = []
        else:
            pairs = sorted(rng.choice(L * L, size=rng.integers(0, L * L + 1), replace=False).tolist())
        codes.extend(range(L))
        codes.extend(L + p for p in pairs)
        ptr.append(len(codes))
    model = CRFModel(L, numpy.array(ptr), numpy.array(codes, dtype=numpy.uint16))
    model.set_weights(rng.normal(0, scale, model.n_weights).astype(numpy.float32))
    return model


def random_batch(rng, n_attrs, lengths, max_active=3):
    seq_starts = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int64)
    ptr = [0]
    attrs = []
    for _ in range(int(seq_starts[-1])):
        k = rng.integers(0, max_active + 1)
        attrs.extend(rng.choice(n_attrs, size=k, replace=False).tolist())
        ptr.append(len(attrs))
    return seq_starts, numpy.array(ptr, dtype=numpy.int64), numpy.array(attrs, dtype=numpy.int32)


def brute_force(model, pos_ptr, attrs, start, n):
    """All label paths of one sequence: (log Z, marginals, best path, best score)."""
    L = model.n_labels
    paths = list(itertools.product(range(L), repeat=n))
    scores = []
    for p in paths:
        scores.append(path_score_dense(model, pos_ptr, attrs, start, n, p))
    scores = numpy.array(scores)
    mx = scores.max()
    log_z = mx + numpy.log(numpy.exp(scores - mx).sum())
    probs = numpy.exp(scores - log_z)
    marg = numpy.zeros((n, L))
    for p, pr in zip(paths, probs):
        for t, y in enumerate(p):
            marg[t, y] += pr
    best = paths[int(numpy.argmax(scores))]
    return log_z, marg, numpy.array(best), scores.max()


def path_score_dense(model, pos_ptr, attrs, start, n, labels):
    """Path score from a plain loop over the weight layout (independent of Cython)."""
    L = model.n_labels
    w = model.weights.astype(numpy.float64)
    bp, codes, off = model.block_ptr, model.codes, model.off_blocks
    score = w[L * L + labels[0]] + w[L * L + L + labels[-1]]
    for t in range(n):
        if t:
            score += w[labels[t - 1] * L + labels[t]]
        for a in attrs[pos_ptr[start + t]:pos_ptr[start + t + 1]]:
            for k in range(bp[a], bp[a + 1]):
                if codes[k] == labels[t]:
                    score += w[off + k]
                if t and codes[k] == L + labels[t - 1] * L + labels[t]:
                    score += w[off + k]
    return score


def train_crf_online(model, state, grad, sequences, minibatch=1, ctx=None, perceptron=False):
    """Run on-line steps over `sequences` in order, in this thread: the summed
    log-likelihood, or with perceptron=True minus the number of wrongly
    labelled positions."""
    return OnlineSteps(model, state, grad, sequences, minibatch, ctx, perceptron).run()


def blocks_all_states(observed: numpy.ndarray, A: int, L: int):
    """`crf_layout._blocks_generic` for state_features="all" without "all"
    edges, in numpy: a reference of `extract.layout_all_states`. Each block
    is the L state codes 0..L-1, then the attribute's observed edge codes; the i-th observed edge code (in sorted order) of
    attribute a sits at i + (a + 1) * L."""
    n_codes = L + L * L
    observed = numpy.asarray(observed, dtype=numpy.int64)
    owner = observed // n_codes
    value = observed - owner * n_codes
    if len(value) and value.min() < L:  # observed states: not this layout
        return _blocks_generic(observed, None, A, L, "all", "observed")
    counts = numpy.bincount(owner, minlength=A) if len(owner) else numpy.zeros(A, numpy.int64)
    counts += L
    block_ptr = numpy.concatenate([[0], numpy.cumsum(counts)]).astype(numpy.int64)
    codes = numpy.empty(int(block_ptr[-1]), dtype=numpy.uint16)
    edge_pos = numpy.arange(len(owner), dtype=numpy.int64) + (owner + 1) * L
    is_state = numpy.ones(len(codes), dtype=bool)
    is_state[edge_pos] = False
    codes[edge_pos] = value
    codes[is_state] = numpy.tile(numpy.arange(L, dtype=numpy.uint16), A)
    return block_ptr, codes


def log_likelihoods(model, seq_starts, pos_ptr, attrs, labels, values=None):
    """log P(labels | x) of every sequence of a batch (float64), each from the
    product's accumulate_gradient on that sequence alone."""
    out = []
    for a, b in zip(seq_starts[:-1], seq_starts[1:]):
        ss = numpy.array([0, b - a], dtype=numpy.int64)
        out.append(model.accumulate_gradient(ss, pos_ptr[a:b + 1], attrs, labels[a:b], SparseGrad(model),
                                             values=values))
    return numpy.array(out)


def occurrences(grad):
    """{touched group: samples of the batch it occurs in}, read back through
    the counts' one consumer, ADF's end-of-window decay: with c = 1, alpha = 1,
    beta = 1/2 and a one-batch window a group's rate becomes
    1 - count / (2 * batch). The model's weights are restored."""
    params, n = grad.params, grad.n_samples
    weights = params.weights.copy()
    state = SparseADF(params, c=1.0, alpha=1.0, beta=0.5, window=n)
    state.update(grad)
    params.set_weights(weights)
    return {g: int(round((1.0 - r) * 2 * n)) for g, r in enumerate(state.learning_rates()) if r != 1.0}
