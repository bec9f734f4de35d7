# cython: language_level=3
"""Sorted int32 id sets: nogil helpers of the classifiers and the miner,
``cdef inline`` in a .pxd so that each extension compiles its own copy and
can inline it into its hot loops (a cimported function is a pointer call)."""
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport qsort


cdef inline int cmp_i32(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0], y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


cdef inline Py_ssize_t sort_unique(int32_t* a, Py_ssize_t n) noexcept nogil:
    """Sort a[:n] in place and drop duplicates; returns the new length.
    Insertion sort for the usual 30-100 features, qsort beyond."""
    cdef Py_ssize_t i, j, m
    cdef int32_t v
    if n > 64:
        qsort(a, n, sizeof(int32_t), cmp_i32)
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


cdef inline double ipow(double x, int d) noexcept nogil:
    cdef double r = 1.0
    while d > 0:
        r *= x
        d -= 1
    return r


cdef inline int64_t gallop(const int32_t* a, int64_t lo, int64_t hi, int32_t v) noexcept nogil:
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
