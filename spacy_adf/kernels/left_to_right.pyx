# cython: language_level=3
"""Left-to-right tagging with a pairwise kernel classifier, in C (nogil): each
token's class is one `PairwiseClassifier.decide_ids` call on its static ids
(`features/window_ids.pyx`) plus the ids of the classes predicted (not gold)
for the two previous tokens; `models/kernel_tagger.KernelTagger.reference_tags`
is the plain-Python reference."""
from libc.stdint cimport int32_t, int64_t

import numpy

from .pairwise cimport PairScratch, PairwiseClassifier


def decode(PairwiseClassifier clf, static, sent_off, dynamic, forced=None):
    """Tag every token left to right (int32 class ids): sentence s is tokens
    sent_off[s]:sent_off[s + 1]; token t's features are its static ids
    (row t of `static`, -1 skipped) plus dynamic[0, tag of t-1] and
    dynamic[1, tag of t-2] (the predicted tags; column K = n_classes for
    positions before the sentence start; -1 skipped). forced[t] >= 0 fixes
    token t's class without asking the classifier (whitespace tokens)."""
    cdef const int32_t[:, ::1] st = numpy.ascontiguousarray(static, dtype=numpy.int32)
    cdef const int64_t[::1] so = numpy.ascontiguousarray(sent_off, dtype=numpy.int64)
    cdef const int32_t[:, ::1] dyn = numpy.ascontiguousarray(dynamic, dtype=numpy.int32)
    cdef Py_ssize_t n = st.shape[0], width = st.shape[1], k = clf.n_classes, s, i, c, m
    if so.shape[0] < 1 or so[0] != 0 or so[so.shape[0] - 1] != n:
        raise ValueError("decode: sentence offsets must run from 0 to the number of tokens")
    if (numpy.diff(so) < 0).any():
        raise ValueError("decode: sentence offsets must ascend")
    if dyn.shape[0] != 2 or dyn.shape[1] != k + 1:
        raise ValueError(f"decode: the dynamic table must be (2, {k + 1})")
    force = numpy.full(n, -1, dtype=numpy.int32) if forced is None else \
        numpy.ascontiguousarray(forced, dtype=numpy.int32)
    cdef const int32_t[::1] fo = force
    if fo.shape[0] != n or (n and (force.max() >= k or force.min() < -1)):
        raise ValueError("decode: forced classes must be -1 or a class id, one per token")
    out = numpy.zeros(n, dtype=numpy.int32)
    cdef int32_t[::1] o = out
    cdef int32_t prev1, prev2, f
    cdef PairScratch scratch
    cdef int32_t[::1] buf_view = numpy.empty(width + 3, dtype=numpy.int32)
    cdef int32_t* buf = &buf_view[0]
    clf.alloc_scratch(&scratch, width + 2)
    try:
        with nogil:
            for s in range(so.shape[0] - 1):
                for i in range(so[s], so[s + 1]):
                    if fo[i] >= 0:
                        o[i] = fo[i]
                        continue
                    m = 0
                    for c in range(width):
                        if st[i, c] >= 0:
                            buf[m] = st[i, c]
                            m += 1
                    prev1 = o[i - 1] if i - 1 >= so[s] else <int32_t>k
                    prev2 = o[i - 2] if i - 2 >= so[s] else <int32_t>k
                    f = dyn[0, prev1]
                    if f >= 0:
                        buf[m] = f
                        m += 1
                    f = dyn[1, prev2]
                    if f >= 0:
                        buf[m] = f
                        m += 1
                    o[i] = clf.decide_ids(buf, m, &scratch)
    finally:
        clf.release_scratch(&scratch)
    return out
