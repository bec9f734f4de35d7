# cython: language_level=3
"""Fast polynomial-kernel SVM classifiers over binary feature sets
(Kudo & Matsumoto 2003): PKB (direct sum), PKI (inverted index, exact) and
PKE (expanded subset weights in a trie, approximate for sigma > 0), their
shared driver `KernelClassifier`, and `make_classifier` / `load_classifier`.
Ids outside [0, n_features) are ignored; the loops are nogil and each call
owns its scratch memory, so a classifier can be shared between threads."""
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc

import numpy

from ..serialization.framed import decode_arrays, pack, unpack
from .csr import as_csr, as_ids
from .idsets cimport gallop, ipow, sort_unique
from .mining import mine_subsets, transactions, trie_layout
from .svm import SupportVectors


cdef class KernelClassifier:
    """Shared driver: validation, scratch memory and the batch loop (its
    fields and C methods are declared in classifiers.pxd)."""

    cdef int alloc_scratch(self, Scratch* s, Py_ssize_t max_len) except -1:
        s.buf = <int32_t*>malloc((max_len + 1) * sizeof(int32_t))
        s.count = NULL
        s.touched = NULL
        s.present = NULL
        if s.buf == NULL:
            raise MemoryError()
        return 0

    cdef void release_scratch(self, Scratch* s) noexcept:
        free(s.buf)
        free(s.count)
        free(s.touched)
        free(s.present)

    cdef double decide_ids(self, const int32_t* x, Py_ssize_t n, Scratch* s) noexcept nogil:
        return 0.0

    def decision(self, feature_ids) -> float:
        """Decision value sum_j y_j a_j K(X_j, X) + b of one feature-id set."""
        cdef const int32_t[::1] x = as_ids(feature_ids)
        cdef Scratch s
        cdef double out
        self.alloc_scratch(&s, x.shape[0])
        with nogil:
            out = self.decide_ids(&x[0] if x.shape[0] else NULL, x.shape[0], &s)
        self.release_scratch(&s)
        return out

    def decision_batch(self, X):
        """Decision values (float64) of the rows of a CSR matrix (or (indptr, indices))."""
        indptr, indices = as_csr(X)
        cdef const int64_t[::1] p = indptr
        cdef const int32_t[::1] ix = indices
        cdef Py_ssize_t i, n = p.shape[0] - 1
        out = numpy.zeros(n, dtype=numpy.float64)
        cdef double[::1] o = out
        cdef Scratch s
        max_len = int(numpy.diff(indptr).max()) if n else 0
        self.alloc_scratch(&s, max_len)
        with nogil:
            for i in range(n):
                o[i] = self.decide_ids(&ix[p[i]] if p[i + 1] > p[i] else NULL, p[i + 1] - p[i], &s)
        self.release_scratch(&s)
        return out

    def __reduce__(self):
        return (load_classifier, (self.to_bytes(),))


cdef class _SVBased(KernelClassifier):
    """Holds the support examples as CSR arrays (shared by PKB and PKI)."""
    cdef readonly object support_vectors
    cdef object _keep  # the arrays the pointers below (and PKI's) read
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
        return sum(a.nbytes for a in self._keep)

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

    cdef double decide_ids(self, const int32_t* x, Py_ssize_t n, Scratch* s) noexcept nogil:
        cdef Py_ssize_t i, m, k
        cdef int64_t a, e
        cdef int r
        cdef double total = 0.0
        for i in range(n):
            s.buf[i] = x[i]
        m = sort_unique(s.buf, n)
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
            total += self.coef[i] * ipow(1.0 + r, self.degree)
        return total + self.b


cdef class PKI(_SVBased):
    """Inverted index h(i) = support examples containing feature i. Counts
    r_j only for the support examples that share a feature with X; all others
    contribute coef_j * 1, which is precomputed into `bias`. Exact;
    O(|X| B + #touched) per decision (B = mean |h(i)|)."""
    FORMAT = "spacy_adf.kernels.pki"
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
        self._keep += (inv_ptr, inv_sv)
        cdef const int64_t[::1] ip = inv_ptr
        cdef const int32_t[::1] iv = inv_sv
        self.inv_ptr = &ip[0]
        self.inv_sv = &iv[0] if iv.shape[0] else NULL

    cdef int alloc_scratch(self, Scratch* s, Py_ssize_t max_len) except -1:
        KernelClassifier.alloc_scratch(self, s, max_len)
        s.count = <int32_t*>calloc(self.n_sv + 1, sizeof(int32_t))
        s.touched = <int32_t*>malloc((self.n_sv + 1) * sizeof(int32_t))
        if s.count == NULL or s.touched == NULL:
            self.release_scratch(s)
            raise MemoryError()
        return 0

    cdef double decide_ids(self, const int32_t* x, Py_ssize_t n, Scratch* s) noexcept nogil:
        cdef Py_ssize_t i, m, nt = 0
        cdef int64_t a
        cdef int32_t f, j
        cdef double total = self.bias
        m = 0
        for i in range(n):  # unseen ids cannot hit a support example
            if 0 <= x[i] < self.n_features:
                s.buf[m] = x[i]
                m += 1
        m = sort_unique(s.buf, m)  # a repeated id must not count twice
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
            total += self.coef[j] * (ipow(1.0 + s.count[j], self.degree) - 1.0)
            s.count[j] = 0
        return total


cdef enum:
    # scan a child list against the input bitmap when it has at most this
    # many entries per remaining input item, else gallop-intersect it
    SCAN_RATIO = 16


cdef inline double _leaf_sum(const int32_t* item, const double* weight, int64_t lo, int64_t hi,
                             const uint8_t* present) noexcept nogil:
    """Sum of weight[c] over the leaves lo..hi-1 whose item is in the input;
    branch-free (most leaves under an input's pairs are hits). A byte per
    rank, not a bit: the test is one load, and this loop is most of a
    decision's instructions."""
    cdef double total = 0.0
    cdef int64_t c
    for c in range(lo, hi):
        total += weight[c] * <double>present[item[c]]
    return total


cdef class PKE(KernelClassifier):
    """Expanded form: the pruned subset weights in a trie over feature ranks
    (docs/architecture.md, "PKE's trie")."""
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
        sv = support_vectors  # mine_subsets checks xi
        d = sv.degree
        n_sv = max(sv.n_sv, 1)
        sig_pos = sigma * sv.n_pos / n_sv
        sig_neg = -sigma * sv.n_neg / n_sv
        tptr, titem, feat_rank, n_items = transactions(sv, sig_pos, sig_neg, xi)
        parent, item, w, depth, keep, visited = mine_subsets(
            tptr, titem, sv.coef, n_items, d, sig_pos, sig_neg, xi)
        arrays = trie_layout(parent, item, w, depth, feat_rank, n_items, d)
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
        for a, lo, hi, what in ((fr, -1, n_items, "feature ranks"), (root, -1, n, "root table"),
                                (item, 0, n_items, "trie items")):
            if a.size and (a.min() < lo or a.max() >= hi):
                raise ValueError(f"PKE {what} out of range")
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

    cdef int alloc_scratch(self, Scratch* s, Py_ssize_t max_len) except -1:
        KernelClassifier.alloc_scratch(self, s, max_len)
        s.present = <uint8_t*>calloc(self.n_items + 1, sizeof(uint8_t))
        if s.present == NULL:
            self.release_scratch(s)
            raise MemoryError()
        return 0

    cdef double _walk(self, int32_t node, const int32_t* x, Py_ssize_t start, Py_ssize_t n,
                      int depth, const uint8_t* present) noexcept nogil:
        """Sum the weights of node + {x[k]} (k >= start) and recurse. Children
        carry items above node's last one, so "child item in X" is the test.
        A short child list is scanned against the input byte map (no merge
        branches; most lists are short); a long one is intersected with
        x[start:] by galloping on whichever side is behind. Items absent
        under this prefix end their branch: no superset of them is stored."""
        cdef int64_t lo = self.cptr[node], hi = self.cptr[node + 1], k = start, c
        cdef int32_t it
        cdef double total = 0.0
        cdef int64_t a, e
        if hi - lo <= SCAN_RATIO * (n - start):
            if depth == self.degree:
                return _leaf_sum(self.item, self.weight, lo, hi, present)
            for c in range(lo, hi):
                it = self.item[c]
                if present[it]:
                    total += self.weight[c]
                    a = self.cptr[c]
                    e = self.cptr[c + 1]
                    if a == e:
                        continue
                    if depth + 1 == self.degree and e - a <= SCAN_RATIO:
                        # short leaf list: scanned whatever the remaining input,
                        # so c's place in x (a gallop) and a call are not needed
                        total += _leaf_sum(self.item, self.weight, a, e, present)
                    else:
                        k = gallop(x, k, n, it)
                        total += self._walk(<int32_t>c, x, k + 1, n, depth + 1, present)
            return total
        while lo < hi and k < n:
            if self.item[lo] < x[k]:
                lo = gallop(self.item, lo + 1, hi, x[k])
            elif self.item[lo] > x[k]:
                k = gallop(x, k + 1, n, self.item[lo])
            else:
                total += self.weight[lo]
                if depth < self.degree and self.cptr[lo] < self.cptr[lo + 1]:
                    total += self._walk(<int32_t>lo, x, k + 1, n, depth + 1, present)
                lo += 1
                k += 1
        return total

    cdef double decide_ids(self, const int32_t* x, Py_ssize_t n, Scratch* s) noexcept nogil:
        cdef Py_ssize_t i, m = 0
        cdef int32_t r, node
        cdef double total = self.bias
        for i in range(n):
            if 0 <= x[i] < self.n_features:
                r = self.feat_rank[x[i]]
                if r >= 0:
                    s.buf[m] = r
                    m += 1
        m = sort_unique(s.buf, m)
        for i in range(m):
            s.present[s.buf[i]] = 1
        for i in range(m):
            node = self.root[s.buf[i]]
            if node >= 0:
                total += self.weight[node]
                if self.degree > 1 and self.cptr[node] < self.cptr[node + 1]:
                    total += self._walk(node, s.buf, i + 1, m, 2, s.present)
        for i in range(m):
            s.present[s.buf[i]] = 0
        return total

    def to_bytes(self) -> bytes:
        meta = {"degree": self.degree, "bias": self.bias, "n_features": self.n_features,
                "sigma": self.sigma, "sigma_pos": self.sigma_pos, "sigma_neg": self.sigma_neg,
                "xi": self.xi, "stats": self.stats}
        return pack(self.FORMAT, 1, self.arrays, meta)

    @classmethod
    def from_bytes(cls, data):
        # read only: the trie is never written after it is built
        arrays, meta = unpack(data, cls.FORMAT, 1, _PKE_DTYPES, copy=False)
        cdef PKE obj = PKE.__new__(PKE)
        try:
            obj._bind({k: numpy.ascontiguousarray(arrays[k]) for k in _PKE_DTYPES}, meta)
        except (KeyError, TypeError) as e:
            raise ValueError(f"the PKE data is incomplete ({e!r})") from None
        return obj


# the arrays of the "spacy_adf.kernels.pke" format, version 1 (stored data: do not change)
_PKE_DTYPES = {"feat_rank": "int32", "root": "int32", "cptr": "int32", "item": "int32",
               "weight": "float64"}


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
    """Any classifier serialized with to_bytes(), by its format name (read
    without copying the arrays: the classifier's own reader reads them)."""
    fmt = decode_arrays(data, "kernel classifier")["format"]
    for cls in _KINDS.values():
        if cls.FORMAT == fmt:
            return cls.from_bytes(data)
    raise ValueError(f"{fmt!r} is not a kernel classifier format")
