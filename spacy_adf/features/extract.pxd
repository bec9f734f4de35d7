from libc.stdint cimport int32_t, int64_t, uint64_t
from preshed.maps cimport PreshMap


cdef class FeatureTable:
    """Feature dictionary: 64-bit template hash -> dense attribute id + 1."""
    cdef PreshMap map
    cdef readonly object keys

    cdef Py_ssize_t _lookup_into(self, const uint64_t[:, ::1] hashes, int64_t[::1] p,
                                 int32_t[::1] a) except -1
