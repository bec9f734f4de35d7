# cython: language_level=3
"""Fast polynomial-kernel SVM classifiers over binary feature sets
(Kudo & Matsumoto 2003): PKB (direct sum), PKI (inverted index, exact) and
PKE (expanded subset weights in a trie, approximate for sigma > 0).

All inputs are sets of int32 feature ids. Ids outside the training
vocabulary [0, n_features) can never meet a support example: they are
ignored. The inner loops are nogil; each call owns its scratch memory, so a
classifier can be shared between threads.
"""
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memcpy

import numpy
import scipy.sparse

from murmurhash.mrmr cimport hash64
from preshed.maps cimport PreshMap

from ..serialization.framed import pack, unpack
from .coefficients import subset_weights, suffix_max_weights
from .svm import SupportVectors, binary_csr

# ---------------------------------------------------------------- helpers


cdef int _cmp_i32(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0], y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


cdef Py_ssize_t _sort_unique(int32_t* a, Py_ssize_t n) noexcept nogil:
    """Sort a[:n] in place and drop duplicates; returns the new length.
    Insertion sort for the usual 30-100 features, qsort beyond."""
    cdef Py_ssize_t i, j, m
    cdef int32_t v
    if n > 64:
        qsort(a, n, sizeof(int32_t), _cmp_i32)
    else:
        for i in range(1, n):
            v = a[i]
            j = i - 1
            while j >= 0 and a[j] > v:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = v
    if n == 0:
        return 0
    m = 1
    for i in range(1, n):
        if a[i] != a[m - 1]:
            a[m] = a[i]
            m += 1
    return m


cdef inline double _ipow(double x, int d) noexcept nogil:
    cdef double r = 1.0
    while d > 0:
        r *= x
        d -= 1
    return r


cdef inline int64_t _gallop(const int32_t* a, int64_t lo, int64_t hi, int32_t v) noexcept nogil:
    """Smallest p in [lo, hi) with a[p] >= v (hi if none), a sorted; costs
    O(log(p - lo)), so a run of increasing queries over one list is cheap
    whether the list is short or long."""
    cdef int64_t step = 1, top, mid
    if lo >= hi or a[lo] >= v:
        return lo
    while lo + step < hi and a[lo + step] < v:  # invariant: a[lo] < v
        lo += step
        step <<= 1
    top = lo + step if lo + step < hi else hi
    lo += 1
    while lo < top:
        mid = (lo + top) >> 1
        if a[mid] < v:
            lo = mid + 1
        else:
            top = mid
    return lo


def _as_ids(feature_ids):
    """int32 ids; values that do not fit int32 become -1 (unseen, ignored)."""
    arr = numpy.asarray(feature_ids)
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    if arr.dtype == numpy.int32:
        return numpy.ascontiguousarray(arr)
    if arr.size and arr.dtype.kind not in "iu":
        if arr.dtype.kind == "b" or not numpy.all(numpy.mod(arr, 1) == 0):
            raise ValueError("feature ids must be integers")
    arr = arr.astype(numpy.int64)
    arr[(arr < 0) | (arr > 2147483647)] = -1
    return arr.astype(numpy.int32)


def _as_csr(X):
    """(indptr int64, indices int32) of a scipy CSR matrix or a (indptr, indices) pair."""
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csr_matrix(X)
        if X.nnz and not numpy.all(X.data == 1):
            X = binary_csr(X)  # drops stored zeros; other values are an error
        indptr, indices = X.indptr, X.indices
    else:
        indptr, indices = X
    indptr = numpy.ascontiguousarray(indptr, dtype=numpy.int64)
    indices = _as_ids(indices)
    if (indptr.ndim != 1 or indptr.shape[0] < 1 or indptr[0] != 0
            or indptr[indptr.shape[0] - 1] != indices.shape[0]):
        raise ValueError("CSR input: indptr does not match the indices")
    if numpy.any(numpy.diff(indptr) < 0):
        raise ValueError("CSR input: indptr must be non-decreasing")
    return indptr, indices


cdef struct Scratch:
    int32_t* buf        # the sorted, deduplicated input (ranks for PKE)
    int32_t* count      # PKI: r_j per support example, all zero between calls
    int32_t* touched    # PKI: support examples with r_j > 0
    uint64_t* bits      # PKE: the input's ranks as a bitmap, all zero between calls


cdef class KernelClassifier:
    """Shared driver: validation, scratch memory and the batch loop."""
    cdef readonly int degree
    cdef readonly double bias          # b + w(empty set): what an empty input scores
    cdef readonly int n_features

    cdef int _alloc(self, Scratch* s, Py_ssize_t max_len) except -1:
        s.buf = <int32_t*>malloc((max_len + 1) * sizeof(int32_t))
        s.count = NULL
        s.touched = NULL
        s.bits = NULL
        if s.buf == NULL:
            raise MemoryError()
        return 0

    cdef void _release(self, Scratch* s) noexcept:
        free(s.buf)
        free(s.count)
        free(s.touched)
        free(s.bits)

    cdef double _decide(self, const int32_t* x, Py_ssize_t n, Scratch* s) noexcept nogil:
        return 0.0

    def decision(self, feature_ids) -> float:
        """Decision value sum_j y_j a_j K(X_j, X) + b of one feature-id set."""
        cdef const int32_t[::1] x = _as_ids(feature_ids)
        cdef Scratch s
        cdef double out
        self._alloc(&s, x.shape[0])
        with nogil:
            out = self._decide(&x[0] if x.shape[0] else NULL, x.shape[0], &s)
        self._release(&s)
        return out

    def decision_batch(self, X):
        """Decision values (float64) of the rows of a CSR matrix (or (indptr, indices))."""
        indptr, indices = _as_csr(X)
        cdef const int64_t[::1] p = indptr
        cdef const int32_t[::1] ix = indices
        cdef Py_ssize_t i, n = p.shape[0] - 1
        out = numpy.zeros(n, dtype=numpy.float64)
        cdef double[::1] o = out
        cdef Scratch s
        max_len = int(numpy.diff(indptr).max()) if n else 0
        self._alloc(&s, max_len)
        with nogil:
            for i in range(n):
                o[i] = self._decide(&ix[p[i]] if p[i + 1] > p[i] else NULL, p[i + 1] - p[i], &s)
        self._release(&s)
        return out

    def __reduce__(self):
        return (load_classifier, (self.to_bytes(),))


# ---------------------------------------------------------------- PKB / PKI


cdef class _SVBased(KernelClassifier):
    """Holds the support examples as CSR arrays (shared by PKB and PKI)."""
    cdef readonly object support_vectors
    cdef object _keep
    cdef const int64_t* sv_ptr
    cdef const int32_t* sv_ix
    cdef const double* coef
    cdef double b
    cdef Py_ssize_t n_sv

    def __init__(self, support_vectors):
        if not isinstance(support_vectors, SupportVectors):
            raise TypeError("expected a SupportVectors object")
        sv = support_vectors
        self.support_vectors = sv
        self._keep = (sv.indptr, sv.indices, sv.coef)
        cdef const int64_t[::1] p = sv.indptr
        cdef const int32_t[::1] ix = sv.indices
        cdef const double[::1] c = sv.coef
        self.sv_ptr = &p[0]
        self.sv_ix = &ix[0] if ix.shape[0] else NULL
        self.coef = &c[0] if c.shape[0] else NULL
        self.n_sv = c.shape[0]
        self.degree = sv.degree
        self.n_features = sv.n_features
        self.b = sv.bias
        self.bias = sv.bias + float(sv.coef.sum())  # every K(X_j, X) is >= 1

    @property
    def nbytes(self):
        sv = self.support_vectors
        return sv.indptr.nbytes + sv.indices.nbytes + sv.coef.nbytes

    def to_bytes(self) -> bytes:
        return pack(self.FORMAT, 1, {}, {"support_vectors": self.support_vectors.to_bytes()})

    @classmethod
    def from_bytes(cls, data):
        _, meta = unpack(data, cls.FORMAT, 1, {})
        if not isinstance(meta.get("support_vectors"), bytes):
            raise ValueError(f"the {cls.FORMAT} data lacks its support vectors")
        return cls(SupportVectors.from_bytes(meta["support_vectors"]))


cdef class PKB(_SVBased):
    """Baseline: sum_j coef_j (1 + |X_j & X|)^d by sorted-merge intersection,
    O(|X| + sum_j |X_j|) per decision."""
    FORMAT = "spacy_adf.kernels.pkb"

    cdef double _decide(self, const int32_t* x, Py_ssize_t n, Scratch* s) noexcept nogil:
        cdef Py_ssize_t i, m, k
        cdef int64_t a, e
        cdef int r
        cdef double total = 0.0
        for i in range(n):
            s.buf[i] = x[i]
        m = _sort_unique(s.buf, n)
        for i in range(self.n_sv):
            a = self.sv_ptr[i]
            e = self.sv_ptr[i + 1]
            k = 0
            r = 0
            while a < e and k < m:
                if self.sv_ix[a] < s.buf[k]:
                    a += 1
                elif self.sv_ix[a] > s.buf[k]:
                    k += 1
                else:
                    r += 1
                    a += 1
                    k += 1
            total += self.coef[i] * _ipow(1.0 + r, self.degree)
        return total + self.b


cdef class PKI(_SVBased):
    """Inverted index h(i) = support examples containing feature i. Counts
    r_j only for the support examples that share a feature with X; all others
    contribute coef_j * 1, which is precomputed into `bias`. Exact;
    O(|X| B + #touched) per decision (B = mean |h(i)|)."""
    FORMAT = "spacy_adf.kernels.pki"
    cdef object _inv
    cdef const int64_t* inv_ptr
    cdef const int32_t* inv_sv

    def __init__(self, support_vectors):
        _SVBased.__init__(self, support_vectors)
        sv = self.support_vectors
        rows = numpy.repeat(numpy.arange(sv.n_sv, dtype=numpy.int32), numpy.diff(sv.indptr))
        order = numpy.argsort(sv.indices, kind="stable")  # stable: SV ids ascend per feature
        inv_ptr = numpy.zeros(sv.n_features + 1, dtype=numpy.int64)
        inv_ptr[1:] = numpy.cumsum(numpy.bincount(sv.indices, minlength=sv.n_features))
        inv_sv = numpy.ascontiguousarray(rows[order])
        self._inv = (inv_ptr, inv_sv)
        cdef const int64_t[::1] ip = inv_ptr
        cdef const int32_t[::1] iv = inv_sv
        self.inv_ptr = &ip[0]
        self.inv_sv = &iv[0] if iv.shape[0] else NULL

    @property
    def nbytes(self):
        sv = self.support_vectors
        return (sv.indptr.nbytes + sv.indices.nbytes + sv.coef.nbytes + self._inv[0].nbytes
                + self._inv[1].nbytes)

    cdef int _alloc(self, Scratch* s, Py_ssize_t max_len) except -1:
        KernelClassifier._alloc(self, s, max_len)
        s.count = <int32_t*>calloc(self.n_sv + 1, sizeof(int32_t))
        s.touched = <int32_t*>malloc((self.n_sv + 1) * sizeof(int32_t))
        if s.count == NULL or s.touched == NULL:
            self._release(s)
            raise MemoryError()
        return 0

    cdef double _decide(self, const int32_t* x, Py_ssize_t n, Scratch* s) noexcept nogil:
        cdef Py_ssize_t i, m, nt = 0
        cdef int64_t a
        cdef int32_t f, j
        cdef double total = self.bias
        m = 0
        for i in range(n):  # unseen ids cannot hit a support example
            if 0 <= x[i] < self.n_features:
                s.buf[m] = x[i]
                m += 1
        m = _sort_unique(s.buf, m)  # a repeated id must not count twice
        for i in range(m):
            f = s.buf[i]
            for a in range(self.inv_ptr[f], self.inv_ptr[f + 1]):
                j = self.inv_sv[a]
                if s.count[j] == 0:
                    s.touched[nt] = j
                    nt += 1
                s.count[j] += 1
        for i in range(nt):
            j = s.touched[i]
            total += self.coef[j] * (_ipow(1.0 + s.count[j], self.degree) - 1.0)
            s.count[j] = 0
        return total


# ---------------------------------------------------------------- PKE mining


cdef struct Miner:
    # transactions: support examples as sorted item ranks (dead items removed)
    const int64_t* tptr
    const int32_t* titem
    const double* tcoef
    int32_t n_items
    int d
    double c[16]        # c_d(r)
    double M[17]        # max_{r' >= r} c_d(r'): bound for supersets
    double sig_pos
    double sig_neg
    int32_t xi
    # per-item accumulators, zero between nodes
    double* sp
    double* sn
    int32_t* cnt
    int64_t* slot       # write cursor into the child projection, -1 if not expanded
    int32_t* touched
    # per level L = 1..d: the children of the node being expanded at level L - 1
    int32_t* ch_item
    double* ch_w
    uint8_t* ch_flag    # 1 = kept, 2 = expand
    int64_t* ch_beg
    int32_t* ch_n
    # per level L = 1..d-1: projected transactions (t, position of last item)
    int32_t* pj_t
    int64_t* pj_p
    int64_t nnz
    # output records in DFS pre-order
    int32_t* r_parent
    int32_t* r_item
    double* r_w
    int8_t* r_depth
    uint8_t* r_keep
    int64_t n_rec
    int64_t cap_rec
    int64_t n_visited


cdef int _emit(Miner* m, int32_t parent, int32_t item, double w, int depth, bint keep) noexcept nogil:
    cdef int64_t cap
    if m.n_rec == m.cap_rec:
        cap = m.cap_rec * 2 + 1024
        m.r_parent = <int32_t*>realloc(m.r_parent, cap * sizeof(int32_t))
        m.r_item = <int32_t*>realloc(m.r_item, cap * sizeof(int32_t))
        m.r_w = <double*>realloc(m.r_w, cap * sizeof(double))
        m.r_depth = <int8_t*>realloc(m.r_depth, cap * sizeof(int8_t))
        m.r_keep = <uint8_t*>realloc(m.r_keep, cap * sizeof(uint8_t))
        if (m.r_parent == NULL or m.r_item == NULL or m.r_w == NULL or m.r_depth == NULL
                or m.r_keep == NULL):
            return -1
        m.cap_rec = cap
    if m.n_rec >= 2147483647:
        return -1
    m.r_parent[m.n_rec] = parent
    m.r_item[m.n_rec] = item
    m.r_w[m.n_rec] = w
    m.r_depth[m.n_rec] = <int8_t>depth
    m.r_keep[m.n_rec] = keep
    m.n_rec += 1
    return 0


cdef int _mine_node(Miner* m, int level, int32_t node, const int32_t* pt, const int64_t* pp,
                    int64_t n_proj) noexcept nogil:
    """Expand the subset `node` (size `level`), whose support examples are the
    projected transactions pt/pp: one pass accumulates, for every item after
    the last one of each projection, the positive and negative coefficient
    sums and the support count; children that can still reach |w| >= sigma
    (bounded by M(level + 2) times the one-sided sums, which only shrink for
    supersets) get their own projection, built in a second pass."""
    cdef int L = level + 1
    cdef int64_t q, p, end, off, b
    cdef int32_t t, it, nt = 0, nc = 0, k
    cdef double cf, w, sp, sn
    cdef bint keep, expand
    cdef int32_t* ch_item = m.ch_item + L * m.n_items
    cdef double* ch_w = m.ch_w + L * m.n_items
    cdef uint8_t* ch_flag = m.ch_flag + L * m.n_items
    cdef int64_t* ch_beg = m.ch_beg + L * m.n_items
    cdef int32_t* ch_n = m.ch_n + L * m.n_items
    cdef int32_t* pj_t = m.pj_t + L * m.nnz
    cdef int64_t* pj_p = m.pj_p + L * m.nnz
    cdef int64_t before
    for q in range(n_proj):
        t = pt[q]
        cf = m.tcoef[t]
        end = m.tptr[t + 1]
        for p in range(pp[q] + 1, end):
            it = m.titem[p]
            if m.cnt[it] == 0:
                m.touched[nt] = it
                nt += 1
            m.cnt[it] += 1
            if cf > 0:
                m.sp[it] += cf
            else:
                m.sn[it] += cf
    m.n_visited += nt
    qsort(m.touched, nt, sizeof(int32_t), _cmp_i32)
    off = 0
    for k in range(nt):
        it = m.touched[k]
        sp = m.sp[it]
        sn = m.sn[it]
        if m.cnt[it] >= m.xi:
            w = m.c[L] * (sp + sn)
            keep = w >= m.sig_pos or w <= m.sig_neg
            expand = L < m.d and (m.M[L + 1] * sp >= m.sig_pos or m.M[L + 1] * sn <= m.sig_neg)
            if keep or expand:
                ch_item[nc] = it
                ch_w[nc] = w if keep else 0.0
                ch_flag[nc] = (1 if keep else 0) | (2 if expand else 0)
                ch_beg[nc] = off
                ch_n[nc] = m.cnt[it] if expand else 0
                if expand:
                    m.slot[it] = off
                    off += m.cnt[it]
                nc += 1
        m.sp[it] = 0.0
        m.sn[it] = 0.0
        m.cnt[it] = 0
    if off:  # second pass: the projections of the expanded children
        for q in range(n_proj):
            t = pt[q]
            end = m.tptr[t + 1]
            for p in range(pp[q] + 1, end):
                it = m.titem[p]
                b = m.slot[it]
                if b >= 0:
                    pj_t[b] = t
                    pj_p[b] = p
                    m.slot[it] = b + 1
        for k in range(nc):
            if ch_flag[k] & 2:
                m.slot[ch_item[k]] = -1
    # level-L lists and projections stay intact while a child expands: it
    # writes its own children into level L + 1
    for k in range(nc):
        before = m.n_rec
        if _emit(m, node, ch_item[k], ch_w[k], L, ch_flag[k] & 1) < 0:
            return -1
        if ch_flag[k] & 2:
            if _mine_node(m, L, <int32_t>before, pj_t + ch_beg[k], pj_p + ch_beg[k], ch_n[k]) < 0:
                return -1
            if not (ch_flag[k] & 1) and m.n_rec == before + 1:
                m.n_rec = before  # not kept, no kept descendant: drop the prefix node
    return 0


cdef void _copy_out(arr, const void* src, size_t nbytes):
    cdef unsigned char[::1] dst = arr.view(numpy.uint8)
    memcpy(&dst[0], src, nbytes)


def mine_subsets(tptr, titem, tcoef, int n_items, int degree, double sig_pos, double sig_neg,
                 int xi):
    """Depth-first subset mining over the support examples (PrefixSpan-style
    projection, items in rank order). Returns pre-order records (parent,
    item, w, depth, keep) of every kept subset and of the prefixes leading to
    them (w = 0 for a prefix that is not kept), plus the number of visited
    candidate subsets. Transactions must hold sorted ranks < n_items."""
    cdef const int64_t[::1] tp = numpy.ascontiguousarray(tptr, dtype=numpy.int64)
    cdef const int32_t[::1] ti = numpy.ascontiguousarray(titem, dtype=numpy.int32)
    cdef const double[::1] tc = numpy.ascontiguousarray(tcoef, dtype=numpy.float64)
    if degree < 1 or degree > 15:
        raise ValueError("PKE supports degrees 1 to 15")
    if xi < 1:
        raise ValueError("xi (minimum support) must be >= 1")
    cdef Py_ssize_t n_sv = tc.shape[0]
    if tp.shape[0] != n_sv + 1 or tp[0] != 0 or tp[n_sv] != ti.shape[0]:
        raise ValueError("mine_subsets: transactions do not match")
    cdef Miner m
    cdef int r
    cdef Py_ssize_t j, k
    c = subset_weights(degree)
    M = suffix_max_weights(degree)
    for r in range(degree + 1):
        m.c[r] = float(c[r])
    for r in range(degree + 2):
        m.M[r] = float(M[r])
    m.tptr = &tp[0]
    m.titem = &ti[0] if ti.shape[0] else NULL
    m.tcoef = &tc[0] if tc.shape[0] else NULL
    m.n_items = n_items
    m.d = degree
    m.sig_pos = sig_pos
    m.sig_neg = sig_neg
    m.xi = xi
    m.nnz = ti.shape[0] + 1
    cdef int64_t ni = n_items + 1
    m.sp = <double*>calloc(ni, sizeof(double))
    m.sn = <double*>calloc(ni, sizeof(double))
    m.cnt = <int32_t*>calloc(ni, sizeof(int32_t))
    m.slot = <int64_t*>malloc(ni * sizeof(int64_t))
    m.touched = <int32_t*>malloc(ni * sizeof(int32_t))
    m.ch_item = <int32_t*>malloc((degree + 1) * ni * sizeof(int32_t))
    m.ch_w = <double*>malloc((degree + 1) * ni * sizeof(double))
    m.ch_flag = <uint8_t*>malloc((degree + 1) * ni * sizeof(uint8_t))
    m.ch_beg = <int64_t*>malloc((degree + 1) * ni * sizeof(int64_t))
    m.ch_n = <int32_t*>malloc((degree + 1) * ni * sizeof(int32_t))
    # a level's projections never exceed the transaction items: each projected
    # (t, p) owns a distinct suffix position, so nnz slots per level suffice
    m.pj_t = <int32_t*>malloc(degree * m.nnz * sizeof(int32_t))
    m.pj_p = <int64_t*>malloc(degree * m.nnz * sizeof(int64_t))
    m.r_parent = NULL
    m.r_item = NULL
    m.r_w = NULL
    m.r_depth = NULL
    m.r_keep = NULL
    m.n_rec = 0
    m.cap_rec = 0
    m.n_visited = 0
    cdef int rc = -1
    try:
        if (m.sp == NULL or m.sn == NULL or m.cnt == NULL or m.slot == NULL or m.touched == NULL
                or m.ch_item == NULL or m.ch_w == NULL or m.ch_flag == NULL or m.ch_beg == NULL
                or m.ch_n == NULL or m.pj_t == NULL or m.pj_p == NULL):
            raise MemoryError()
        for j in range(ni):
            m.slot[j] = -1
        # root projection (level-0 buffer): every non-empty transaction, before its first item
        k = 0
        for j in range(n_sv):
            if tp[j + 1] > tp[j]:
                m.pj_t[k] = <int32_t>j
                m.pj_p[k] = tp[j] - 1
                k += 1
        with nogil:
            rc = _mine_node(&m, 0, -1, m.pj_t, m.pj_p, k)
        if rc < 0:
            raise MemoryError("PKE mining ran out of memory (raise sigma or xi)")
        n = m.n_rec
        parent = numpy.empty(n, dtype=numpy.int32)
        item = numpy.empty(n, dtype=numpy.int32)
        w = numpy.empty(n, dtype=numpy.float64)
        depth = numpy.empty(n, dtype=numpy.int8)
        keep = numpy.empty(n, dtype=numpy.uint8)
        if n:
            _copy_out(parent, m.r_parent, n * sizeof(int32_t))
            _copy_out(item, m.r_item, n * sizeof(int32_t))
            _copy_out(w, m.r_w, n * sizeof(double))
            _copy_out(depth, m.r_depth, n * sizeof(int8_t))
            _copy_out(keep, m.r_keep, n * sizeof(uint8_t))
        return parent, item, w, depth, keep.view(numpy.bool_), int(m.n_visited)
    finally:
        free(m.sp); free(m.sn); free(m.cnt); free(m.slot); free(m.touched)
        free(m.ch_item); free(m.ch_w); free(m.ch_flag); free(m.ch_beg); free(m.ch_n)
        free(m.pj_t); free(m.pj_p)
        free(m.r_parent); free(m.r_item); free(m.r_w); free(m.r_depth); free(m.r_keep)


cdef struct Acc:
    double* sp
    double* sn
    int32_t* cnt
    int8_t* size
    int64_t n
    int64_t cap


cdef int _enum_rec(PreshMap table, Acc* acc, const int32_t* items, int n, int start, int depth,
                   int d, uint64_t* key, double cf) except -1:
    cdef int k
    cdef int64_t slot, cap
    cdef uint64_t h
    for k in range(start, n):
        key[depth] = <uint64_t>items[k]
        h = hash64(key, (depth + 1) * sizeof(uint64_t), 0x5eed)
        h = h + 2 if h < 2 else h  # preshed reserves keys 0 and 1
        slot = <int64_t><size_t>table.get(h) - 1
        if slot < 0:
            if acc.n == acc.cap:
                cap = acc.cap * 2 + 4096
                acc.sp = <double*>realloc(acc.sp, cap * sizeof(double))
                acc.sn = <double*>realloc(acc.sn, cap * sizeof(double))
                acc.cnt = <int32_t*>realloc(acc.cnt, cap * sizeof(int32_t))
                acc.size = <int8_t*>realloc(acc.size, cap * sizeof(int8_t))
                if acc.sp == NULL or acc.sn == NULL or acc.cnt == NULL or acc.size == NULL:
                    raise MemoryError()
                acc.cap = cap
            slot = acc.n
            acc.n += 1
            acc.sp[slot] = 0.0
            acc.sn[slot] = 0.0
            acc.cnt[slot] = 0
            acc.size[slot] = <int8_t>(depth + 1)
            table.set(h, <void*><size_t>(slot + 1))
        if cf > 0:
            acc.sp[slot] += cf
        else:
            acc.sn[slot] += cf
        acc.cnt[slot] += 1
        if depth + 1 < d:
            _enum_rec(table, acc, items, n, k + 1, depth + 1, d, key, cf)
    return 0


def enumerate_subsets(tptr, titem, tcoef, int degree):
    """The alternative to mine_subsets, for comparison: enumerate every subset
    (size <= d) of every transaction and accumulate S+, S- and the support per
    distinct subset in a preshed table keyed by a 64-bit hash of the ranks
    (a collision merges two subsets; probability ~ n^2 / 2^65). No sigma
    pruning is possible before all sums are complete, so memory grows with
    the number of distinct subsets. Returns (size int8, S+, S-, support)."""
    cdef const int64_t[::1] tp = numpy.ascontiguousarray(tptr, dtype=numpy.int64)
    cdef const int32_t[::1] ti = numpy.ascontiguousarray(titem, dtype=numpy.int32)
    cdef const double[::1] tc = numpy.ascontiguousarray(tcoef, dtype=numpy.float64)
    cdef uint64_t key[16]
    cdef PreshMap table = PreshMap()
    cdef Acc acc
    cdef Py_ssize_t j
    if degree < 1 or degree > 15:
        raise ValueError("degrees 1 to 15 only")
    acc.sp = NULL
    acc.sn = NULL
    acc.cnt = NULL
    acc.size = NULL
    acc.n = 0
    acc.cap = 0
    try:
        for j in range(tc.shape[0]):
            if tp[j + 1] > tp[j]:
                _enum_rec(table, &acc, &ti[tp[j]], <int>(tp[j + 1] - tp[j]), 0, 0, degree, key,
                          tc[j])
        n = acc.n
        size = numpy.array(<int8_t[:n]>acc.size if n else [], dtype=numpy.int8)
        sp = numpy.array(<double[:n]>acc.sp if n else [], dtype=numpy.float64)
        sn = numpy.array(<double[:n]>acc.sn if n else [], dtype=numpy.float64)
        cnt = numpy.array(<int32_t[:n]>acc.cnt if n else [], dtype=numpy.int32)
        return size, sp, sn, cnt
    finally:
        free(acc.sp)
        free(acc.sn)
        free(acc.cnt)
        free(acc.size)


# ---------------------------------------------------------------- PKE

cdef enum:
    # scan a child list against the input bitmap when it has at most this
    # many entries per remaining input item, else gallop-intersect it
    SCAN_RATIO = 16


cdef class PKE(KernelClassifier):
    """Expanded form: decision(X) = bias + sum over subsets s of X with
    |s| <= d of w(s), w(s) = c_d(|s|) * sum_{j: s in X_j} coef_j, looked up
    in a trie over feature ranks. Subsets with sigma_neg < w(s) < sigma_pos or
    support < xi are dropped (sigma = 0, xi = 1: exact up to rounding).

    Trie layout (breadth-first, 16 bytes a node): node ids 0..n1-1 are the
    subsets of size 1; the children of node i are nodes cptr[i]..cptr[i+1]-1,
    sorted by item rank; item[i] is the rank added by node i, weight[i] its
    w (0 for a prefix that is only kept because it leads to kept subsets).
    feat_rank maps feature ids to ranks and root maps ranks to size-1 nodes.
    (Laying sibling blocks out in pre-order, so that a subtree is contiguous,
    measured no faster and costs 20 bytes a node.)
    """
    FORMAT = "spacy_adf.kernels.pke"
    cdef readonly double sigma
    cdef readonly double sigma_pos
    cdef readonly double sigma_neg
    cdef readonly int xi
    cdef readonly dict stats
    cdef readonly object arrays
    cdef const int32_t* feat_rank
    cdef const int32_t* root
    cdef const int32_t* cptr
    cdef const int32_t* item
    cdef const double* weight
    cdef int32_t n_items

    def __init__(self, support_vectors, double sigma=0.0, int xi=1):
        if not isinstance(support_vectors, SupportVectors):
            raise TypeError("expected a SupportVectors object")
        if not sigma >= 0.0:
            raise ValueError("sigma must be >= 0")
        if xi < 1:
            raise ValueError("xi (minimum support) must be >= 1")
        sv = support_vectors
        d = sv.degree
        n_sv = max(sv.n_sv, 1)
        sig_pos = sigma * sv.n_pos / n_sv
        sig_neg = -sigma * sv.n_neg / n_sv
        tptr, titem, feat_rank, n_items = _transactions(sv, sig_pos, sig_neg, xi)
        parent, item, w, depth, keep, visited = mine_subsets(
            tptr, titem, sv.coef, n_items, d, sig_pos, sig_neg, xi)
        arrays = _layout(parent, item, w, depth, feat_rank, n_items, d)
        sizes = numpy.bincount(depth[keep], minlength=d + 1)[1:].tolist()
        meta = {"degree": d, "bias": sv.bias + float(sv.coef.sum()),
                "n_features": sv.n_features, "sigma": float(sigma), "sigma_pos": sig_pos,
                "sigma_neg": sig_neg, "xi": int(xi),
                "stats": {"n_kept": int(keep.sum()), "kept_by_size": sizes,
                          "n_nodes": int(len(w)), "n_visited": int(visited),
                          "n_items": int(n_items), "n_sv": sv.n_sv}}
        self._bind(arrays, meta)

    cdef _bind(self, dict arrays, dict meta):
        fr, root, cptr, item, weight = (arrays["feat_rank"], arrays["root"], arrays["cptr"],
                                        arrays["item"], arrays["weight"])
        self.degree = int(meta["degree"])
        self.bias = float(meta["bias"])
        self.n_features = int(meta["n_features"])
        self.sigma = float(meta["sigma"])
        self.sigma_pos = float(meta["sigma_pos"])
        self.sigma_neg = float(meta["sigma_neg"])
        self.xi = int(meta["xi"])
        self.stats = dict(meta["stats"])
        n = item.shape[0]
        n_items = root.shape[0]
        # the walk trusts these arrays, so check them once (also after loading)
        if (fr.shape != (self.n_features,) or cptr.shape != (n + 1,) or weight.shape != (n,)
                or self.degree < 1 or self.degree > 15):
            raise ValueError("PKE arrays do not match")
        if fr.size and (fr.min() < -1 or fr.max() >= n_items):
            raise ValueError("PKE feature ranks out of range")
        if root.size and (root.min() < -1 or root.max() >= n):
            raise ValueError("PKE root table out of range")
        if item.size and (item.min() < 0 or item.max() >= n_items):
            raise ValueError("PKE trie items out of range")
        if n and (numpy.any(numpy.diff(cptr) < 0) or cptr[n] != n
                  or numpy.any(cptr[:n] <= numpy.arange(n))):
            raise ValueError("PKE trie child pointers are inconsistent")
        self.arrays = arrays
        cdef const int32_t[::1] a_fr = fr
        cdef const int32_t[::1] a_root = root
        cdef const int32_t[::1] a_cptr = cptr
        cdef const int32_t[::1] a_item = item
        cdef const double[::1] a_w = weight
        self.feat_rank = &a_fr[0] if a_fr.shape[0] else NULL
        self.root = &a_root[0] if a_root.shape[0] else NULL
        self.cptr = &a_cptr[0]
        self.item = &a_item[0] if n else NULL
        self.weight = &a_w[0] if n else NULL
        self.n_items = n_items

    @property
    def n_kept(self) -> int:
        """|Omega|: subsets with a stored weight (the empty set not counted)."""
        return self.stats["n_kept"]

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays.values())

    def omega(self):
        """{sorted feature-id tuple: w(s)} of the stored subsets with w != 0
        (for inspection and tests; walks the whole trie in Python)."""
        fr = self.arrays["feat_rank"]
        feat_of = numpy.zeros(self.n_items, dtype=numpy.int64)
        feat_of[fr[fr >= 0]] = numpy.flatnonzero(fr >= 0)
        cptr, item, weight = self.arrays["cptr"], self.arrays["item"], self.arrays["weight"]
        out = {}
        n1 = int(cptr[0]) if item.shape[0] else 0  # the size-1 subsets
        stack = [(i, (int(feat_of[item[i]]),)) for i in range(n1)]
        while stack:
            node, feats = stack.pop()
            if weight[node] != 0:
                out[tuple(sorted(feats))] = float(weight[node])
            for c in range(cptr[node], cptr[node + 1]):
                stack.append((c, feats + (int(feat_of[item[c]]),)))
        return out

    cdef int _alloc(self, Scratch* s, Py_ssize_t max_len) except -1:
        KernelClassifier._alloc(self, s, max_len)
        s.bits = <uint64_t*>calloc(self.n_items // 64 + 1, sizeof(uint64_t))
        if s.bits == NULL:
            self._release(s)
            raise MemoryError()
        return 0

    cdef double _walk(self, int32_t node, const int32_t* x, Py_ssize_t start, Py_ssize_t n,
                      int depth, const uint64_t* bits) noexcept nogil:
        """Sum the weights of node + {x[k]} (k >= start) and recurse. Children
        carry items above node's last one, so "child item in X" is the test.
        A short child list is scanned against the input bitmap (no merge
        branches; most lists are short); a long one is intersected with
        x[start:] by galloping on whichever side is behind. Items absent
        under this prefix end their branch: no superset of them is stored."""
        cdef int64_t lo = self.cptr[node], hi = self.cptr[node + 1], k = start, c
        cdef int32_t it
        cdef double total = 0.0
        if hi - lo <= SCAN_RATIO * (n - start):
            if depth == self.degree:  # leaves: branch-free
                for c in range(lo, hi):
                    it = self.item[c]
                    total += self.weight[c] * <double>((bits[it >> 6] >> (it & 63)) & 1)
                return total
            for c in range(lo, hi):
                it = self.item[c]
                if (bits[it >> 6] >> (it & 63)) & 1:
                    total += self.weight[c]
                    if self.cptr[c] < self.cptr[c + 1]:
                        k = _gallop(x, k, n, it)
                        total += self._walk(<int32_t>c, x, k + 1, n, depth + 1, bits)
            return total
        while lo < hi and k < n:
            if self.item[lo] < x[k]:
                lo = _gallop(self.item, lo + 1, hi, x[k])
            elif self.item[lo] > x[k]:
                k = _gallop(x, k + 1, n, self.item[lo])
            else:
                total += self.weight[lo]
                if depth < self.degree and self.cptr[lo] < self.cptr[lo + 1]:
                    total += self._walk(<int32_t>lo, x, k + 1, n, depth + 1, bits)
                lo += 1
                k += 1
        return total

    cdef double _decide(self, const int32_t* x, Py_ssize_t n, Scratch* s) noexcept nogil:
        cdef Py_ssize_t i, m = 0
        cdef int32_t r, node
        cdef double total = self.bias
        for i in range(n):
            if 0 <= x[i] < self.n_features:
                r = self.feat_rank[x[i]]
                if r >= 0:
                    s.buf[m] = r
                    m += 1
        m = _sort_unique(s.buf, m)
        for i in range(m):
            s.bits[s.buf[i] >> 6] |= (<uint64_t>1) << (s.buf[i] & 63)
        for i in range(m):
            node = self.root[s.buf[i]]
            if node >= 0:
                total += self.weight[node]
                if self.degree > 1 and self.cptr[node] < self.cptr[node + 1]:
                    total += self._walk(node, s.buf, i + 1, m, 2, s.bits)
        for i in range(m):
            s.bits[s.buf[i] >> 6] = 0
        return total

    def to_bytes(self) -> bytes:
        meta = {"degree": self.degree, "bias": self.bias, "n_features": self.n_features,
                "sigma": self.sigma, "sigma_pos": self.sigma_pos, "sigma_neg": self.sigma_neg,
                "xi": self.xi, "stats": self.stats}
        return pack(self.FORMAT, 1, self.arrays, meta)

    @classmethod
    def from_bytes(cls, data):
        arrays, meta = unpack(data, cls.FORMAT, 1, _PKE_DTYPES)
        cdef PKE obj = PKE.__new__(PKE)
        try:
            obj._bind({k: numpy.ascontiguousarray(arrays[k]) for k in _PKE_DTYPES}, meta)
        except (KeyError, TypeError) as e:
            raise ValueError(f"the PKE data is incomplete ({e!r})") from None
        return obj


_PKE_DTYPES = {"feat_rank": "int32", "root": "int32", "cptr": "int32", "item": "int32",
               "weight": "float64"}


def _transactions(sv, double sig_pos, double sig_neg, int xi):
    """Support examples as sorted rank lists over the items that can matter.

    An item i can only be in a kept subset if its support is >= xi and
    M(1) * S+(i) >= sigma_pos or M(1) * S-(i) <= sigma_neg (the one-sided
    sums only shrink for supersets); the others are removed up front. Ranks
    order items by ascending support, so rare items open the prefixes and the
    frequent ones sit in short suffixes: less projection work."""
    n_feat = sv.n_features
    rows = numpy.repeat(numpy.arange(sv.n_sv), numpy.diff(sv.indptr))
    cf = sv.coef[rows]
    cnt = numpy.bincount(sv.indices, minlength=n_feat)
    sp = numpy.bincount(sv.indices, weights=numpy.where(cf > 0, cf, 0.0), minlength=n_feat)
    sn = numpy.bincount(sv.indices, weights=numpy.where(cf < 0, cf, 0.0), minlength=n_feat)
    top = float(suffix_max_weights(sv.degree)[1])
    alive = (cnt >= max(xi, 1)) & ((top * sp >= sig_pos) | (top * sn <= sig_neg))
    ids = numpy.flatnonzero(alive)
    ids = ids[numpy.lexsort((ids, cnt[ids]))]
    feat_rank = numpy.full(n_feat, -1, dtype=numpy.int32)
    feat_rank[ids] = numpy.arange(ids.shape[0], dtype=numpy.int32)
    r = feat_rank[sv.indices]
    mask = r >= 0
    r, rows = r[mask], rows[mask]
    order = numpy.lexsort((r, rows))
    titem = numpy.ascontiguousarray(r[order], dtype=numpy.int32)
    tptr = numpy.zeros(sv.n_sv + 1, dtype=numpy.int64)
    tptr[1:] = numpy.cumsum(numpy.bincount(rows, minlength=sv.n_sv))
    return tptr, titem, feat_rank, int(ids.shape[0])


def _layout(parent, item, w, depth, feat_rank, int n_items, int d):
    """Pre-order mining records -> breadth-first trie arrays: level by level,
    nodes sorted by their parent's new id (stable, so children keep their
    ascending item order), which makes every node's children contiguous."""
    n = parent.shape[0]
    if n >= 2147483647:
        raise ValueError("PKE trie too large for int32 node ids (raise sigma or xi)")
    new_id = numpy.empty(n, dtype=numpy.int64)
    parts = []
    base = 0
    for level in range(1, d + 1):
        idx = numpy.flatnonzero(depth == level)
        if level > 1:
            idx = idx[numpy.argsort(new_id[parent[idx]], kind="stable")]
        new_id[idx] = base + numpy.arange(idx.shape[0])
        base += idx.shape[0]
        parts.append(idx)
    order = numpy.concatenate(parts) if parts else numpy.zeros(0, dtype=numpy.int64)
    n1 = parts[0].shape[0] if parts else 0
    par = parent[order]
    new_par = new_id[par[n1:]]
    cptr = numpy.empty(n + 1, dtype=numpy.int64)
    cptr[0] = n1
    cptr[1:] = n1 + numpy.cumsum(numpy.bincount(new_par, minlength=n))[:n]
    items = numpy.ascontiguousarray(item[order], dtype=numpy.int32)
    root = numpy.full(n_items, -1, dtype=numpy.int32)
    root[items[:n1]] = numpy.arange(n1, dtype=numpy.int32)
    return {"feat_rank": feat_rank, "root": root, "cptr": cptr.astype(numpy.int32),
            "item": items, "weight": numpy.ascontiguousarray(w[order], dtype=numpy.float64)}


# ---------------------------------------------------------------- factory

_KINDS = {"pkb": PKB, "pki": PKI, "pke": PKE}


def make_classifier(kind, support_vectors, sigma=0.0, xi=1):
    """Build the classifier form `kind` ("pkb", "pki" or "pke") from trained
    support vectors. sigma and xi set PKE's approximation; the exact forms
    ignore them, so a config can switch kinds without other edits."""
    key = str(kind).lower()
    if key not in _KINDS:
        raise ValueError(f"unknown kernel classifier kind {kind!r}; use one of {sorted(_KINDS)}")
    if key == "pke":
        return PKE(support_vectors, sigma=sigma, xi=xi)
    return _KINDS[key](support_vectors)


def load_classifier(data):
    """Any classifier serialized with to_bytes(), by its format name."""
    from ..serialization.framed import peek_format
    fmt, _ = peek_format(data)
    for cls in _KINDS.values():
        if cls.FORMAT == fmt:
            return cls.from_bytes(data)
    raise ValueError(f"{fmt!r} is not a kernel classifier format")
