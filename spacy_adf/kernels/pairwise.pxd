# cython: language_level=3
"""The C-level interface of the pairwise (one-against-one) multi-class layer
(`pairwise.pyx`): its scratch memory and its nogil decision, for Cython code
that classifies many feature-id sets without a Python call per set (the
left-to-right tagger, `left_to_right.pyx`)."""
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t

from .classifiers cimport Scratch


cdef struct PairScratch:
    Scratch* pairs      # one scratch per binary classifier (PKI's counters are per classifier)
    int32_t* votes      # votes per class of the last decision
    double* margin      # summed margin per class of the last decision
    Py_ssize_t n_pairs  # scratches allocated so far (for the release)


cdef class PairwiseClassifier:
    cdef readonly int n_classes
    cdef readonly int degree
    cdef readonly int n_features
    cdef readonly str kind
    cdef readonly tuple classifiers    # the binary classifiers, pair order (0,1), (0,2), ..., (K-2,K-1)
    cdef PyObject** _clfs              # borrowed from `classifiers`, for the nogil loop
    cdef int32_t* _pair_i
    cdef int32_t* _pair_j

    cdef int alloc_scratch(self, PairScratch* s, Py_ssize_t max_len) except -1
    cdef void release_scratch(self, PairScratch* s) noexcept
    # the winning class of x[:n] (votes and margins left in s)
    cdef int32_t decide_ids(self, const int32_t* x, Py_ssize_t n, PairScratch* s) noexcept nogil
