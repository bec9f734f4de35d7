# cython: language_level=3
"""Word segmentation of whole batches in C: the boundary features of every
gap (`features/boundary.pxd`) classified by a kernel classifier's nogil
`decide_ids` (`kernels/classifiers.pxd`), no Python call per gap. The
Python reference is tests/helpers/reference_segmenters.py."""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

import numpy

from ..features.boundary cimport MAX_KEYS, BoundaryVocab
from ..features.boundary import checked_lexicon, checked_units
from ..kernels.classifiers cimport KernelClassifier, Scratch

__all__ = ["segment_starts"]


def segment_starts(BoundaryVocab vocab, KernelClassifier clf, codes, bounds, lexicon=None):
    """uint8 per unit: 1 where a word starts (every run start, and unit
    k + 1 where the classifier's decision for the gap after unit k is > 0).
    lexicon: the dictionary lengths of the units (`WordDictionary.gap_lengths`)
    for a model with dictionary features, else None."""
    c_arr, b_arr, t_arr = checked_units(codes, bounds)
    cdef const uint32_t[::1] c = c_arr
    cdef const int64_t[::1] b = b_arr
    cdef const int32_t[::1] t = t_arr
    cdef const uint8_t[:, ::1] lex = checked_lexicon(lexicon, c.shape[0])
    cdef const uint8_t* lp = &lex[0, 0] if lex is not None and lex.shape[0] else NULL
    cdef Py_ssize_t r, n_runs = b.shape[0] - 1, m
    cdef int64_t k
    starts = numpy.zeros(c.shape[0], dtype=numpy.uint8)
    if c.shape[0] == 0:
        return starts
    cdef uint8_t[::1] st = starts
    cdef uint64_t keys[MAX_KEYS]
    cdef int32_t ids[MAX_KEYS]
    cdef Scratch s
    clf.alloc_scratch(&s, MAX_KEYS)
    try:
        with nogil:
            for r in range(n_runs):
                if b[r] < b[r + 1]:
                    st[b[r]] = 1
                for k in range(b[r], b[r + 1] - 1):
                    m = vocab.gap_features(&c[0], &t[0], lp, b[r], b[r + 1], k, keys, ids)
                    st[k + 1] = clf.decide_ids(ids, m, &s) > 0
    finally:
        clf.release_scratch(&s)
    return starts
