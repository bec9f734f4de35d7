# cython: language_level=3
"""Step-ladder tournament parsing (`models/tournament.py`) over flat
per-segment feature ids with a kernel classifier's nogil decision: the whole
parse of a batch in C. Its game features: docs/architecture.md, "The C
tournament"."""
from libc.stdint cimport int32_t, int64_t, uint64_t

import numpy

from .classifiers cimport KernelClassifier, Scratch
from .coordination cimport add_coordination, append_ids, distance_id

from .sentence_parts import read_batch, run_parts


cdef void _parse_sentence(KernelClassifier clf, const int32_t* f, const int64_t* off, int64_t g0, int32_t n,
                          const int32_t* dist, int32_t n_vocab, int32_t* heads, int32_t* buf, Scratch* s,
                          int64_t* n_games, const uint64_t* words) noexcept nogil:
    """Heads (sentence-local, -1 for the root) of segments g0 .. g0 + n - 1 (n >= 3)."""
    cdef int32_t i, near, far, q, df
    cdef int64_t gi
    cdef Py_ssize_t nf, near_end
    for i in range(n):
        heads[i] = -1
    heads[n - 2] = n - 1
    for i in range(n - 3, -1, -1):
        gi = g0 + i
        near = i + 1
        far = heads[near]
        near_end = -1  # the near side's ids are built once per holder of the title
        while far != -1:
            if near_end < 0:
                nf = append_ids(buf, 0, f, off[5 * gi], off[5 * gi + 1], 0)
                nf = append_ids(buf, nf, f, off[5 * (g0 + near) + 1], off[5 * (g0 + near) + 2], 0)
                df = distance_id(dist, near - i)
                if df >= 0:
                    buf[nf] = df
                    nf += 1
                for q in range(i + 1, near):
                    nf = append_ids(buf, nf, f, off[5 * (g0 + q) + 2], off[5 * (g0 + q) + 3], 0)
                nf = add_coordination(buf, nf, words, g0, n, i, near, dist + 3, 0)
                near_end = nf
            nf = append_ids(buf, near_end, f, off[5 * (g0 + far) + 1], off[5 * (g0 + far) + 2], n_vocab)
            df = distance_id(dist, far - i)
            if df >= 0:
                buf[nf] = df + n_vocab
                nf += 1
            for q in range(near + 1, far):
                nf = append_ids(buf, nf, f, off[5 * (g0 + q) + 2], off[5 * (g0 + q) + 3], n_vocab)
            nf = add_coordination(buf, nf, words, g0, n, i, far, dist + 3, n_vocab)
            n_games[0] += 1
            if clf.decide_ids(buf, nf, s) > 0:
                near = far
                near_end = -1
            far = heads[far]
        heads[i] = near


def tournament_heads(KernelClassifier clf, feats, seg_off, sent_seg, distance, int n_vocab, int n_threads=1,
                     words=None, coordination=(-1, -1, -1)):
    """(heads, n_games): every segment's sentence-relative head (int32, -1 for
    a root) by the step-ladder tournament with `clf` (the farther candidate
    wins when its decision value on 2 * n_vocab ids is > 0) and the games
    played; n_threads > 1 parses parts at once (`sentence_parts.run_parts`)."""
    cdef const int32_t[::1] f
    cdef const int64_t[::1] off, ss
    cdef const uint64_t[::1] w
    if n_vocab < 0:
        raise ValueError(f"n_vocab must be >= 0, not {n_vocab}")
    f, off, ss, dist, heads, w = read_batch(feats, seg_off, sent_seg, distance, coordination, words, n_threads)
    results = run_parts(lambda a, b: _parse_range(clf, f, off, ss, dist, n_vocab, heads, w, a, b), n_threads,
                        off, ss, f.shape[0])
    return heads, sum(r[0] for r in results)


cdef tuple _parse_range(KernelClassifier clf, const int32_t[::1] f, const int64_t[::1] off,
                        const int64_t[::1] ss, list distance, int32_t n_vocab, int32_t[::1] h,
                        const uint64_t[::1] w, Py_ssize_t a, Py_ssize_t b):
    """Parse sentences a .. b-1 into h (their own scratch memory; the GIL
    is released while parsing); (n_games,)."""
    cdef int32_t dist[6]
    cdef Py_ssize_t k
    cdef int64_t max_f = 0, n_games = 0
    for k in range(6):
        dist[k] = distance[k]
    for k in range(a, b):
        max_f = max(max_f, off[5 * ss[k + 1]] - off[5 * ss[k]])
    # a game reads each segment's lists at most twice (two heads) plus two distances and six coordination ids
    cdef Py_ssize_t cap = 2 * max_f + 8
    cdef Scratch s
    cdef int32_t[::1] buf_view = numpy.empty(cap, dtype=numpy.int32)
    cdef int32_t* buf = &buf_view[0]
    clf.alloc_scratch(&s, cap)
    try:
        with nogil:
            for k in range(a, b):
                if ss[k + 1] - ss[k] > 2:
                    _parse_sentence(clf, &f[0], &off[0], ss[k], <int32_t>(ss[k + 1] - ss[k]), dist, n_vocab,
                                    &h[ss[k]], buf, &s, &n_games, &w[0] if w.shape[0] else NULL)
                elif ss[k + 1] - ss[k] == 2:
                    h[ss[k]] = 1
    finally:
        clf.release_scratch(&s)
    return (int(n_games),)
