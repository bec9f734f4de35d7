# cython: language_level=3
"""On-line CRF training loop: sequential steps over mini-batches of
sequences, without returning to Python between samples.

One loop serves every on-line method: the optimizer state (SparseADF) holds
the rates (ADF: per feature; SGD: one exponentially decaying rate;
perceptron: rate 1, no decay, optional averaging) and the step direction is
either the log-likelihood gradient or the perceptron's f(gold) - f(viterbi).
"""
from libc.stdint cimport int32_t, int64_t

import numpy

from .adf cimport SparseADF
from .crf cimport CRFContext, CRFModel, Seq, crf_loglik_grad, crf_perceptron_grad
from .params cimport SparseGrad


def train_crf_adf(CRFModel model, SparseADF state, SparseGrad grad, list sequences,
                  int minibatch=1, CRFContext ctx=None):
    """The log-likelihood (ADF / SGD) form of train_crf_online."""
    return train_crf_online(model, state, grad, sequences, minibatch=minibatch, ctx=ctx)


def train_crf_online(CRFModel model, SparseADF state, SparseGrad grad, list sequences,
                     int minibatch=1, CRFContext ctx=None, bint perceptron=False):
    """Run on-line steps over `sequences` in order, one update per
    `minibatch` sequences (the weights stay fixed inside a mini-batch).

    sequences: list of (pos_ptr int64 (n+1, from 0), attrs int32, gold int32 (n)).
    Returns the summed log-likelihood (each term at the weights the sample
    saw), or with perceptron=True minus the number of wrongly labelled
    positions.
    """
    if minibatch < 1:
        raise ValueError(f"minibatch must be >= 1, got {minibatch}")
    if state.params is not model or grad.params is not model:
        raise ValueError("model, optimizer state and gradient buffer do not belong together")
    if ctx is None:
        ctx = CRFContext()
    cdef double total = 0.0
    cdef Py_ssize_t i, j, k, n_items = len(sequences)
    cdef const int64_t[::1] ptr
    cdef const int32_t[::1] attrs
    cdef const int32_t[::1] gold
    cdef Seq seq
    cdef int32_t u
    cdef int n_attrs = model.n_attrs
    cdef Py_ssize_t a
    cdef int64_t sink = 0, blk
    cdef double sinkf = 0.0
    cdef int32_t[::1] pred = None
    grad.clear()
    i = 0
    while i < n_items:
        j = min(i + minibatch, n_items)
        u = state.n_updates
        # weights of this mini-batch must be current before the forward pass
        state.catch_up(0, u)
        for k in range(i, j):
            attrs = sequences[k][1]
            # one pass of independent loads first: the cache misses on the
            # per-group state overlap instead of stalling catch_up one by one
            for a in range(attrs.shape[0]):
                if attrs[a] < 0 or attrs[a] >= n_attrs:
                    raise ValueError("attribute id out of range")
                sink += (state.groups[attrs[a] + 1].last_u + grad.slots[attrs[a] + 1].slot
                         + model.ptr[attrs[a]])
            for a in range(attrs.shape[0]):
                blk = model.ptr[attrs[a]]
                sinkf += model.w[model.off_blocks + blk] + model.code[blk]
            for a in range(attrs.shape[0]):
                state.catch_up(attrs[a] + 1, u)
        for k in range(i, j):
            ptr, attrs, gold = sequences[k]
            seq.n = <int>gold.shape[0]
            if seq.n == 0:
                continue
            if ptr.shape[0] != seq.n + 1 or ptr[seq.n] != attrs.shape[0] or ptr[0] != 0:
                raise ValueError("malformed sequence features")
            for a in range(seq.n):
                if gold[a] < 0 or gold[a] >= model.n_labels:
                    raise ValueError("gold label id out of range")
            seq.ptr = &ptr[0]
            seq.attrs = &attrs[0] if attrs.shape[0] else NULL
            ctx.reserve(seq.n, model.n_labels,
                        seq.n * model.n_labels * model.n_labels <= 8388608)
            if perceptron:
                if pred is None or pred.shape[0] < seq.n:
                    pred = numpy.empty(2 * seq.n, dtype=numpy.int32)
                with nogil:
                    total -= crf_perceptron_grad(model, &seq, &gold[0], ctx, grad, &pred[0])
            else:
                with nogil:
                    total += crf_loglik_grad(model, &seq, &gold[0], ctx, grad)
        state.update(grad)
        grad.clear()
        i = j
    state.sink = sink + <int64_t>(sinkf != sinkf)
    return total
