# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""A double-array trie (Aoe 1989) over PKE's subsets: the lookup structure
of Kudo & Matsumoto (2003), kept as a yardstick for PKE's own trie
(`classifiers.PKE`: breadth-first child lists, 16 bytes a node).

State s reaches its child with item rank r at slot t = BASE[s] + r + 1 when
CHECK[t] == s; WEIGHT[t] is that subset's w. The root is state 0 with
BASE = 0, so the size-1 subsets sit at slot r + 1. A state without children
has BASE 0. Each slot costs 16 bytes (int32 BASE and CHECK, float64 weight),
so the double array is never smaller than PKE's trie (unused slots are the
difference); `benchmarks/kernels.py` / `benchmarks/dependency.py` compare the
speed. Decisions equal the PKE it was built from (same sums, same order of
nothing: each subset is visited once), up to floating-point rounding.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy

import numpy

from spacy_adf.kernels.classifiers import PKE
from spacy_adf.kernels.csr import as_csr


cdef int _cmp(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0], y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


cdef extern from "stdlib.h":
    void qsort(void* base, size_t n, size_t size, int (*cmp)(const void*, const void*) noexcept nogil) nogil


def build_double_array(cptr, item, weight, int32_t n_items):
    """(BASE, CHECK, WEIGHT) of the double array equivalent to PKE's trie
    arrays. First-fit placement, children in ascending rank."""
    cdef const int32_t[::1] cp = numpy.ascontiguousarray(cptr, dtype=numpy.int32)
    cdef const int32_t[::1] it = numpy.ascontiguousarray(item, dtype=numpy.int32)
    cdef const double[::1] w = numpy.ascontiguousarray(weight, dtype=numpy.float64)
    cdef int64_t n = it.shape[0]
    cdef int64_t n1 = cp[0] if n else 0
    cdef int64_t size = max(n_items + 2, <int64_t>(n * 1.2) + 64)
    cdef int32_t* base = <int32_t*>malloc(size * sizeof(int32_t))
    cdef int32_t* check = <int32_t*>malloc(size * sizeof(int32_t))
    cdef double* wt = <double*>malloc(size * sizeof(double))
    cdef int32_t* state = <int32_t*>malloc((n + 1) * sizeof(int32_t))
    cdef int64_t i, c, t, b, q, next_check = 1, new_size, nonzero, high_water = 1
    cdef bint seen_free
    cdef int32_t lo_item
    cdef bint fits
    if base == NULL or check == NULL or wt == NULL or state == NULL:
        free(base); free(check); free(wt); free(state)
        raise MemoryError()
    try:
        for t in range(size):
            base[t] = 0
            check[t] = -1
            wt[t] = 0.0
        check[0] = 0  # the root occupies slot 0
        with nogil:
            # size-1 subsets: children of the root at rank + 1
            for i in range(n1):
                t = it[i] + 1
                check[t] = 0
                wt[t] = w[i]
                state[i] = <int32_t>t
                if t + 1 > high_water:
                    high_water = t + 1
            for i in range(n):
                if cp[i + 1] <= cp[i]:
                    continue
                lo_item = it[cp[i]]
                # first fit from next_check; a region probed at >= 95% occupancy
                # is skipped next time (the darts heuristic), else the build
                # rescans the dense front for every node
                q = (next_check if next_check > lo_item + 2 else lo_item + 2) - 1
                if cp[i + 1] - cp[i] > 32 and q < high_water - 1:
                    # a wide node rarely fits among the holes: past the high-water
                    # mark it fits at once, and smaller nodes fill its holes later
                    q = high_water - 1
                nonzero = 0
                seen_free = False
                while True:
                    q += 1
                    t = q + (it[cp[i + 1] - 1] - lo_item)  # the last child's slot
                    if t >= size:
                        new_size = t * 2 + 64
                        base = <int32_t*>realloc(base, new_size * sizeof(int32_t))
                        check = <int32_t*>realloc(check, new_size * sizeof(int32_t))
                        wt = <double*>realloc(wt, new_size * sizeof(double))
                        if base == NULL or check == NULL or wt == NULL:
                            break
                        for t in range(size, new_size):
                            base[t] = 0
                            check[t] = -1
                            wt[t] = 0.0
                        size = new_size
                    if check[q] != -1:
                        nonzero += 1
                        continue
                    if not seen_free:
                        seen_free = True
                        if next_check < q:
                            next_check = q
                    b = q - lo_item - 1
                    fits = True
                    for c in range(cp[i] + 1, cp[i + 1]):
                        if check[b + it[c] + 1] != -1:
                            fits = False
                            break
                    if fits:
                        break
                if nonzero * 20 >= (q - next_check + 1) * 19:
                    next_check = q
                if base == NULL or check == NULL or wt == NULL:
                    break
                base[state[i]] = <int32_t>b
                for c in range(cp[i], cp[i + 1]):
                    t = b + it[c] + 1
                    check[t] = state[i]
                    wt[t] = w[c]
                    state[c] = <int32_t>t
                    if t + 1 > high_water:
                        high_water = t + 1
        if base == NULL or check == NULL or wt == NULL:
            raise MemoryError()
        top = 0
        for t in range(size - 1, -1, -1):
            if check[t] != -1:
                top = t + 1
                break
        B = numpy.empty(top, dtype=numpy.int32)
        C = numpy.empty(top, dtype=numpy.int32)
        W = numpy.empty(top, dtype=numpy.float64)
        if top:
            memcpy(<void*><size_t>B.ctypes.data, base, top * sizeof(int32_t))
            memcpy(<void*><size_t>C.ctypes.data, check, top * sizeof(int32_t))
            memcpy(<void*><size_t>W.ctypes.data, wt, top * sizeof(double))
        return B, C, W
    finally:
        free(base); free(check); free(wt); free(state)


cdef class DoubleArrayPKE:
    """PKE's decisions through a double-array trie (see the module docstring)."""
    cdef readonly int degree
    cdef readonly double bias
    cdef readonly int n_features
    cdef readonly object arrays
    cdef const int32_t* feat_rank
    cdef const int32_t* base
    cdef const int32_t* check
    cdef const double* weight
    cdef int64_t size

    def __init__(self, pke):
        if not isinstance(pke, PKE):
            raise TypeError("expected a PKE classifier")
        a = pke.arrays
        B, C, W = build_double_array(a["cptr"], a["item"], a["weight"], a["root"].shape[0])
        self.arrays = {"feat_rank": a["feat_rank"], "base": B, "check": C, "weight": W}
        self.degree = pke.degree
        self.bias = pke.bias
        self.n_features = pke.n_features
        cdef const int32_t[::1] fr = self.arrays["feat_rank"]
        cdef const int32_t[::1] b = B
        cdef const int32_t[::1] c = C
        cdef const double[::1] w = W
        self.feat_rank = &fr[0] if fr.shape[0] else NULL
        self.size = b.shape[0]
        self.base = &b[0] if self.size else NULL
        self.check = &c[0] if self.size else NULL
        self.weight = &w[0] if self.size else NULL

    @property
    def nbytes(self) -> int:
        return sum(v.nbytes for v in self.arrays.values())

    @property
    def n_slots(self) -> int:
        return int(self.size)

    cdef double _walk(self, int32_t s, const int32_t* x, Py_ssize_t start, Py_ssize_t m,
                      int depth) noexcept nogil:
        cdef int64_t b = self.base[s], t
        cdef Py_ssize_t k
        cdef double total = 0.0
        for k in range(start, m):
            t = b + x[k] + 1
            if t >= self.size:
                break  # ranks ascend: every later slot is further out
            if self.check[t] == s:
                total += self.weight[t]
                if depth < self.degree and self.base[t] > 0:
                    total += self._walk(<int32_t>t, x, k + 1, m, depth + 1)
        return total

    def decision_batch(self, X):
        indptr, indices = as_csr(X)
        cdef const int64_t[::1] p = indptr
        cdef const int32_t[::1] ix = indices
        cdef Py_ssize_t i, k, m, n = p.shape[0] - 1
        cdef int32_t r
        out = numpy.zeros(n, dtype=numpy.float64)
        cdef double[::1] o = out
        max_len = int(numpy.diff(indptr).max()) if n else 0
        cdef int32_t* buf = <int32_t*>malloc((max_len + 1) * sizeof(int32_t))
        if buf == NULL:
            raise MemoryError()
        try:
            with nogil:
                for i in range(n):
                    m = 0
                    for k in range(p[i], p[i + 1]):
                        if 0 <= ix[k] < self.n_features:
                            r = self.feat_rank[ix[k]]
                            if r >= 0:
                                buf[m] = r
                                m += 1
                    qsort(buf, m, sizeof(int32_t), _cmp)
                    k = 0  # deduplicate
                    for r in range(m):
                        if k == 0 or buf[r] != buf[k - 1]:
                            buf[k] = buf[r]
                            k += 1
                    o[i] = self.bias + (self._walk(0, buf, 0, k, 1) if self.size else 0.0)
        finally:
            free(buf)
        return out
