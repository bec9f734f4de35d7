# cython: language_level=3
"""The C-level interface of the kernel classifiers (`classifiers.pyx`): the
driver class, its scratch memory and its nogil decision, for Cython code
that scores many feature-id sets without a Python call per set (the
cascaded-chunking parse, `cascade.pyx`). PKB, PKI and PKE override
`alloc_scratch` / `decide_ids`; their own fields stay in the .pyx."""
from libc.stdint cimport int32_t, uint8_t


cdef struct Scratch:
    int32_t* buf        # the sorted, deduplicated input (ranks for PKE)
    int32_t* count      # PKI: r_j per support example, all zero between calls
    int32_t* touched    # PKI: support examples with r_j > 0
    uint8_t* present    # PKE: 1 at the input's ranks, all zero between calls


cdef class KernelClassifier:
    cdef readonly int degree
    cdef readonly double bias          # b + w(empty set): what an empty input scores
    cdef readonly int n_features

    # scratch for inputs of up to max_len ids (release it with release_scratch)
    cdef int alloc_scratch(self, Scratch* s, Py_ssize_t max_len) except -1
    cdef void release_scratch(self, Scratch* s) noexcept
    # the decision value of x[:n] (any order, repeats and unknown ids allowed)
    cdef double decide_ids(self, const int32_t* x, Py_ssize_t n, Scratch* s) noexcept nogil
