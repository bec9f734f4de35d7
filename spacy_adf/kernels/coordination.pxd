# cython: language_level=3
"""The question ids that the C parsers (`cascade.pyx`, `tournament.pyx`)
both build: feature-id lists, the distance id and the coordination features
of a bunsetsu pair (`features/bunsetsu.coordination`: the head words of i
and j, of i - 1 and j, of i and j + 1 are the same word)."""
from libc.stdint cimport int32_t, int64_t, uint64_t


cdef inline Py_ssize_t append_ids(int32_t* buf, Py_ssize_t m, const int32_t* f, int64_t a, int64_t b,
                                  int32_t shift) noexcept nogil:
    """Append f[a:b], each plus `shift`, to buf[m:]; returns the new m."""
    while a < b:
        buf[m] = f[a] + shift
        m += 1
        a += 1
    return m


cdef inline int32_t distance_id(const int32_t* dist, int32_t d) noexcept nogil:
    """The id of distance d (1, 2-5, 6 or more) in dist[0:3]; -1 if unknown."""
    return dist[0 if d == 1 else 1 if d <= 5 else 2]


cdef inline Py_ssize_t add_coordination(int32_t* buf, Py_ssize_t m, const uint64_t* words, int64_t g0, int32_t n,
                                        int32_t i, int32_t j, const int32_t* co, int32_t shift) noexcept nogil:
    """Append to buf[m:] the coordination ids of modifier i and head j (sentence-
    local; `words` the head words of the batch, None when null; co: the ids of
    co.ij, co.pj, co.in, -1 if unknown), each plus `shift`; returns the new m."""
    if words == NULL:
        return m
    cdef uint64_t w = words[g0 + i], wj = words[g0 + j]
    if co[0] >= 0 and w == wj:
        buf[m] = co[0] + shift
        m += 1
    if co[1] >= 0 and i > 0 and words[g0 + i - 1] == wj:
        buf[m] = co[1] + shift
        m += 1
    if co[2] >= 0 and j + 1 < n and w == words[g0 + j + 1]:
        buf[m] = co[2] + shift
        m += 1
    return m
