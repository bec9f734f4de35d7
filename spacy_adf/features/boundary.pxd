# cython: language_level=3
"""The C-level interface of `boundary.pyx`: the feature vocabulary and its
nogil per-gap id lookup, for Cython code that classifies gaps
(`models/boundary_decode.pyx`)."""
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

from preshed.maps cimport PreshMap

cdef enum:
    SLOT_BITS = 6
    MAX_KEYS = 32          # 4 * MAX_WINDOW slots, fit in SLOT_BITS


cdef class BoundaryVocab:
    cdef PreshMap table
    cdef readonly int window
    cdef readonly object keys

    # the known feature ids of the gap after unit k of the run [a, b) into
    # out (room for 4 * window); keys: scratch of the same size
    cdef Py_ssize_t gap_features(self, const uint32_t* codes, const int32_t* classes, int64_t a, int64_t b,
                                 int64_t k, uint64_t* keys, int32_t* out) noexcept nogil
