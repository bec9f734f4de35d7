# cython: language_level=3
"""Multinomial logistic regression (maximum entropy classifier) over sparse
real-valued CSR features, trained on-line by sparse ADF / SGD / perceptron states
(layout and costs: docs/architecture.md, "The numeric core")."""
from cython cimport floating
from libc.math cimport exp, log
from libc.stdint cimport int32_t, int64_t

import numpy

from .adf cimport SparseADF
from .params cimport GroupedParams, SparseGrad
from .params import weights_or_zeros


cdef class MaxEntModel(GroupedParams):
    """Weights of an L-label MaxEnt classifier over n_features features."""
    cdef readonly int n_labels
    cdef readonly int n_features

    def __init__(self, int n_labels, int n_features, weights=None):
        if n_labels < 1:
            raise ValueError(f"a MaxEnt model needs at least one label, got {n_labels}")
        if n_features < 0:
            raise ValueError(f"the number of features must be >= 0, got {n_features}")
        n_weights = <Py_ssize_t>n_labels * (n_features + 1)
        weights = weights_or_zeros(
            weights, n_weights, f"a model with {n_labels} labels and {n_features} features")
        self.n_labels = n_labels
        self.n_features = n_features
        ptr = numpy.arange(n_features + 1, dtype=numpy.int64) * n_labels
        self._bind(weights, n_labels, ptr)

    def __reduce__(self):
        return (MaxEntModel, (self.n_labels, self.n_features, self.weights))

    @property
    def nbytes(self):
        return self.weights.nbytes + self._ptr_arr.nbytes

    def predict_proba(self, ptr, ids, vals):
        """P(y | x) of every sample of a CSR batch: float64 (n_samples, L)."""
        cdef Batch b
        keep = _batch(self, &b, ptr, ids, vals, None)
        cdef Py_ssize_t i
        cdef int L = self.n_labels
        out = numpy.zeros((b.n, L), dtype=numpy.float64)
        cdef double[:, ::1] o = out
        with nogil:
            for i in range(b.n):
                _scores(self.w, L, b.ids, b.vals, b.ptr[i], b.ptr[i + 1], &o[i, 0])
                _softmax(&o[i, 0], L)
        return out

    def accumulate_gradient(self, ptr, ids, vals, gold, SparseGrad grad, bint perceptron=False):
        """Add every sample's update to `grad` (one counted sample each): d log
        P(gold | x) / dw, returning the summed log-likelihood, or with
        perceptron=True the perceptron update (`maxent_perceptron`), returning
        minus the number of mistakes."""
        if grad is None or grad.params is not self:
            raise ValueError("the SparseGrad belongs to another model")
        cdef Batch b
        keep = _batch(self, &b, ptr, ids, vals, gold)
        cdef double[::1] buf = numpy.empty(self.n_labels)
        cdef double total = 0.0
        with nogil:
            _add_samples(self, &b, 0, b.n, perceptron, &buf[0], grad, &total)
        return total

    def dense_objective(self, w, ptr, ids, vals, gold):
        """Summed log-likelihood and its gradient at float64 weights `w`
        (same layout as self.weights; self's weights are not read or changed).
        Returns (loglik: float, grad: float64 array of n_weights). No prior.
        The float64 path for batch optimizers (L-BFGS) and gradient checks."""
        wd = numpy.ascontiguousarray(w, dtype=numpy.float64)
        if wd.shape != (self.n_weights,):
            raise ValueError(f"w has shape {wd.shape}, the model has {self.n_weights} weights")
        cdef const double[::1] wv = wd
        cdef Batch b
        keep = _batch(self, &b, ptr, ids, vals, gold)
        g_arr = numpy.zeros(self.n_weights, dtype=numpy.float64)
        cdef double[::1] g = g_arr
        cdef Py_ssize_t i, j
        cdef int L = self.n_labels, k, yy
        cdef double* grow
        cdef double total = 0.0, x, log_z, mx
        cdef double[::1] s_arr = numpy.empty(L)
        cdef double* s = &s_arr[0]
        with nogil:
            for i in range(b.n):
                _scores(&wv[0], L, b.ids, b.vals, b.ptr[i], b.ptr[i + 1], s)
                yy = b.gold[i]
                mx = s[0]
                for k in range(1, L):
                    if s[k] > mx:
                        mx = s[k]
                log_z = 0.0
                for k in range(L):
                    log_z += exp(s[k] - mx)
                log_z = mx + log(log_z)
                total += s[yy] - log_z
                for k in range(L):
                    s[k] = -exp(s[k] - log_z)
                s[yy] += 1.0
                for k in range(L):
                    g[k] += s[k]
                for j in range(b.ptr[i], b.ptr[i + 1]):
                    grow = &g[0] + L + <Py_ssize_t>b.ids[j] * L
                    x = b.vals[j]
                    for k in range(L):
                        grow[k] += x * s[k]
        return total, g_arr


cdef struct Batch:
    # a checked CSR batch: sample i has the features ids[ptr[i]:ptr[i+1]] with
    # the values vals[ptr[i]:ptr[i+1]] and the label gold[i] (NULL: no labels)
    Py_ssize_t n
    const int64_t* ptr
    const int32_t* ids
    const float* vals
    const int32_t* gold


cdef inline void _scores(const floating* w, int L, const int32_t* ids, const float* vals,
                         int64_t start, int64_t end, double* s) noexcept nogil:
    """s[y] = bias[y] + sum_j vals[j] w[ids[j], y] over j in [start, end), for
    the float32 weights of a model or float64 weights (dense_objective)."""
    cdef int y
    cdef int64_t j
    cdef const floating* row
    cdef double x
    for y in range(L):
        s[y] = w[y]
    for j in range(start, end):
        row = w + L + <Py_ssize_t>ids[j] * L
        x = vals[j]
        for y in range(L):
            s[y] += x * row[y]


cdef inline double _softmax(double* s, int L) noexcept nogil:
    """Replace scores by probabilities in place; return log Z."""
    cdef int y
    cdef double mx = s[0], z = 0.0
    for y in range(1, L):
        if s[y] > mx:
            mx = s[y]
    for y in range(L):
        s[y] = exp(s[y] - mx)
        z += s[y]
    for y in range(L):
        s[y] /= z
    return mx + log(z)


cdef int _add_samples(MaxEntModel m, Batch* b, Py_ssize_t start, Py_ssize_t end, bint perceptron,
                      double* buf, SparseGrad grad, double* total) except -1 nogil:
    """Add the updates of samples [start, end) to grad and their
    log-likelihoods (perceptron: minus their mistakes) to total[0]."""
    cdef Py_ssize_t i
    for i in range(start, end):
        if perceptron:
            total[0] -= maxent_perceptron(m, b.ids, b.vals, b.ptr[i], b.ptr[i + 1], b.gold[i], buf, grad)
        else:
            total[0] += maxent_loglik_grad(m, b.ids, b.vals, b.ptr[i], b.ptr[i + 1], b.gold[i], buf, grad)
    return 0


cdef double maxent_loglik_grad(MaxEntModel m, const int32_t* ids, const float* vals,
                               int64_t start, int64_t end, int gold, double* buf,
                               SparseGrad grad) except? 1.0 nogil:
    """Add d log P(gold | x) / dw of one sample to grad (one counted sample);
    return log P(gold | x). buf: L doubles of scratch."""
    cdef int L = m.n_labels, y
    cdef int64_t j
    cdef Py_ssize_t off
    cdef double x, gold_score, log_z
    _scores(m.w, m.n_labels, ids, vals, start, end, buf)
    gold_score = buf[gold]
    log_z = _softmax(buf, L)
    # buf becomes the residual (onehot(gold) - P)
    for y in range(L):
        buf[y] = -buf[y]
    buf[gold] += 1.0
    grad.begin_sample()
    off = grad.touch(0)
    for y in range(L):
        grad.values[off + y] += buf[y]
    for j in range(start, end):
        # the offset is re-read after every touch: a new block may move values
        off = grad.touch(ids[j] + 1)
        x = vals[j]
        for y in range(L):
            grad.values[off + y] += x * buf[y]
    return gold_score - log_z


cdef int maxent_perceptron(MaxEntModel m, const int32_t* ids, const float* vals,
                           int64_t start, int64_t end, int gold, double* buf,
                           SparseGrad grad) except -1 nogil:
    """Perceptron update of one sample into grad: +x for gold and -x for the best
    other label if it scores >= gold (a tie is a mistake, so training can start
    from zero weights; the bias is a feature of value 1). Every group is touched,
    so each sample is one counted update. Returns 1 for a mistake, else 0."""
    cdef int L = m.n_labels, y, pred = -1
    cdef int64_t j
    cdef Py_ssize_t off
    cdef double x, best = 0.0
    _scores(m.w, m.n_labels, ids, vals, start, end, buf)
    for y in range(L):
        if y != gold and (pred < 0 or buf[y] > best):
            pred = y
            best = buf[y]
    grad.begin_sample()
    cdef bint wrong = pred >= 0 and best >= buf[gold]
    off = grad.touch(0)
    if wrong:
        grad.values[off + gold] += 1.0
        grad.values[off + pred] -= 1.0
    for j in range(start, end):
        off = grad.touch(ids[j] + 1)
        if wrong:
            x = vals[j]
            grad.values[off + gold] += x
            grad.values[off + pred] -= x
    return 1 if wrong else 0


def train_maxent_online(MaxEntModel model, SparseADF state, SparseGrad grad, ptr, ids, vals,
                        gold, int minibatch=1, bint perceptron=False):
    """Run the optimizer state over the samples in order, one update per
    `minibatch` samples, each mini-batch's groups caught up before it reads
    them. Returns what `accumulate_gradient` returns, summed (each term at the
    weights the sample saw): -result is a loss either way."""
    if minibatch < 1:
        raise ValueError(f"minibatch must be >= 1, got {minibatch}")
    if state.params is not model or grad.params is not model:
        raise ValueError("model, optimizer state and gradient buffer do not belong together")
    cdef Batch b
    keep = _batch(model, &b, ptr, ids, vals, gold)
    cdef double[::1] buf = numpy.empty(model.n_labels)
    cdef Py_ssize_t i = 0, end
    cdef int64_t j
    cdef int32_t u
    cdef double total = 0.0
    grad.clear()
    try:
        while i < b.n:
            end = min(i + minibatch, b.n)
            u = state.n_updates
            with nogil:
                state.catch_up(0, u)
                for j in range(b.ptr[i], b.ptr[end]):
                    state.catch_up(b.ids[j] + 1, u)
                _add_samples(model, &b, i, end, perceptron, &buf[0], grad, &total)
            state.update(grad)
            grad.clear()
            i = end
    finally:
        grad.clear()
    return total


cdef tuple _batch(MaxEntModel m, Batch* b, ptr, ids, vals, gold):
    """Check a CSR batch and its gold labels (unless gold is None) once, so the
    nogil kernels index without checks, and point b at the checked arrays:
    contiguous typed copies where needed, returned to be kept alive."""
    p = numpy.ascontiguousarray(ptr, dtype=numpy.int64)
    a = numpy.ascontiguousarray(ids, dtype=numpy.int32)
    v = numpy.ascontiguousarray(vals, dtype=numpy.float32)
    if p.ndim != 1 or a.ndim != 1 or v.ndim != 1:
        raise ValueError("ptr, ids and vals must be 1-d arrays")
    if p.shape[0] < 1 or p[0] != 0:
        raise ValueError("ptr must start at 0 (CSR row pointer of n_samples + 1 entries)")
    if p[p.shape[0] - 1] != a.shape[0] or a.shape[0] != v.shape[0]:
        raise ValueError(
            f"malformed CSR batch: ptr ends at {p[p.shape[0] - 1]}, {a.shape[0]} ids, "
            f"{v.shape[0]} values"
        )
    if p.shape[0] > 1 and numpy.any(numpy.diff(p) < 0):
        raise ValueError("ptr must be non-decreasing")
    if a.shape[0] and (int(a.min()) < 0 or int(a.max()) >= m.n_features):
        raise ValueError(f"feature id out of range [0, {m.n_features})")
    if a.shape[0] and not numpy.isfinite(v).all():
        raise ValueError("feature values must be finite")
    cdef Py_ssize_t n = p.shape[0] - 1
    y = numpy.ascontiguousarray([] if gold is None else gold, dtype=numpy.int32)
    if gold is not None:
        if y.shape != (n,):
            raise ValueError(f"gold has shape {y.shape}, expected ({n},)")
        if n and (int(y.min()) < 0 or int(y.max()) >= m.n_labels):
            raise ValueError(f"gold label id out of range [0, {m.n_labels})")
    cdef const int64_t[::1] pv = p
    cdef const int32_t[::1] av = a
    cdef const float[::1] vv = v
    cdef const int32_t[::1] yv = y
    b.n = n
    b.ptr = &pv[0]
    b.ids = &av[0] if av.shape[0] else NULL
    b.vals = &vv[0] if vv.shape[0] else NULL
    b.gold = &yv[0] if yv.shape[0] else NULL
    return p, a, v, y
