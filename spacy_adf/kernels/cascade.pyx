# cython: language_level=3
"""Cascaded chunking (`models/cascaded_chunking.py`) over flat per-segment
feature ids with a kernel classifier's nogil decision: the whole parse of a
batch in C. Its input and question features: docs/architecture.md, "The C
cascade"."""
from libc.stdint cimport int32_t, int64_t, uint64_t, uint8_t

import numpy

from .classifiers cimport KernelClassifier, Scratch
from .coordination cimport add_coordination, append_ids, distance_id

from .sentence_parts import read_batch, run_parts


cdef struct Work:
    int32_t* rem        # the remaining segments (sentence-local)
    int32_t* first      # first child, -1 if none
    int32_t* sibling    # next child of the same head
    int32_t* nchild
    int32_t* asked_j    # the last question of each modifier: head, child counts, answer
    int32_t* asked_ci
    int32_t* asked_cj
    uint8_t* asked_tag
    uint8_t* tags
    int32_t* buf        # the question's feature ids


cdef void _parse_sentence(KernelClassifier clf, const int32_t* f, const int64_t* off, int64_t g0, int32_t n,
                          const int32_t* dist, int32_t* heads, Work* w, Scratch* s,
                          int64_t* n_questions, int64_t* n_calls, const uint64_t* words) noexcept nogil:
    """Heads (sentence-local, -1 for the root) of segments g0 .. g0 + n - 1."""
    cdef int32_t k, m = n, newm, i, j, c, df, q
    cdef int64_t gi, gj
    cdef Py_ssize_t nf
    cdef bint tag
    for k in range(n):
        heads[k] = -1
        w.rem[k] = k
        w.first[k] = -1
        w.sibling[k] = -1
        w.nchild[k] = 0
        w.asked_j[k] = -1
    while m > 1:
        for k in range(m - 2):
            i = w.rem[k]
            j = w.rem[k + 1]
            n_questions[0] += 1
            if w.asked_j[i] == j and w.asked_ci[i] == w.nchild[i] and w.asked_cj[i] == w.nchild[j]:
                w.tags[k] = w.asked_tag[i]
                continue
            gi = g0 + i
            gj = g0 + j
            nf = append_ids(w.buf, 0, f, off[5 * gi], off[5 * gi + 1], 0)
            nf = append_ids(w.buf, nf, f, off[5 * gj + 1], off[5 * gj + 2], 0)
            df = distance_id(dist, j - i)
            if df >= 0:
                w.buf[nf] = df
                nf += 1
            for q in range(i + 1, j):
                nf = append_ids(w.buf, nf, f, off[5 * (g0 + q) + 2], off[5 * (g0 + q) + 3], 0)
            c = w.first[i]
            while c >= 0:
                nf = append_ids(w.buf, nf, f, off[5 * (g0 + c) + 3], off[5 * (g0 + c) + 4], 0)
                c = w.sibling[c]
            c = w.first[j]
            while c >= 0:
                nf = append_ids(w.buf, nf, f, off[5 * (g0 + c) + 4], off[5 * (g0 + c) + 5], 0)
                c = w.sibling[c]
            nf = add_coordination(w.buf, nf, words, g0, n, i, j, dist + 3, 0)
            tag = clf.decide_ids(w.buf, nf, s) > 0
            n_calls[0] += 1
            w.tags[k] = tag
            w.asked_j[i] = j
            w.asked_ci[i] = w.nchild[i]
            w.asked_cj[i] = w.nchild[j]
            w.asked_tag[i] = tag
        w.tags[m - 2] = True  # the segment before the last can only modify the last
        newm = 0
        for k in range(m):
            i = w.rem[k]
            if k < m - 1 and w.tags[k] and (k == 0 or not w.tags[k - 1]):
                j = w.rem[k + 1]  # not yet overwritten: newm <= k
                heads[i] = j
                w.sibling[i] = w.first[j]
                w.first[j] = i
                w.nchild[j] += 1
            else:
                w.rem[newm] = i
                newm += 1
        m = newm


def cascade_heads(KernelClassifier clf, feats, seg_off, sent_seg, distance, int n_threads=1, words=None,
                  coordination=(-1, -1, -1)):
    """(heads, n_questions, n_calls): every segment's sentence-relative head
    (int32, -1 for a root) by cascaded chunking with `clf` (D when its
    decision value is > 0), the questions asked and the classifier calls
    made; n_threads > 1 parses parts at once (`sentence_parts.run_parts`)."""
    cdef const int32_t[::1] f
    cdef const int64_t[::1] off, ss
    cdef const uint64_t[::1] w
    f, off, ss, dist, heads, w = read_batch(feats, seg_off, sent_seg, distance, coordination, words, n_threads)
    results = run_parts(lambda a, b: _parse_range(clf, f, off, ss, dist, heads, w, a, b), n_threads, off, ss,
                        f.shape[0])
    return heads, sum(r[0] for r in results), sum(r[1] for r in results)


cdef tuple _parse_range(KernelClassifier clf, const int32_t[::1] f, const int64_t[::1] off,
                        const int64_t[::1] ss, list distance, int32_t[::1] h, const uint64_t[::1] wd,
                        Py_ssize_t a, Py_ssize_t b):
    """Parse sentences a .. b-1 into h (their own scratch memory; the GIL
    is released while parsing); (n_questions, n_calls)."""
    cdef int32_t dist[6]
    cdef Py_ssize_t k
    cdef int64_t max_n = 0, max_f = 0, n_questions = 0, n_calls = 0
    for k in range(6):
        dist[k] = distance[k]
    for k in range(a, b):
        max_n = max(max_n, ss[k + 1] - ss[k])
        max_f = max(max_f, off[5 * ss[k + 1]] - off[5 * ss[k]])
    cdef Work w
    cdef Scratch s
    cdef int32_t[::1] ints_view = numpy.empty(9 * max_n + max_f + 8, dtype=numpy.int32)
    cdef uint8_t[::1] bytes_view = numpy.empty(2 * max_n + 2, dtype=numpy.uint8)
    cdef int32_t* ints = &ints_view[0]
    cdef uint8_t* bytes_ = &bytes_view[0]
    w.rem, w.first, w.sibling, w.nchild = ints, ints + max_n, ints + 2 * max_n, ints + 3 * max_n
    w.asked_j, w.asked_ci, w.asked_cj = ints + 4 * max_n, ints + 5 * max_n, ints + 6 * max_n
    w.buf = ints + 9 * max_n
    w.asked_tag, w.tags = bytes_, bytes_ + max_n + 1
    clf.alloc_scratch(&s, max_f + 4)
    try:
        with nogil:
            for k in range(a, b):
                if ss[k + 1] - ss[k] > 2:
                    _parse_sentence(clf, &f[0], &off[0], ss[k], <int32_t>(ss[k + 1] - ss[k]), dist,
                                    &h[ss[k]], &w, &s, &n_questions, &n_calls, &wd[0] if wd.shape[0] else NULL)
                elif ss[k + 1] - ss[k] == 2:
                    h[ss[k]] = 1
    finally:
        clf.release_scratch(&s)
    return int(n_questions), int(n_calls)
