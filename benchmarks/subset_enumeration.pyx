# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The exhaustive subset enumerator that PKE's miner (`spacy_adf.kernels.mining.mine_subsets`)
is measured against (benchmarks/kernels.py) and checked against (tests/kernels/test_kernels.py)."""
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport free, realloc

import numpy

from murmurhash.mrmr cimport hash64
from preshed.maps cimport PreshMap

__all__ = ["enumerate_subsets"]


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
