# cython: language_level=3
"""Multinomial logistic regression (maximum entropy classifier) over sparse
real-valued CSR features, trained on-line by sparse ADF / SGD / perceptron states
(layout and costs: docs/architecture.md, "The numeric core")."""
from cpython.mem cimport PyMem_Free, PyMem_Malloc
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
    def bias(self):
        """The label bias (a view of the head block)."""
        return self.weights[: self.n_labels]

    @property
    def matrix(self):
        """Feature weights as an (n_features, n_labels) view."""
        return self.weights[self.n_labels:].reshape(self.n_features, self.n_labels)

    @property
    def nbytes(self):
        """Bytes of the model: weights plus the group pointer array."""
        return self.weights.nbytes + self._ptr_arr.nbytes

    # ------------------------------------------------------------ batch API

    def predict_proba(self, ptr, ids, vals):
        """P(y | x) of every sample of a CSR batch: float64 (n_samples, L)."""
        cdef const int64_t[::1] p
        cdef const int32_t[::1] a
        cdef const float[::1] v
        p, a, v = _check_csr(self, ptr, ids, vals)
        cdef Py_ssize_t n = p.shape[0] - 1, i
        cdef int L = self.n_labels
        out = numpy.zeros((n, L), dtype=numpy.float64)
        cdef double[:, ::1] o = out
        if n == 0:
            return out
        with nogil:
            for i in range(n):
                _scores(self.w, L, &a[0] if a.shape[0] else NULL, &v[0] if v.shape[0] else NULL,
                        p[i], p[i + 1], &o[i, 0])
                _softmax(&o[i, 0], L)
        return out

    def accumulate_gradient(self, ptr, ids, vals, gold, SparseGrad grad, bint perceptron=False):
        """Add every sample's update to `grad` (one counted sample each).

        perceptron=False: d log P(gold | x) / dw; returns the summed log-likelihood.
        perceptron=True: +x for the gold label and -x for the predicted one when
        the prediction is wrong (groups touched with zeros when right); returns
        minus the number of mistakes.
        """
        if grad is None or grad.params is not self:
            raise ValueError("the SparseGrad belongs to another model")
        cdef const int64_t[::1] p
        cdef const int32_t[::1] a
        cdef const float[::1] v
        p, a, v = _check_csr(self, ptr, ids, vals)
        cdef const int32_t[::1] y = _check_gold(self, gold, p.shape[0] - 1)
        cdef Py_ssize_t i, n = p.shape[0] - 1
        cdef double total = 0.0
        cdef double* buf = <double*>PyMem_Malloc(sizeof(double) * self.n_labels)
        if buf == NULL:
            raise MemoryError()
        cdef const int32_t* ap = &a[0] if a.shape[0] else NULL
        cdef const float* vp = &v[0] if v.shape[0] else NULL
        try:
            with nogil:
                for i in range(n):
                    if perceptron:
                        total -= maxent_perceptron(self, ap, vp, p[i], p[i + 1], y[i], buf, grad)
                    else:
                        total += maxent_loglik_grad(self, ap, vp, p[i], p[i + 1], y[i], buf, grad)
        finally:
            PyMem_Free(buf)
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
        cdef const int64_t[::1] p
        cdef const int32_t[::1] a
        cdef const float[::1] v
        p, a, v = _check_csr(self, ptr, ids, vals)
        cdef const int32_t[::1] y = _check_gold(self, gold, p.shape[0] - 1)
        g_arr = numpy.zeros(self.n_weights, dtype=numpy.float64)
        cdef double[::1] g = g_arr
        cdef Py_ssize_t i, j, n = p.shape[0] - 1
        cdef int L = self.n_labels, k, yy
        cdef double* grow
        cdef const int32_t* ap = &a[0] if a.shape[0] else NULL
        cdef const float* vp = &v[0] if v.shape[0] else NULL
        cdef double total = 0.0, x, log_z, mx
        cdef double* s = <double*>PyMem_Malloc(sizeof(double) * L)
        if s == NULL:
            raise MemoryError()
        try:
            with nogil:
                for i in range(n):
                    _scores(&wv[0], L, ap, vp, p[i], p[i + 1], s)
                    yy = y[i]
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
                    for j in range(p[i], p[i + 1]):
                        grow = &g[0] + L + <Py_ssize_t>a[j] * L
                        x = v[j]
                        for k in range(L):
                            grow[k] += x * s[k]
        finally:
            PyMem_Free(s)
        return total, g_arr


# ---------------------------------------------------------------- kernels

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
    """Perceptron update of one sample into grad: +x for gold and -x for the
    best-scoring other label if that label scores >= gold (a tie is a
    mistake, so training starts from zero weights). The bias counts as a
    feature of value 1. Every group is touched, with zeros when the
    prediction is right, so each sample is one counted update. Returns 1 for
    a mistake, else 0."""
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


# ---------------------------------------------------------------- on-line loop

def train_maxent_online(MaxEntModel model, SparseADF state, SparseGrad grad, ptr, ids, vals,
                        gold, int minibatch=1, bint perceptron=False):
    """Run the optimizer state over the samples in order, one update per
    `minibatch` samples (the last step may be smaller).

    Before a mini-batch reads any weight, the head group and the groups of its
    features are caught up to the current update (lazy L2 / averaging). The
    mini-batch's update (log-likelihood gradient, or the perceptron update
    when perceptron=True) is summed in `grad` and applied by state.update().

    Returns the summed log-likelihood (each term at the weights the sample
    saw), or minus the number of mistakes for the perceptron: -result is a
    loss either way.
    """
    if minibatch < 1:
        raise ValueError(f"minibatch must be >= 1, got {minibatch}")
    if state.params is not model or grad.params is not model:
        raise ValueError("model, optimizer state and gradient buffer do not belong together")
    cdef const int64_t[::1] p
    cdef const int32_t[::1] a
    cdef const float[::1] v
    p, a, v = _check_csr(model, ptr, ids, vals)
    cdef Py_ssize_t n = p.shape[0] - 1
    cdef const int32_t[::1] y = _check_gold(model, gold, n)
    cdef const int32_t* ap = &a[0] if a.shape[0] else NULL
    cdef const float* vp = &v[0] if v.shape[0] else NULL
    cdef Py_ssize_t i = 0, b, k
    cdef int64_t j
    cdef int32_t u
    cdef double total = 0.0
    cdef double* buf = <double*>PyMem_Malloc(sizeof(double) * model.n_labels)
    if buf == NULL:
        raise MemoryError()
    grad.clear()
    try:
        while i < n:
            b = i + minibatch if i + minibatch < n else n
            u = state.n_updates
            with nogil:
                state.catch_up(0, u)
                for j in range(p[i], p[b]):
                    state.catch_up(ap[j] + 1, u)
                for k in range(i, b):
                    if perceptron:
                        total -= maxent_perceptron(model, ap, vp, p[k], p[k + 1], y[k], buf, grad)
                    else:
                        total += maxent_loglik_grad(model, ap, vp, p[k], p[k + 1], y[k], buf, grad)
            state.update(grad)
            grad.clear()
            i = b
    finally:
        PyMem_Free(buf)
        grad.clear()
    return total


# ---------------------------------------------------------------- validation

def _check_csr(MaxEntModel m, ptr, ids, vals):
    """Contiguous typed copies (if needed) of a CSR batch, validated once so
    the nogil kernels can index without checks."""
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
    return p, a, v


def _check_gold(MaxEntModel m, gold, Py_ssize_t n):
    y = numpy.ascontiguousarray(gold, dtype=numpy.int32)
    if y.shape != (n,):
        raise ValueError(f"gold has shape {y.shape}, expected ({n},)")
    if n and (int(y.min()) < 0 or int(y.max()) >= m.n_labels):
        raise ValueError(f"gold label id out of range [0, {m.n_labels})")
    return y
