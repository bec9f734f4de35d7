# cython: language_level=3
"""Linear-chain CRF over binary or real-valued features: scoring, scaled
forward-backward, Viterbi, marginals and the exact log-likelihood gradient, in
nogil loops over flat buffers (docs/architecture.md, "The numeric core")."""
from cpython.mem cimport PyMem_Free
from libc.math cimport exp, log, INFINITY
from libc.stdint cimport int32_t, int64_t, uint16_t
from libc.string cimport memset

import numpy

from .params cimport GroupedParams, SparseGrad, prefetch, resized
from .params import weights_or_zeros


cdef class CRFModel(GroupedParams):
    def __init__(self, int n_labels, block_ptr, codes, weights=None):
        if n_labels < 1:
            raise ValueError("a CRF needs at least one label")
        if n_labels > 255:
            raise ValueError(
                f"{n_labels} labels: the CRF's 16-bit entry codes support at most 255"
            )
        block_ptr = numpy.ascontiguousarray(block_ptr, dtype=numpy.int64)
        codes = numpy.ascontiguousarray(codes, dtype=numpy.uint16)
        if block_ptr.ndim != 1 or block_ptr.shape[0] < 1 or block_ptr[0] != 0:
            raise ValueError("block_ptr must be a 1-d array starting at 0")
        if int(block_ptr[len(block_ptr) - 1]) != codes.shape[0]:
            raise ValueError("block_ptr does not match the entry codes")
        L = n_labels
        problem = _layout_problem(block_ptr, codes, L + L * L)
        if problem:
            raise ValueError(problem)
        head = L * L + 2 * L
        n_weights = head + codes.shape[0]
        weights = weights_or_zeros(weights, n_weights, "the feature layout")
        self.n_labels = L
        self.n_attrs = block_ptr.shape[0] - 1
        self.off_blocks = head
        self.codes = codes
        cdef const uint16_t[::1] cv = codes
        self.code = &cv[0] if cv.shape[0] else NULL
        self._bind(weights, head, block_ptr)

    @property
    def block_ptr(self):
        return self._ptr_arr

    @property
    def nbytes(self):
        return self.weights.nbytes + self.codes.nbytes + self._ptr_arr.nbytes

    def __reduce__(self):
        return (CRFModel, (self.n_labels, self.block_ptr, self.codes, self.weights))

    # Every entry point takes `values`: None (binary features) or one finite
    # value per entry of `attrs` (float32; real-valued features).

    def viterbi(self, seq_starts, pos_ptr, attrs, CRFContext ctx=None, values=None):
        """Best label sequence for every sequence of a batch (int32, concatenated)."""
        return self._apply(OP_VITERBI, seq_starts, pos_ptr, attrs, None, None, ctx, values)

    def marginals(self, seq_starts, pos_ptr, attrs, CRFContext ctx=None, values=None):
        """Per-position label marginals P(y_t = y | x), float32 (n_pos, L)."""
        return self._apply(OP_MARGINALS, seq_starts, pos_ptr, attrs, None, None, ctx, values)

    def accumulate_gradient(self, seq_starts, pos_ptr, attrs, gold, SparseGrad grad,
                            CRFContext ctx=None, values=None):
        """Add d log P(gold | x) / dw of every sequence to `grad`; return the
        summed log-likelihood. Each sequence counts as one sample."""
        if grad is None or grad.params is not self:
            raise ValueError("the SparseGrad belongs to another model")
        return self._apply(OP_GRAD, seq_starts, pos_ptr, attrs, gold, grad, ctx, values)

    def _apply(self, int op, seq_starts, pos_ptr, attrs, labels, SparseGrad grad,
               CRFContext ctx, values):
        """Validate a batch once, then run one kernel over its sequences."""
        cdef const int64_t[::1] ss = numpy.ascontiguousarray(seq_starts, dtype=numpy.int64)
        cdef const int64_t[::1] pp = numpy.ascontiguousarray(pos_ptr, dtype=numpy.int64)
        cdef const int32_t[::1] aa = numpy.ascontiguousarray(attrs, dtype=numpy.int32)
        _check_batch(self, ss, pp, aa)
        cdef const float[::1] vv = feature_values(values, aa.shape[0]) if values is not None else None
        cdef const int32_t[::1] yy = _labels(self, labels, ss) if labels is not None else None
        cdef Py_ssize_t i, n_seq = ss.shape[0] - 1, n_pos = ss[n_seq]
        cdef int L = self.n_labels
        if op == OP_VITERBI:
            out = numpy.zeros(n_pos, dtype=numpy.int32)
        elif op == OP_MARGINALS:
            out = numpy.zeros((n_pos, L), dtype=numpy.float32)
        else:
            out = numpy.zeros(n_seq, dtype=numpy.float64)
        cdef int32_t[::1] o_lab = out if op == OP_VITERBI else None
        cdef float[:, ::1] o_marg = out if op == OP_MARGINALS else None
        cdef double[::1] o_seq = out if op == OP_GRAD else None
        if ctx is None:
            ctx = CRFContext()
        cdef Seq seq
        seq.attrs = &aa[0] if aa.shape[0] else NULL
        seq.vals = &vv[0] if vv is not None and vv.shape[0] else NULL
        for i in range(n_seq):
            if ss[i + 1] == ss[i]:
                continue
            seq.n = <int>(ss[i + 1] - ss[i])
            seq.ptr = &pp[ss[i]]
            ctx.reserve(seq.n, L, op != OP_VITERBI and seq.n * L * L <= TRANS_STORE_CAP)
            with nogil:
                if op == OP_VITERBI:
                    crf_viterbi(self, &seq, ctx, &o_lab[ss[i]])
                elif op == OP_MARGINALS:
                    crf_forward_backward(self, &seq, ctx)
                    crf_marginals(self, &seq, ctx, &o_marg[ss[i], 0])
                else:
                    o_seq[i] = crf_loglik_grad(self, &seq, &yy[ss[i]], ctx, grad)
        if op == OP_GRAD:
            return float(out.sum())
        return out


cdef enum:
    OP_VITERBI = 0
    OP_MARGINALS = 1
    OP_GRAD = 2


cdef object _labels(CRFModel m, labels, const int64_t[::1] ss):
    arr = numpy.ascontiguousarray(labels, dtype=numpy.int32)
    if arr.shape[0] != ss[ss.shape[0] - 1]:
        raise ValueError(f"got {arr.shape[0]} labels for {ss[ss.shape[0] - 1]} positions")
    if arr.size and (arr.min() < 0 or arr.max() >= m.n_labels):
        raise ValueError("label id out of range")
    return arr


cdef int _check_batch(CRFModel m, const int64_t[::1] ss, const int64_t[::1] pp,
                      const int32_t[::1] aa) except -1:
    if ss.shape[0] < 1 or ss[0] != 0:
        raise ValueError("seq_starts must start at 0")
    cdef Py_ssize_t n_pos = ss[ss.shape[0] - 1]
    if pp.shape[0] != n_pos + 1:
        raise ValueError(f"pos_ptr has {pp.shape[0]} entries, expected {n_pos + 1}")
    if pp[0] < 0 or pp[n_pos] > aa.shape[0]:
        raise ValueError("pos_ptr does not match the attribute array")
    cdef Py_ssize_t i
    for i in range(n_pos):
        if pp[i + 1] < pp[i]:
            raise ValueError("pos_ptr must be non-decreasing")
    for i in range(pp[0], pp[n_pos]):
        if aa[i] < 0 or aa[i] >= m.n_attrs:
            raise ValueError(f"attribute id {aa[i]} out of range (model has {m.n_attrs})")
    return 0


def feature_values(values, Py_ssize_t n_attrs):
    """`values` as the float32 C-contiguous array the kernels read: one
    finite value per attribute entry (ValueError otherwise)."""
    with numpy.errstate(over="ignore"):  # a value too large for float32 is refused below
        arr = numpy.ascontiguousarray(values, dtype=numpy.float32)
    if arr.ndim != 1 or arr.shape[0] != n_attrs:
        raise ValueError(f"got {arr.size} feature values for {n_attrs} attribute entries")
    if not numpy.isfinite(arr).all():
        raise ValueError("feature values must be finite (a NaN or infinite value was given)")
    return arr


cdef class CRFContext:
    # (Cython zeroes the buffer pointers and sizes of a new context)

    def __dealloc__(self):
        PyMem_Free(self.state)
        PyMem_Free(self.alpha)
        PyMem_Free(self.beta)
        PyMem_Free(self.scale)
        PyMem_Free(self.trans)
        PyMem_Free(self.scratch)
        PyMem_Free(self.scratch2)
        PyMem_Free(self.back)

    cdef int reserve(self, int n, int L, bint store_trans) except -1:
        cdef Py_ssize_t need = <Py_ssize_t>max(n, 1) * L
        cdef Py_ssize_t need_t = need * L if store_trans else 0
        if L != self.L:
            self.cap_n = 0
            self.scratch = <double*>_grow(self.scratch, L * L * sizeof(double))
            self.scratch2 = <double*>_grow(self.scratch2, L * L * sizeof(double))
            self.L = L
        if need > self.cap_n:
            need = max(need, 2 * self.cap_n)
            self.state = <double*>_grow(self.state, need * sizeof(double))
            self.alpha = <double*>_grow(self.alpha, need * sizeof(double))
            self.beta = <double*>_grow(self.beta, need * sizeof(double))
            self.back = <int32_t*>_grow(self.back, need * sizeof(int32_t))
            self.scale = <double*>_grow(self.scale, (need // L + 1) * sizeof(double))
            self.cap_n = need
        if need_t > self.cap_trans:
            need_t = max(need_t, 2 * self.cap_trans)
            self.trans = <double*>_grow(self.trans, need_t * sizeof(double))
            self.cap_trans = need_t
        self.trans_stored = store_trans
        return 0

    cdef bint ready(self, int n, int L, bint store_trans) noexcept nogil:
        """reserve() when the buffers are already large enough (True), without
        the GIL; False when reserve() has to grow them."""
        if L != self.L or <Py_ssize_t>max(n, 1) * L > self.cap_n:
            return False
        if store_trans and <Py_ssize_t>max(n, 1) * L * L > self.cap_trans:
            return False
        self.trans_stored = store_trans
        return True


cdef str _layout_problem(const int64_t[::1] ptr, const uint16_t[::1] codes, int n_codes):
    """What is wrong with a block layout, or "" (the kernels rely on sorted
    blocks: state codes first, then edges)."""
    cdef Py_ssize_t b, k
    cdef int bad = 0
    with nogil:
        for b in range(ptr.shape[0] - 1):
            if ptr[b + 1] < ptr[b]:
                bad = 1
                break
        if not bad:  # every block inside the codes now
            for b in range(ptr.shape[0] - 1):
                for k in range(ptr[b], ptr[b + 1]):
                    if codes[k] >= n_codes:
                        bad = 3
                        break
                    if k > ptr[b] and codes[k] <= codes[k - 1]:
                        bad = 2
                        break
                if bad:
                    break
    return ("", "block_ptr must be non-decreasing",
            "entry codes must be strictly increasing within each block",
            "entry code out of range for the number of labels")[bad]


cdef inline void* _grow(void* p, size_t nbytes) except NULL:
    return resized(p, nbytes, "the CRF buffers")


cdef void _prefetch_seq(CRFModel m, Seq* s, CRFContext ctx) noexcept nogil:
    """Load every feature block of the sequence in one pass, so their cache
    misses overlap (kept loads: compilers drop loops that only prefetch)."""
    cdef int64_t i, k, start = s.ptr[0], end = s.ptr[s.n]
    cdef uint16_t acc = 0
    cdef float accf = 0.0
    for i in range(start, end):
        k = m.ptr[s.attrs[i]]
        acc ^= m.code[k]
        accf += m.w[m.off_blocks + k]
    ctx.sink = acc + accf


cdef inline bint _dense_states(CRFModel m, int64_t k0, int64_t k1) noexcept nogil:
    """Does the block [k0, k1) start with all L state entries (codes 0..L-1)?
    (Codes increase strictly, so entry L-1 having code L-1 says so.)"""
    cdef int L = m.n_labels
    return k1 - k0 >= L and m.code[k0 + L - 1] == L - 1


# The Viterbi and gradient kernels and the block helpers are compiled twice (a
# fused type picks the form at compile time): for binary features, whose code
# has no value in it, and for real-valued ones. In the binary form v is the
# constant 1.0, and x * 1.0 == x, so both give the same doubles when every
# value is 1.0.

cdef struct BinaryFeatures:
    char unused


cdef struct ValuedFeatures:
    char unused


ctypedef fused FeatureKind:
    BinaryFeatures
    ValuedFeatures


cdef inline int64_t _add_states(FeatureKind* kind, CRFModel m, const float* w, int64_t k0, int64_t k1,
                                double* row, double v) noexcept nogil:
    """Add v times block [k0, k1)'s state weights (codes < L) to row, in entry
    order (one dense run when the block holds all L); returns where its edge
    entries start (a block's codes are sorted: states first)."""
    cdef int L = m.n_labels, y
    cdef int64_t k
    cdef uint16_t c
    cdef const float* wk
    if _dense_states(m, k0, k1):
        wk = w + k0
        for y in range(L):
            row[y] += wk[y] if FeatureKind is BinaryFeatures else v * wk[y]
        return k0 + L
    k = k0
    while k < k1:
        c = m.code[k]
        if c >= L:
            break
        row[c] += w[k] if FeatureKind is BinaryFeatures else v * w[k]
        k += 1
    return k


cdef inline void _add_edges(FeatureKind* kind, CRFModel m, const float* w, int64_t ke, int64_t k1,
                            double* out, double v) noexcept nogil:
    """Add v times the edge entries [ke, k1) of a block to the L x L matrix
    out, in entry order (one dense run when the block holds all L * L)."""
    cdef int L = m.n_labels, LL = L * L, j
    cdef int64_t k
    cdef const float* wk
    if k1 - ke == LL:
        wk = w + ke
        for j in range(LL):
            out[j] += wk[j] if FeatureKind is BinaryFeatures else v * wk[j]
    else:
        for k in range(ke, k1):
            out[m.code[k] - L] += w[k] if FeatureKind is BinaryFeatures else v * w[k]


cdef void _score_states(CRFModel m, Seq* s, double* st) noexcept nogil:
    """Log state scores (n x L), with start and end weights folded in.
    Every score is summed in the order of the position's attributes, so the
    dense and the sparse block forms give the same doubles."""
    cdef int L = m.n_labels, n = s.n, t, y
    cdef int32_t a
    cdef int64_t i
    cdef double* row
    cdef const float* w = m.w + m.off_blocks
    cdef const float* head = m.w
    memset(st, 0, sizeof(double) * n * L)
    for t in range(n):
        row = st + t * L
        # two loops, not one reading each value or 1.0: that costs +1.1%
        # instructions in binary training (callgrind, 104.9M vs 103.8M); so in _log_trans
        if s.vals == NULL:
            for i in range(s.ptr[t], s.ptr[t + 1]):
                a = s.attrs[i]
                _add_states(<BinaryFeatures*>NULL, m, w, m.ptr[a], m.ptr[a + 1], row, 1.0)
        else:
            for i in range(s.ptr[t], s.ptr[t + 1]):
                a = s.attrs[i]
                _add_states(<ValuedFeatures*>NULL, m, w, m.ptr[a], m.ptr[a + 1], row, s.vals[i])
    for y in range(L):
        st[y] += head[L * L + y]
        st[(n - 1) * L + y] += head[L * L + L + y]


cdef void _log_trans(CRFModel m, Seq* s, int t, double* out) noexcept nogil:
    """Log transition scores into position t (t >= 1): L x L. Each cell gets
    the label transition, then the rich edge weights in the order of the
    position's attributes (an attribute has at most one entry per cell)."""
    cdef int LL = m.n_labels * m.n_labels, j
    cdef int32_t a
    cdef int64_t i, k1
    cdef const float* w = m.w + m.off_blocks
    for j in range(LL):
        out[j] = m.w[j]
    if s.vals == NULL:
        for i in range(s.ptr[t], s.ptr[t + 1]):
            a = s.attrs[i]
            k1 = m.ptr[a + 1]
            _add_edges(<BinaryFeatures*>NULL, m, w, _edges_start(m, m.ptr[a], k1), k1, out, 1.0)
    else:
        for i in range(s.ptr[t], s.ptr[t + 1]):
            a = s.attrs[i]
            k1 = m.ptr[a + 1]
            _add_edges(<ValuedFeatures*>NULL, m, w, _edges_start(m, m.ptr[a], k1), k1, out, s.vals[i])


cdef inline int64_t _edges_start(CRFModel m, int64_t k0, int64_t k1) noexcept nogil:
    """Where the edge entries (codes >= L) of block [k0, k1) start: they sit
    at the end of the sorted block."""
    cdef int L = m.n_labels
    cdef int64_t ke
    if _dense_states(m, k0, k1):
        return k0 + L
    ke = k1
    while ke > k0 and m.code[ke - 1] >= L:
        ke -= 1
    return ke


cdef double _exp_trans(CRFModel m, Seq* s, int t, double* out) noexcept nogil:
    """exp(log transitions - shift) into out; returns the shift."""
    cdef int LL = m.n_labels * m.n_labels, j
    cdef double mx = -INFINITY
    _log_trans(m, s, t, out)
    for j in range(LL):
        if out[j] > mx:
            mx = out[j]
    for j in range(LL):
        out[j] = exp(out[j] - mx)
    return mx


cdef inline double* _trans_at(CRFModel m, Seq* s, CRFContext ctx, int t, double* shift) noexcept nogil:
    """The exp'd transition matrix of position t: stored, or recomputed into scratch."""
    cdef int LL = m.n_labels * m.n_labels
    if ctx.trans_stored:
        return ctx.trans + <Py_ssize_t>t * LL
    shift[0] = _exp_trans(m, s, t, ctx.scratch)
    return ctx.scratch


cdef double crf_forward_backward(CRFModel m, Seq* s, CRFContext ctx) noexcept nogil:
    """Scaled forward-backward (CRFsuite convention); returns log Z."""
    cdef int L = m.n_labels, n = s.n, t, y, yp
    cdef double shift_total = 0.0, mx, z, acc, sh = 0.0, log_scale = 0.0
    cdef double* st = ctx.state
    cdef double* E
    cdef double* row
    cdef double* prev
    cdef double* tmp = ctx.scratch2
    _prefetch_seq(m, s, ctx)
    _score_states(m, s, st)
    for t in range(n):
        row = st + t * L
        mx = -INFINITY
        for y in range(L):
            if row[y] > mx:
                mx = row[y]
        for y in range(L):
            row[y] = exp(row[y] - mx)
        shift_total += mx
    if ctx.trans_stored:
        for t in range(1, n):
            shift_total += _exp_trans(m, s, t, ctx.trans + <Py_ssize_t>t * L * L)
    # forward
    z = 0.0
    for y in range(L):
        ctx.alpha[y] = st[y]
        z += st[y]
    ctx.scale[0] = 1.0 / z
    for y in range(L):
        ctx.alpha[y] *= ctx.scale[0]
    for t in range(1, n):
        E = _trans_at(m, s, ctx, t, &sh)
        if not ctx.trans_stored:
            shift_total += sh
        prev = ctx.alpha + (t - 1) * L
        row = ctx.alpha + t * L
        for y in range(L):
            row[y] = 0.0
        for yp in range(L):
            acc = prev[yp]
            for y in range(L):
                row[y] += acc * E[yp * L + y]
        z = 0.0
        for y in range(L):
            row[y] *= st[t * L + y]
            z += row[y]
        ctx.scale[t] = 1.0 / z
        for y in range(L):
            row[y] *= ctx.scale[t]
    # backward
    for y in range(L):
        ctx.beta[(n - 1) * L + y] = ctx.scale[n - 1]
    for t in range(n - 2, -1, -1):
        E = _trans_at(m, s, ctx, t + 1, &sh)
        for y in range(L):
            tmp[y] = st[(t + 1) * L + y] * ctx.beta[(t + 1) * L + y]
        row = ctx.beta + t * L
        for yp in range(L):
            acc = 0.0
            for y in range(L):
                acc += E[yp * L + y] * tmp[y]
            row[yp] = acc * ctx.scale[t]
    for t in range(n):
        log_scale += log(ctx.scale[t])
    return shift_total - log_scale


cdef void crf_marginals(CRFModel m, Seq* s, CRFContext ctx, float* out) noexcept nogil:
    cdef int L = m.n_labels, t, y
    for t in range(s.n):
        for y in range(L):
            out[t * L + y] = <float>(ctx.alpha[t * L + y] * ctx.beta[t * L + y] / ctx.scale[t])


cdef double* _touch_sequence(FeatureKind* kind, SparseGrad grad, Seq* s) except NULL nogil:
    """Start a sample in grad and create the blocks of the head group and of
    every attribute of value != 0 before any is written, so that later touches
    never move grad.values (block pointers stay valid). Returns the head's block."""
    cdef int64_t i
    grad.begin_sample()
    grad.touch(0)
    for i in range(s.ptr[0], s.ptr[s.n]):
        if FeatureKind is ValuedFeatures:
            if s.vals[i] == 0.0:
                continue
        grad.touch(s.attrs[i] + 1)
    return grad.values + grad.touch(0)


cdef double crf_loglik_grad(CRFModel m, Seq* s, const int32_t* gold,
                            CRFContext ctx, SparseGrad grad) except? 1.0 nogil:
    """Add (observed - expected) feature values to grad; return log P(gold|x)."""
    if s.vals == NULL:
        return _loglik_grad(<BinaryFeatures*>NULL, m, s, gold, ctx, grad)
    return _loglik_grad(<ValuedFeatures*>NULL, m, s, gold, ctx, grad)


cdef double _loglik_grad(FeatureKind* kind, CRFModel m, Seq* s, const int32_t* gold,
                         CRFContext ctx, SparseGrad grad) except? 1.0 nogil:
    cdef int L = m.n_labels, LL = L * L, n = s.n, t, y, yp, gp = -1, j
    cdef int32_t a
    cdef int64_t i, k, s0
    cdef uint16_t c
    cdef double v = 1.0
    cdef double log_z = crf_forward_backward(m, s, ctx)
    cdef const float* wb = m.w + m.off_blocks
    # the gold path's score is summed in the gradient loop (same entries)
    cdef double gold_score = <double>m.w[LL + gold[0]] + <double>m.w[LL + L + gold[n - 1]]
    cdef double sh = 0.0, inv
    cdef double* st = ctx.state
    cdef double* P = ctx.scratch2   # node marginals of position t (L)
    cdef double* Pe = NULL          # edge marginals into position t (L x L)
    cdef double* E
    cdef double* head
    cdef double* blk
    head = _touch_sequence(kind, grad, s)
    for t in range(n):
        inv = 1.0 / ctx.scale[t]
        for y in range(L):
            P[y] = ctx.alpha[t * L + y] * ctx.beta[t * L + y] * inv
        if t == 0:
            for y in range(L):
                head[LL + y] -= P[y]
            head[LL + gold[0]] += 1.0
        if t == n - 1:
            for y in range(L):
                head[LL + L + y] -= P[y]
            head[LL + L + gold[n - 1]] += 1.0
        if t >= 1:
            gp = gold[t - 1] * L + gold[t]
            E = _trans_at(m, s, ctx, t, &sh)
            # edge marginals; in place when E is the recomputed scratch matrix
            Pe = ctx.scratch if ctx.trans_stored else E
            for yp in range(L):
                for y in range(L):
                    Pe[yp * L + y] = (ctx.alpha[(t - 1) * L + yp] * E[yp * L + y]
                                      * st[t * L + y] * ctx.beta[t * L + y])
            for j in range(LL):
                head[j] -= Pe[j]
            head[gp] += 1.0
            gold_score += m.w[gp]
        for i in range(s.ptr[t], s.ptr[t + 1]):
            if FeatureKind is ValuedFeatures:
                v = s.vals[i]
                if v == 0.0:
                    continue  # absent (see _touch_sequence)
            a = s.attrs[i]
            blk = grad.values + grad.touch(a + 1)
            s0 = m.ptr[a]
            for k in range(s0, m.ptr[a + 1]):
                c = m.code[k]
                if c < L:
                    blk[k - s0] -= v * P[c]
                    if c == gold[t]:
                        blk[k - s0] += v
                        gold_score += v * wb[k]
                elif t >= 1:
                    blk[k - s0] -= v * Pe[c - L]
                    if c - L == gp:
                        blk[k - s0] += v
                        gold_score += v * wb[k]
    return gold_score - log_z


cdef enum:
    VITERBI_AHEAD = 4   # positions between prefetching a position's blocks and reading them


cdef inline void _prefetch_pointers(CRFModel m, Seq* s, int t) noexcept nogil:
    """Prefetch the block pointers of position t's attributes (if t < n)."""
    cdef int64_t i
    if t < s.n:
        for i in range(s.ptr[t], s.ptr[t + 1]):
            prefetch(&m.ptr[s.attrs[i]])


cdef inline void _prefetch_blocks(CRFModel m, Seq* s, int t) noexcept nogil:
    """Prefetch every cache line of the codes and weights of position t's
    blocks (if t < n). Hints only: results do not depend on them."""
    cdef int64_t i, k, k0, k1
    cdef const float* w = m.w + m.off_blocks
    if t >= s.n:
        return
    for i in range(s.ptr[t], s.ptr[t + 1]):
        k0 = m.ptr[s.attrs[i]]
        k1 = m.ptr[s.attrs[i] + 1]
        if k1 <= k0:
            continue
        k = k0
        while k < k1:
            prefetch(&w[k])
            k += 16
        prefetch(&w[k1 - 1])
        k = k0
        while k < k1:
            prefetch(&m.code[k])
            k += 32
        prefetch(&m.code[k1 - 1])


cdef double crf_viterbi(CRFModel m, Seq* s, CRFContext ctx, int32_t* out) noexcept nogil:
    """Viterbi in one pass: each position's blocks (prefetched VITERBI_AHEAD
    positions before) are read once. Every score is the same sum, in the same
    order, as _score_states and _log_trans give, so the kernels agree to the bit."""
    if s.vals != NULL:
        return _valued_viterbi(NULL, m, s, ctx, out)
    return _viterbi(<BinaryFeatures*>NULL, m, s, ctx, out)


cdef double _viterbi(FeatureKind* kind, CRFModel m, Seq* s, CRFContext ctx, int32_t* out) noexcept nogil:
    cdef int L = m.n_labels, LL = L * L, n = s.n, t, y, yp, j, best_y
    cdef int32_t a
    cdef int64_t i, k0, ke, k1
    cdef double best, v, pv, val
    cdef double* st = ctx.state
    cdef double* delta = ctx.alpha
    cdef double* M = ctx.scratch
    cdef double* bestv = ctx.scratch2        # per label: best score so far (L)
    cdef double* row
    cdef double* prev
    cdef double* mrow
    cdef int32_t* arg
    cdef const float* w = m.w + m.off_blocks
    cdef const float* head = m.w
    for t in range(min(n, 2 * VITERBI_AHEAD)):
        _prefetch_pointers(m, s, t)
    for t in range(min(n, VITERBI_AHEAD)):
        _prefetch_blocks(m, s, t)
    for t in range(n):
        _prefetch_pointers(m, s, t + 2 * VITERBI_AHEAD)
        _prefetch_blocks(m, s, t + VITERBI_AHEAD)
        row = st + t * L
        for y in range(L):
            row[y] = 0.0
        if t >= 1:
            for j in range(LL):
                M[j] = head[j]
        for i in range(s.ptr[t], s.ptr[t + 1]):
            a = s.attrs[i]
            k0 = m.ptr[a]
            k1 = m.ptr[a + 1]
            val = 1.0 if FeatureKind is BinaryFeatures else s.vals[i]
            ke = _add_states(kind, m, w, k0, k1, row, val)
            if t >= 1:
                _add_edges(kind, m, w, ke, k1, M, val)
        if t == 0:
            for y in range(L):
                row[y] += head[LL + y]
        if t == n - 1:
            for y in range(L):
                row[y] += head[LL + L + y]
        if t == 0:
            for y in range(L):
                delta[y] = row[y]
            continue
        # for every label y the first yp (in order) of the highest score,
        # the previous label outermost so the inner loop runs over y
        prev = delta + (t - 1) * L
        arg = ctx.back + t * L
        for y in range(L):
            bestv[y] = -INFINITY
            arg[y] = 0
        for yp in range(L):
            pv = prev[yp]
            mrow = M + yp * L
            for y in range(L):
                v = pv + mrow[y]
                if v > bestv[y]:
                    bestv[y] = v
                    arg[y] = yp
        for y in range(L):
            delta[t * L + y] = bestv[y] + row[y]
    best = -INFINITY
    best_y = 0
    for y in range(L):
        if delta[(n - 1) * L + y] > best:
            best = delta[(n - 1) * L + y]
            best_y = y
    out[n - 1] = best_y
    for t in range(n - 1, 0, -1):
        out[t - 1] = ctx.back[t * L + out[t]]
    return best


ctypedef double (*ValuedViterbi)(ValuedFeatures* kind, CRFModel m, Seq* s, CRFContext ctx,
                                 int32_t* out) noexcept nogil


# Called through a pointer so that the compiler does not inline the valued
# form into crf_viterbi: the binary form then compiles alone, to the machine
# code of a Viterbi without values.
cdef ValuedViterbi _valued_viterbi = _viterbi[ValuedFeatures]


cdef double crf_perceptron_grad(CRFModel m, Seq* s, const int32_t* gold, CRFContext ctx,
                                SparseGrad grad, int32_t* pred) except? -1.0 nogil:
    """Add f(x, gold) - f(x, viterbi) to grad (pred receives the Viterbi path);
    every group of the sequence is touched, so each sample is one counted
    update. Returns the number of wrongly labelled positions."""
    if s.vals == NULL:
        return _perceptron_grad(<BinaryFeatures*>NULL, m, s, gold, ctx, grad, pred)
    return _perceptron_grad(<ValuedFeatures*>NULL, m, s, gold, ctx, grad, pred)


cdef double _perceptron_grad(FeatureKind* kind, CRFModel m, Seq* s, const int32_t* gold, CRFContext ctx,
                             SparseGrad grad, int32_t* pred) except? -1.0 nogil:
    cdef int L = m.n_labels, LL = L * L, n = s.n, t, gp = -1, pp = -1
    cdef int32_t a
    cdef int64_t i, k, s0
    cdef uint16_t c
    cdef double v = 1.0
    cdef double* head
    cdef double* blk
    cdef int errors = 0
    crf_viterbi(m, s, ctx, pred)
    head = _touch_sequence(kind, grad, s)
    for t in range(n):
        if pred[t] != gold[t]:
            errors += 1
    if errors == 0:
        return 0.0
    head[LL + gold[0]] += 1.0
    head[LL + pred[0]] -= 1.0
    head[LL + L + gold[n - 1]] += 1.0
    head[LL + L + pred[n - 1]] -= 1.0
    for t in range(n):
        if t >= 1:
            gp = gold[t - 1] * L + gold[t]
            pp = pred[t - 1] * L + pred[t]
            head[gp] += 1.0
            head[pp] -= 1.0
        if gold[t] == pred[t] and (t == 0 or gp == pp):
            continue  # same state and edge: the attribute entries cancel
        # the attribute walk of _loglik_grad with another update in its body (shared through a
        # callback, the innermost loop would make a pointer call per entry)
        for i in range(s.ptr[t], s.ptr[t + 1]):
            if FeatureKind is ValuedFeatures:
                v = s.vals[i]
                if v == 0.0:
                    continue  # absent (see _touch_sequence)
            a = s.attrs[i]
            blk = grad.values + grad.touch(a + 1)
            s0 = m.ptr[a]
            for k in range(s0, m.ptr[a + 1]):
                c = m.code[k]
                if c < L:
                    if c == gold[t]:
                        blk[k - s0] += v
                    if c == pred[t]:
                        blk[k - s0] -= v
                elif t >= 1:
                    if c - L == gp:
                        blk[k - s0] += v
                    if c - L == pp:
                        blk[k - s0] -= v
    return <double>errors
