# cython: language_level=3
"""The explicit feature map phi of the polynomial kernel over binary
features, for the primal trainer (`primal.py`): `SubsetIndex` interns the
subsets of the examples and writes phi as CSR (docs/architecture.md, "The
subset index")."""
from libc.math cimport sqrt
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from .growth cimport fill_column, grow_block
from .subset_keys cimport mix64, subset_key

import numpy
import scipy.sparse

from .coefficients import subset_weights
from .csr import as_csr
from .idsets cimport sort_unique

cdef enum:
    MAX_DEGREE = 15


# Near-copy of subset_learner.pyx's table with another slot layout: keys apart
# from ids here, since the learner's 16-byte key-and-id slots made this
# interning 20-55% slower and the table larger (benchmarks.subset_index_memory,
# docs/components.md "Which trainer"); the key and hash are shared (subset_keys.pxd).
cdef struct Table:
    uint64_t* keys      # 0 = empty slot (real keys are >= 2^32)
    int32_t* vals       # subset id of the key
    uint64_t mask       # slots - 1 (a power of two minus one)
    # per subset id (id 0 = the empty set)
    int32_t* parent
    int32_t* item
    int8_t* size
    int64_t* support    # weighted number of added examples that contain the subset
    int64_t n
    int64_t cap


cdef int _grow_ids(Table* t) noexcept nogil:
    cdef int64_t cap = t.cap * 2 + 4096
    if (grow_block(<void**>&t.parent, cap * sizeof(int32_t)) < 0
            or grow_block(<void**>&t.item, cap * sizeof(int32_t)) < 0
            or grow_block(<void**>&t.size, cap * sizeof(int8_t)) < 0
            or grow_block(<void**>&t.support, cap * sizeof(int64_t)) < 0):
        return -1
    t.cap = cap
    return 0


cdef int _fill_slots(Table* t, uint64_t n_slots) noexcept nogil:
    """Fresh slots for every id but 0 (the empty set has no slot), from its
    key (parent, item): the id arrays hold all a slot says. -1 when the
    arrays cannot be had (the table then has none)."""
    cdef int64_t sid
    cdef uint64_t key, h
    t.keys = <uint64_t*>calloc(n_slots, sizeof(uint64_t))
    t.vals = <int32_t*>malloc(n_slots * sizeof(int32_t))
    if t.keys == NULL or t.vals == NULL:
        free(t.keys)
        free(t.vals)
        t.keys = NULL
        t.vals = NULL
        return -1
    t.mask = n_slots - 1
    for sid in range(1, t.n):
        key = subset_key(t.parent[sid], t.item[sid])
        h = mix64(key) & t.mask
        while t.keys[h] != 0:
            h = (h + 1) & t.mask
        t.keys[h] = key
        t.vals[h] = <int32_t>sid
    return 0


cdef int _rehash(Table* t) noexcept nogil:
    """Double the slots. The old slots go before the new ones come (they
    are rebuilt from the id arrays), so a doubling never holds both. If the
    new size cannot be had, the old size is rebuilt and -1 returned; if not
    even that, the table is left without slots (`expand` then refuses) and
    -1 returned."""
    cdef uint64_t n_slots = (t.mask + 1) * 2
    free(t.keys)
    free(t.vals)
    if _fill_slots(t, n_slots) == 0:
        return 0
    _fill_slots(t, n_slots // 2)
    return -1


cdef inline int64_t _lookup(const Table* t, uint64_t key) noexcept nogil:
    cdef uint64_t h = mix64(key) & t.mask
    while t.keys[h] != 0:
        if t.keys[h] == key:
            return t.vals[h]
        h = (h + 1) & t.mask
    return -1


cdef int64_t _intern(Table* t, int32_t parent, int32_t item, int size) noexcept nogil:
    """The id of (parent, item), added if new; -1 when out of memory or ids."""
    cdef uint64_t key = subset_key(parent, item)
    cdef uint64_t h = mix64(key) & t.mask
    cdef int64_t sid
    while t.keys[h] != 0:
        if t.keys[h] == key:
            return t.vals[h]
        h = (h + 1) & t.mask
    if t.n >= 2147483647:
        return -1
    if t.n == t.cap and _grow_ids(t) < 0:
        return -1
    sid = t.n
    t.n += 1
    t.parent[sid] = parent
    t.item[sid] = item
    t.size[sid] = <int8_t>size
    t.support[sid] = 0
    t.keys[h] = key
    t.vals[h] = <int32_t>sid
    if <uint64_t>t.n * 2 > t.mask + 1:  # at most half full
        if _rehash(t) < 0:
            return -1
    return sid


cdef struct Out:
    int32_t* ix
    double* val
    int64_t pos


cdef int _expand(Table* t, const int32_t* a, int m, int start, int depth, int32_t parent, int d,
                 bint add, int64_t weight, const double* scale, Out* out) noexcept nogil:
    """Write the subsets parent + {a[k]} (k >= start), then their supersets
    in a[k + 1:], depth first. `depth` is the size of `parent`. Without `add`
    an unseen subset is skipped with all its supersets (they were never
    interned: every subset of an added example is, with its prefixes)."""
    cdef int k
    cdef int64_t sid
    for k in range(start, m):
        if add:
            sid = _intern(t, parent, a[k], depth + 1)
            if sid < 0:
                return -1
            t.support[sid] += weight
        else:
            sid = _lookup(t, subset_key(parent, a[k]))
            if sid < 0:
                continue
        out.ix[out.pos] = <int32_t>sid
        out.val[out.pos] = scale[depth + 1]
        out.pos += 1
        if depth + 1 < d and k + 1 < m:
            if _expand(t, a, m, k + 1, depth + 1, <int32_t>sid, d, add, weight, scale, out) < 0:
                return -1
    return 0


cdef int64_t _n_subsets(int64_t m, int d) noexcept nogil:
    """sum_{r=1..min(d, m)} C(m, r)."""
    cdef int64_t total = 0, c = 1
    cdef int r
    for r in range(1, d + 1):
        if r > m:
            break
        c = c * (m - r + 1) // r
        total += c
    return total


def expansion_nnz(X, int degree):
    """Non-zeros of phi(X) (for sizing before expanding): per row,
    sum_{r=1..d} C(|X_i|, r), plus one for the empty set."""
    indptr, indices = as_csr(X)
    lengths = numpy.diff(indptr)
    total = 0
    for m, k in zip(*numpy.unique(lengths, return_counts=True)):
        total += int(k) * (_n_subsets(int(m), degree) + 1)
    return total


cdef class SubsetIndex:
    """Interned subsets (|s| <= degree) of feature-id sets, and phi as CSR."""
    cdef Table t
    cdef readonly int degree
    cdef double scale[MAX_DEGREE + 1]

    def __cinit__(self, int degree):
        if degree < 1 or degree > MAX_DEGREE:
            raise ValueError(f"the degree must be 1 to {MAX_DEGREE}, not {degree}")
        # the table's other fields start zeroed (NULL columns, n = cap = 0), as the object does
        if _fill_slots(&self.t, 1024) < 0 or _grow_ids(&self.t) < 0:
            raise MemoryError()
        # id 0: the empty set (its parent is -1, it has no item)
        self.t.parent[0] = -1
        self.t.item[0] = -1
        self.t.size[0] = 0
        self.t.support[0] = 0
        self.t.n = 1
        self.degree = degree
        c = subset_weights(degree)
        for r in range(degree + 1):
            self.scale[r] = sqrt(float(c[r]))

    def __dealloc__(self):
        free(self.t.keys)
        free(self.t.vals)
        free(self.t.parent)
        free(self.t.item)
        free(self.t.size)
        free(self.t.support)

    @property
    def n_subsets(self) -> int:
        """Distinct subsets interned so far, the empty set included (id 0)."""
        return self.t.n

    @property
    def nbytes(self) -> int:
        """Bytes of the table and the per-id arrays."""
        return int((self.t.mask + 1) * 12 + self.t.cap * 17)

    cdef int _check_slots(self) except -1:
        if self.t.keys == NULL:
            raise MemoryError("the subset index lost its table to an out-of-memory error: build a "
                              "new index with more memory free (or a smaller degree / fewer features)")
        return 0

    def expand(self, X, bint add=True, counts=None):
        """phi(X) (float64 CSR, ``n_subsets`` columns, in enumeration order within
        a row) of the rows of X, whose subsets `add` interns with their support
        (rows weighted by ``counts``); without it unseen subsets are dropped.
        Negative ids are ignored, repeated ids count once."""
        self._check_slots()
        indptr, indices = as_csr(X)
        cdef const int64_t[::1] p = indptr
        cdef const int32_t[::1] ix = indices
        cdef Py_ssize_t n = p.shape[0] - 1, i, j
        cdef const int64_t[::1] w
        if counts is None:
            w = numpy.ones(n, dtype=numpy.int64)
        else:
            w = numpy.ascontiguousarray(counts, dtype=numpy.int64)
            if w.shape[0] != n:
                raise ValueError("counts must have one entry per row")
            if n and numpy.min(counts) < 0:
                raise ValueError("counts must be >= 0")
        bound = expansion_nnz((indptr, indices), self.degree)
        if bound >= 2147483647:
            raise ValueError(f"phi would have {bound} non-zeros; scikit-learn's liblinear takes "
                             "fewer than 2^31: train on fewer examples or a lower degree")
        out_ix = numpy.empty(bound, dtype=numpy.int32)
        out_val = numpy.empty(bound, dtype=numpy.float64)
        out_ptr = numpy.zeros(n + 1, dtype=numpy.int64)
        cdef int32_t[::1] oix = out_ix
        cdef double[::1] oval = out_val
        cdef int64_t[::1] optr = out_ptr
        max_len = int(numpy.diff(indptr).max()) if n else 0
        cdef int32_t[::1] buf_view = numpy.empty(max_len + 1, dtype=numpy.int32)
        cdef int32_t* buf = &buf_view[0]
        cdef Out out
        out.ix = &oix[0] if bound else NULL
        out.val = &oval[0] if bound else NULL
        out.pos = 0
        cdef int m, rc = 0, d = self.degree
        cdef Table* t = &self.t
        with nogil:
            for i in range(n):
                m = 0
                for j in range(p[i], p[i + 1]):
                    if ix[j] >= 0:
                        buf[m] = ix[j]
                        m += 1
                m = <int>sort_unique(buf, m)
                out.ix[out.pos] = 0  # the empty set
                out.val[out.pos] = self.scale[0]
                out.pos += 1
                if add:
                    t.support[0] += w[i]
                rc = _expand(t, buf, m, 0, 0, 0, d, add, w[i], self.scale, &out)
                if rc < 0:
                    break
                optr[i + 1] = out.pos
        if rc < 0:
            raise MemoryError("out of memory (or of int32 subset ids) while interning subsets")
        nnz = out.pos
        if nnz < bound:  # unseen subsets (add=False) or repeated ids: trim
            out_ix = out_ix[:nnz].copy()
            out_val = out_val[:nnz].copy()
        phi = scipy.sparse.csr_matrix((out_val, out_ix, out_ptr), shape=(n, int(self.t.n)))
        return phi

    def arrays(self):
        """Copies of the per-id arrays: parent (int32, -1 for the empty set),
        item (int32: the subset's largest feature id, -1 for the empty set),
        size (int8) and support (int64)."""
        cdef Py_ssize_t n = self.t.n
        return {"parent": fill_column(numpy.empty(n, dtype=numpy.int32), self.t.parent),
                "item": fill_column(numpy.empty(n, dtype=numpy.int32), self.t.item),
                "size": fill_column(numpy.empty(n, dtype=numpy.int8), self.t.size),
                "support": fill_column(numpy.empty(n, dtype=numpy.int64), self.t.support)}
