# cython: language_level=3
"""The C side of the word-vector features (`vector_features`): the table row
of each token's key, and the valued feature rows of a batch.
"""
from libc.math cimport sqrt
from libc.stdint cimport int32_t, int64_t, uint64_t

import numpy

from preshed.maps cimport PreshMap


cdef class VectorRows:
    """key -> row of one vectors table, read once per key (cached as row + 2: -1 too)."""
    cdef PreshMap index
    cdef readonly object key2row
    cdef readonly Py_ssize_t n_keys
    cdef readonly Py_ssize_t max_keys

    def __cinit__(self, key2row, Py_ssize_t max_keys=1_000_000):
        self.index = PreshMap()
        self.key2row = key2row
        self.n_keys = 0
        self.max_keys = max_keys

    def __reduce__(self):
        return (VectorRows, (self.key2row, self.max_keys))  # a cache: pickles empty

    def rows(self, const uint64_t[::1] keys):
        """int32 row of every key, -1 where the table has no vector."""
        cdef Py_ssize_t n = keys.shape[0], i
        cdef size_t v
        cdef uint64_t key
        out = numpy.empty(n, dtype=numpy.int32)
        cdef int32_t[::1] o = out
        for i in range(n):  # with the GIL: a miss reads the dict
            key = keys[i]
            v = <size_t>self.index.get(key) if key >= 2 else 0  # keys 0 and 1 are preshed's
            if v == 0:
                row = self.key2row.get(key, -1)
                if key >= 2 and self.n_keys < self.max_keys:
                    self.index.set(key, <void*><size_t>(row + 2))
                    self.n_keys += 1
                o[i] = row
            else:
                o[i] = <int32_t>(<int64_t>v - 2)
        return out


def valued_features(const int64_t[::1] ptr, const int32_t[::1] attrs, const int32_t[::1] rows,
                    const int64_t[::1] seq_starts, const float[:, ::1] table,
                    const int32_t[:, ::1] ids, const int32_t[::1] offsets, double scale):
    """(pos_ptr, attrs, values): each position's attrs valued 1, then per offset j and dimension d
    of a vector in the sequence, ids[j, d] valued table[row, d] * scale / |table[row]|."""
    cdef Py_ssize_t N = rows.shape[0], D = table.shape[1], W = offsets.shape[0]
    cdef Py_ssize_t i, s, t, j, d, s0, n, p, nnz, k
    cdef int32_t r
    cdef double f, x
    if ptr.shape[0] != N + 1 or ptr[0] != 0 or ptr[N] != attrs.shape[0]:
        raise ValueError("valued_features: ptr does not match the positions and attributes")
    if ids.shape[0] != W or ids.shape[1] != D:
        raise ValueError(f"valued_features: attribute ids for {ids.shape[0]} x {ids.shape[1]} "
                         f"dimensions, the table has {W} x {D}")
    if seq_starts.shape[0] < 1 or seq_starts[0] != 0 or seq_starts[seq_starts.shape[0] - 1] != N:
        raise ValueError("valued_features: seq_starts does not match the positions")
    for i in range(N):
        if rows[i] >= table.shape[0]:
            raise ValueError(f"valued_features: row {rows[i]} is outside the vectors table "
                             f"({table.shape[0]} rows)")
    cdef double[::1] iv = numpy.zeros(N, dtype=numpy.float64)  # scale / |vector| of each position's word, 0: none
    out_ptr = numpy.zeros(N + 1, dtype=numpy.int64)
    cdef int64_t[::1] op = out_ptr
    with nogil:
        for i in range(N):
            r = rows[i]
            if r < 0:
                continue
            x = 0.0
            for d in range(D):
                x += <double>table[r, d] * table[r, d]
            if x > 0.0:
                iv[i] = scale / sqrt(x)
        # sizes first, so the output is allocated once at its exact size
        nnz = 0
        for s in range(seq_starts.shape[0] - 1):
            s0 = seq_starts[s]
            n = seq_starts[s + 1] - s0
            for t in range(n):
                nnz += ptr[s0 + t + 1] - ptr[s0 + t]
                for j in range(W):
                    p = t + offsets[j]
                    if p < 0 or p >= n or iv[s0 + p] == 0.0:
                        continue
                    r = rows[s0 + p]
                    for d in range(D):
                        if ids[j, d] >= 0 and table[r, d] != 0.0:
                            nnz += 1
                op[s0 + t + 1] = nnz
    out_attrs = numpy.empty(nnz, dtype=numpy.int32)
    out_vals = numpy.empty(nnz, dtype=numpy.float32)
    cdef int32_t[::1] oa = out_attrs
    cdef float[::1] ov = out_vals
    with nogil:
        for s in range(seq_starts.shape[0] - 1):
            s0 = seq_starts[s]
            n = seq_starts[s + 1] - s0
            for t in range(n):
                k = op[s0 + t]
                for i in range(ptr[s0 + t], ptr[s0 + t + 1]):
                    oa[k] = attrs[i]
                    ov[k] = 1.0
                    k += 1
                for j in range(W):
                    p = t + offsets[j]
                    if p < 0 or p >= n or iv[s0 + p] == 0.0:
                        continue
                    r = rows[s0 + p]
                    f = iv[s0 + p]
                    for d in range(D):
                        if ids[j, d] >= 0 and table[r, d] != 0.0:
                            oa[k] = ids[j, d]
                            ov[k] = <float>(table[r, d] * f)
                            k += 1
    return out_ptr, out_attrs, out_vals
