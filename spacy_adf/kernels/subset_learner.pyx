# cython: language_level=3
"""The on-line learner of the polynomial-kernel models (`online.py` drives
it): averaged PA-I on the explicit subset features, interned exactly so that
the weights become PKE's trie (docs/architecture.md, "The on-line learner")."""
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from .growth cimport fill_column, grow_block
from .idsets cimport ipow
from .subset_keys cimport mix64, subset_key

import numpy

from .coefficients import subset_weights

cdef enum:
    MAX_DEGREE = 8


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define SL_PREFETCH(p) __builtin_prefetch((p))
    #define SL_COUNT(p, k) __atomic_fetch_add((p), (k), __ATOMIC_RELAXED)
    #define SL_ATOMIC_COUNTS 1
    #define SL_HOME(h, n) ((uint64_t)(((unsigned __int128)(h) * (n)) >> 64))
    #else  /* no atomics: count() must then run on one thread (online.py) */
    #define SL_PREFETCH(p) ((void)0)
    #define SL_COUNT(p, k) (*(p) += (k))
    #define SL_ATOMIC_COUNTS 0
    #define SL_HOME(h, n) ((h) % (n))
    #endif
    """
    void SL_PREFETCH(const void* p) noexcept nogil
    void SL_COUNT(int32_t* p, int32_t k) noexcept nogil
    const bint SL_ATOMIC_COUNTS
    uint64_t SL_HOME(uint64_t h, uint64_t n) noexcept nogil  # h scaled to [0, n): any table size


# The table is a near-copy of expansion.pyx's, whose split key / id layout
# interns 20-55% faster there (docs/components.md "Which trainer"); here the
# scoring probes of a table far larger than the caches want one line a probe.
cdef struct Slot:
    # key and id side by side: a probe costs one cache line, not two
    uint64_t key        # 0 = empty (real keys are >= 2^32)
    int32_t val
    int32_t pad


cdef struct Table:
    Slot* slots
    uint64_t n_slots    # grown by half (not doubled): a table far larger than the caches is mostly slots
    int32_t* parent
    int32_t* item
    int8_t* size
    double* w
    double* u
    int32_t* support    # allocated by the first count(); u is freed by finish()
    int64_t n
    int64_t cap


cdef int _grow_ids(Table* t) noexcept nogil:
    # one grow_block per column of this table (the miner grows its own records the same way);
    # by a quarter: the columns of the last growth stand mostly unused
    cdef int64_t cap = t.cap + t.cap // 4 + 4096
    if (grow_block(<void**>&t.parent, cap * sizeof(int32_t)) < 0
            or grow_block(<void**>&t.item, cap * sizeof(int32_t)) < 0
            or grow_block(<void**>&t.size, cap * sizeof(int8_t)) < 0
            or grow_block(<void**>&t.w, cap * sizeof(double)) < 0
            or (t.u != NULL and grow_block(<void**>&t.u, cap * sizeof(double)) < 0)
            or (t.support != NULL and grow_block(<void**>&t.support, cap * sizeof(int32_t)) < 0)):
        return -1
    t.cap = cap
    return 0


cdef void _fill_slots(Table* t) noexcept nogil:
    """Put every id but 0 (the empty set has no slot) into the empty slots,
    by its key (parent, item): the id arrays hold all a slot says."""
    cdef int64_t sid
    cdef uint64_t key, h
    for sid in range(1, t.n):
        key = subset_key(t.parent[sid], t.item[sid])
        h = _home(t, key)
        while t.slots[h].key != 0:
            h = _next(t, h)
        t.slots[h].key = key
        t.slots[h].val = <int32_t>sid


cdef int _rehash(Table* t) noexcept nogil:
    """Half as many slots again (the learner refuses every call once the
    table is left without slots)."""
    cdef uint64_t n_slots = t.n_slots + t.n_slots // 2
    cdef int rc = 0
    free(t.slots)
    t.slots = <Slot*>calloc(n_slots, sizeof(Slot))
    if t.slots == NULL:  # back to the old size, just freed
        rc = -1
        n_slots = t.n_slots
        t.slots = <Slot*>calloc(n_slots, sizeof(Slot))
        if t.slots == NULL:
            return -1
    t.n_slots = n_slots
    _fill_slots(t)
    return rc


cdef inline uint64_t _home(const Table* t, uint64_t key) noexcept nogil:
    return SL_HOME(mix64(key), t.n_slots)


cdef inline uint64_t _next(const Table* t, uint64_t h) noexcept nogil:
    h += 1
    return 0 if h == t.n_slots else h


cdef inline int64_t _probe(const Table* t, uint64_t key, uint64_t h) noexcept nogil:
    """The id of `key` from its home slot h, -1 if absent."""
    while t.slots[h].key != 0:
        if t.slots[h].key == key:
            return t.slots[h].val
        h = _next(t, h)
    return -1


cdef inline int64_t _find(const Table* t, int32_t parent, int32_t item) noexcept nogil:
    cdef uint64_t key = subset_key(parent, item)
    return _probe(t, key, _home(t, key))


cdef int64_t _intern(Table* t, int32_t parent, int32_t item, int size) noexcept nogil:
    """The id of (parent, item), added with zero weight if new; -1 when out
    of memory or of int32 ids."""
    cdef uint64_t key = subset_key(parent, item)
    cdef uint64_t h = _home(t, key)
    cdef int64_t sid
    while t.slots[h].key != 0:
        if t.slots[h].key == key:
            return t.slots[h].val
        h = _next(t, h)
    if t.n >= 2147483647:
        return -1
    if t.n == t.cap and _grow_ids(t) < 0:
        return -1
    sid = t.n
    t.n += 1
    t.parent[sid] = parent
    t.item[sid] = item
    t.size[sid] = <int8_t>size
    t.w[sid] = 0.0
    if t.u != NULL:
        t.u[sid] = 0.0
    if t.support != NULL:
        t.support[sid] = 0
    t.slots[h].key = key
    t.slots[h].val = <int32_t>sid
    if <uint64_t>t.n * 10 > t.n_slots * 7:  # at most 70% full
        if _rehash(t) < 0:
            return -1
    return sid


cdef double _score(const Table* t, const int32_t* a, int m, int start, int depth, int32_t parent,
                   int d) noexcept nogil:
    """Sum of w over the interned subsets parent + {a[k]} (k >= start) and
    their supersets in a[k + 1:]; an absent subset ends its branch. The next
    sibling's slot is prefetched while this one is probed (the table is far
    larger than the caches: a probe is a memory access)."""
    cdef int k
    cdef int64_t sid
    cdef uint64_t key, h, next_key = 0, next_h = 0
    cdef double total = 0.0
    if start < m:
        next_key = subset_key(parent, a[start])
        next_h = _home(t, next_key)
    for k in range(start, m):
        key = next_key
        h = next_h
        if k + 1 < m:
            next_key = subset_key(parent, a[k + 1])
            next_h = _home(t, next_key)
            SL_PREFETCH(&t.slots[next_h])
        sid = _probe(t, key, h)
        if sid < 0:
            continue
        total += t.w[sid]
        if depth + 1 < d and k + 1 < m:
            total += _score(t, a, m, k + 1, depth + 1, <int32_t>sid, d)
    return total


cdef int _add(Table* t, const int32_t* a, int m, int start, int depth, int32_t parent, int d,
              const double* delta, double step) noexcept nogil:
    """w(s) += delta[|s|] (and u(s) += step * delta[|s|]) for every subset
    parent + {a[k]} (k >= start) and its supersets, interning them."""
    cdef int k
    cdef int64_t sid
    for k in range(start, m):
        sid = _intern(t, parent, a[k], depth + 1)
        if sid < 0:
            return -1
        t.w[sid] += delta[depth + 1]
        if t.u != NULL:
            t.u[sid] += step * delta[depth + 1]
        if depth + 1 < d and k + 1 < m:
            if _add(t, a, m, k + 1, depth + 1, <int32_t>sid, d, delta, step) < 0:
                return -1
    return 0


cdef double _score_count(Table* t, const int32_t* a, int m, int start, int depth, int32_t parent,
                         int d) noexcept nogil:
    """`_score`, and one more example for the support of each subset found (a
    copy: a count flag in `_score` cost `run` 2% more instructions, callgrind)."""
    cdef int k
    cdef int64_t sid
    cdef double total = 0.0
    for k in range(start, m):
        if k + 1 < m:
            SL_PREFETCH(&t.slots[_home(t, subset_key(parent, a[k + 1]))])
        sid = _find(t, parent, a[k])
        if sid < 0:
            continue
        total += t.w[sid]
        SL_COUNT(&t.support[sid], 1)  # atomic: count() may run on several threads
        if depth + 1 < d and k + 1 < m:
            total += _score_count(t, a, m, k + 1, depth + 1, <int32_t>sid, d)
    return total


cdef class SubsetLearner:
    """Averaged PA-I over the subset features of degree <= ``degree`` (see
    the module doc): `run` steps, `finish` averages, `count` counts supports.
    Rows are given as CSR arrays (indptr int64, indices int32) with sorted,
    unique, non-negative ids per row (`online.py` canonicalises them);
    labels are int8 +1 / -1."""
    cdef Table t
    cdef readonly int degree
    cdef readonly double C
    cdef readonly bint finished
    cdef readonly bint taken   # take_arrays() emptied it
    cdef double coef[MAX_DEGREE + 1]
    cdef double step          # Daume's counter: 1 + examples seen

    def __cinit__(self, int degree, double C=1.0):
        if degree < 1 or degree > MAX_DEGREE:
            raise ValueError(f"the degree must be 1 to {MAX_DEGREE}, not {degree}")
        if not C > 0:
            raise ValueError(f"C must be > 0, not {C!r}")
        # the table's other fields start zeroed (NULL columns, n = cap = 0), as the object does
        self.t.slots = <Slot*>calloc(1024, sizeof(Slot))
        self.t.n_slots = 1024
        self.t.u = <double*>malloc(sizeof(double))  # non-NULL: _grow_ids grows the running sums
        if self.t.slots == NULL or self.t.u == NULL or _grow_ids(&self.t) < 0:
            raise MemoryError()
        # id 0: the empty set, whose weight is the bias
        self.t.parent[0] = -1
        self.t.item[0] = -1
        self.t.size[0] = 0
        self.t.w[0] = 0.0
        self.t.u[0] = 0.0
        self.t.n = 1
        self.degree = degree
        self.C = C
        self.step = 1.0
        c = subset_weights(degree)
        for r in range(degree + 1):
            self.coef[r] = float(c[r])

    cdef int _check_not_taken(self) except -1:
        if self.taken:
            raise ValueError("the learner's arrays were taken (take_arrays): it holds no subsets any more")
        if self.t.slots == NULL:
            raise MemoryError("the learner lost its subset table to an out-of-memory error: train anew "
                              "with more memory free (or a smaller degree / fewer features)")
        return 0

    def __dealloc__(self):
        free(self.t.slots)
        free(self.t.parent)
        free(self.t.item)
        free(self.t.size)
        free(self.t.w)
        free(self.t.u)
        free(self.t.support)

    @property
    def n_subsets(self) -> int:
        """Interned subsets, the empty set (the bias) included."""
        return int(self.t.n)

    @property
    def nbytes(self) -> int:
        """Bytes held: the slot table and the per-id arrays."""
        per_id = 17 + (8 if self.t.u != NULL else 0) + (4 if self.t.support != NULL else 0)
        return int(self.t.n_slots * sizeof(Slot) + self.t.cap * per_id)

    @property
    def bias(self) -> float:
        self._check_not_taken()
        return self.t.w[0]

    def run(self, const int64_t[::1] indptr, const int32_t[::1] indices, const int8_t[::1] y,
            const int64_t[::1] order, Py_ssize_t start, Py_ssize_t stop):
        """One PA-I step per example order[start:stop]; (steps, mistakes, hinge loss)."""
        self._check_not_taken()
        cdef Py_ssize_t n = indptr.shape[0] - 1, r
        cdef int64_t i, steps = 0, mistakes = 0
        cdef int m, rc = 0, d = self.degree, k
        cdef double f, margin, tau, loss_sum = 0.0, yi
        cdef double delta[MAX_DEGREE + 1]
        cdef const int32_t* a
        if self.finished:
            raise ValueError("the learner was finished (averaged): no more steps")
        if y.shape[0] != n or not 0 <= start <= stop <= order.shape[0]:
            raise ValueError("run: rows, labels and order do not match")
        if n and (order[start:stop].size and (numpy.min(order[start:stop]) < 0
                                              or numpy.max(order[start:stop]) >= n)):
            raise ValueError("run: order holds a row that does not exist")
        with nogil:
            for r in range(start, stop):
                i = order[r]
                m = <int>(indptr[i + 1] - indptr[i])
                a = &indices[indptr[i]] if m else NULL
                yi = <double>y[i]
                f = self.t.w[0] + _score(&self.t, a, m, 0, 0, 0, d)
                margin = yi * f
                if margin <= 0.0:
                    mistakes += 1
                if margin < 1.0:
                    loss_sum += 1.0 - margin
                    # ||phi(x)||^2 = (1 + |x|)^d
                    tau = (1.0 - margin) / ipow(1.0 + m, d)
                    if tau > self.C:
                        tau = self.C
                    for k in range(d + 1):
                        delta[k] = tau * yi * self.coef[k]
                    self.t.w[0] += delta[0]
                    self.t.u[0] += self.step * delta[0]
                    if _add(&self.t, a, m, 0, 0, 0, d, delta, self.step) < 0:
                        rc = -1
                        break
                    steps += 1
                self.step += 1.0
        if rc < 0:
            raise MemoryError("out of memory (or of int32 subset ids) while adding subsets")
        return int(steps), int(mistakes), float(loss_sum)

    def finish(self, bint average=True):
        """Leave the averaged weights in w (w - u / t), or with ``average``
        False the last ones; no more steps after it (idempotent)."""
        self._check_not_taken()
        cdef int64_t s
        cdef double inv
        if self.finished:
            return
        inv = 1.0 / self.step if average else 0.0
        with nogil:
            for s in range(self.t.n):
                self.t.w[s] -= self.t.u[s] * inv
        free(self.t.u)  # no more steps: the running sums are done with
        self.t.u = NULL
        if self.t.n < self.t.cap:  # training is over: the columns shrink to the subsets (a failed shrink keeps one)
            grow_block(<void**>&self.t.parent, self.t.n * sizeof(int32_t))
            grow_block(<void**>&self.t.item, self.t.n * sizeof(int32_t))
            grow_block(<void**>&self.t.size, self.t.n * sizeof(int8_t))
            grow_block(<void**>&self.t.w, self.t.n * sizeof(double))
            self.t.cap = self.t.n
        self.finished = True

    def decision(self, feature_ids) -> float:
        """bias + the summed weights of the subsets of one id set (any order)."""
        self._check_not_taken()
        ids = numpy.unique(numpy.asarray(list(feature_ids), dtype=numpy.int64))
        ids = ids[(ids >= 0) & (ids <= 2147483647)].astype(numpy.int32)
        cdef const int32_t[::1] a = ids
        cdef int m = a.shape[0]
        return self.t.w[0] + _score(&self.t, &a[0] if m else NULL, m, 0, 0, 0, self.degree)

    def add(self, feature_ids, double amount):
        """w(s) += amount * c_d(|s|) for every subset s (the empty set
        included) of one id set: the primal image of a kernel expansion term
        amount * K(X, .). For tests and the brute-force check."""
        self._check_not_taken()
        ids = numpy.unique(numpy.asarray(list(feature_ids), dtype=numpy.int64))
        if ids.size and (ids.min() < 0 or ids.max() > 2147483647):
            raise ValueError("feature ids must be int32 >= 0")
        ids = ids.astype(numpy.int32)
        cdef const int32_t[::1] a = ids
        cdef int m = a.shape[0], k
        cdef double delta[MAX_DEGREE + 1]
        for k in range(self.degree + 1):
            delta[k] = amount * self.coef[k]
        self.t.w[0] += delta[0]
        if _add(&self.t, &a[0] if m else NULL, m, 0, 0, 0, self.degree, delta, 0.0) < 0:
            raise MemoryError()

    def count(self, const int64_t[::1] indptr, const int32_t[::1] indices,
              Py_ssize_t start=0, Py_ssize_t stop=-1):
        """Add the rows start..stop (default: all) to every interned subset's
        support; their decision values (float64). Threads may count disjoint
        ranges at once where `atomic_counts`."""
        self._check_not_taken()
        cdef Py_ssize_t n = indptr.shape[0] - 1, i
        if stop < 0:
            stop = n
        if not 0 <= start <= stop <= n:
            raise ValueError(f"rows {start}..{stop} are not within 0..{n}")
        cdef int m, d = self.degree
        if self.t.support == NULL:  # the first count (with the GIL: threads wait for it)
            self.t.support = <int32_t*>calloc(max(self.t.cap, 1), sizeof(int32_t))
            if self.t.support == NULL:
                raise MemoryError("no memory for the subsets' support counts")
        out = numpy.empty(stop - start, dtype=numpy.float64)
        cdef double[::1] o = out
        with nogil:
            for i in range(start, stop):
                m = <int>(indptr[i + 1] - indptr[i])
                o[i - start] = self.t.w[0] + _score_count(&self.t, &indices[indptr[i]] if m else NULL, m,
                                                          0, 0, 0, d)
            SL_COUNT(&self.t.support[0], <int32_t>(stop - start))
        return out

    @property
    def atomic_counts(self):
        """True when count() may run on several threads at once."""
        return bool(SL_ATOMIC_COUNTS)

    def arrays(self):
        """Copies of the per-id arrays: parent (int32, -1 for the empty
        set), item (int32), size (int8), weight (float64) and support (int64)."""
        self._check_not_taken()
        return self._columns(False)

    def take_arrays(self):
        """`arrays()`, freeing each column as it is copied (the slots and
        running sums first), so the copies never sit beside the whole table."""
        self._check_not_taken()
        free(self.t.slots)
        self.t.slots = NULL
        free(self.t.u)
        self.t.u = NULL
        out = self._columns(True)
        self.t.n = self.t.cap = 0
        self.t.n_slots = 0
        self.taken = True
        return out

    cdef dict _columns(self, bint take):
        cdef Py_ssize_t n = self.t.n
        return {"parent": _column(<void**>&self.t.parent, n, numpy.int32, take),
                "item": _column(<void**>&self.t.item, n, numpy.int32, take),
                "size": _column(<void**>&self.t.size, n, numpy.int8, take),
                "weight": _column(<void**>&self.t.w, n, numpy.float64, take),
                "support": (numpy.zeros(n, dtype=numpy.int64) if self.t.support == NULL else
                            _column(<void**>&self.t.support, n, numpy.int32, take).astype(numpy.int64))}


cdef object _column(void** column, Py_ssize_t n, dtype, bint take):
    """A numpy copy of the first n items of a C column; with `take` the
    column is freed right after (and set to NULL)."""
    out = fill_column(numpy.empty(n, dtype=dtype), column[0])
    if take:
        free(column[0])
        column[0] = NULL
    return out
