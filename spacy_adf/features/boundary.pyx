# cython: language_level=3
"""Boundary features of `pke_segmenter`, one example per gap (docs/components.md,
"Kernel taggers"; in plain Python: tests/helpers/reference_segmenters.py):
each a 64-bit key (slot, value) (`feature_key`).
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

import numpy

from preshed.maps cimport PreshMap, map_get

from .chars cimport check_bounds

from .chars import CLASS_NAMES, char_classes

__all__ = ["BoundaryVocab", "gap_keys", "gap_units", "checked_units", "checked_lexicon", "check_window", "EDGE",
           "MAX_WINDOW", "UNICODE_END"]

EDGE = len(CLASS_NAMES)    # the type of a position beyond the run's edge
cdef uint64_t EDGE_TYPE = EDGE
MAX_WINDOW = 8             # 4 * MAX_WINDOW = LEX_SLOT window slots (boundary.pxd)
UNICODE_END = 0x110000     # codes at or above: hashed multi-character tokens


cdef inline uint64_t feature_key(int slot, uint64_t value) noexcept nogil:
    # + 2: preshed reserves the keys 0 and 1
    return ((value << SLOT_BITS) | <uint64_t>slot) + 2


def check_window(window) -> int:
    if int(window) != window or not 1 <= window <= MAX_WINDOW:
        raise ValueError(f"window must be an integer from 1 to {MAX_WINDOW}, not {window!r}")
    return int(window)


def checked_lexicon(lexicon, n_units):
    """`WordDictionary.gap_lengths` (or None), C-contiguous uint8, checked."""
    if lexicon is None:
        return None
    lex = numpy.ascontiguousarray(lexicon, dtype=numpy.uint8)
    if lex.shape != (n_units, LEX_SLOTS):
        raise ValueError(f"the dictionary lengths must have shape ({n_units}, {LEX_SLOTS}), not {lex.shape}")
    return lex


cdef inline const uint8_t* _lex_ptr(const uint8_t[:, ::1] lex):
    return &lex[0, 0] if lex is not None and lex.shape[0] else NULL


cdef inline int _gap_keys(const uint32_t* codes, const int32_t* classes, const uint8_t* lex, int64_t a,
                          int64_t b, int64_t k, int window, uint64_t* out) noexcept nogil:
    """The 4 * window (+ LEX_SLOTS) keys of the gap after unit k of the run [a, b), 0: absent."""
    cdef int s, w2 = 2 * window
    cdef int64_t j
    if lex != NULL:
        for s in range(LEX_SLOTS):
            j = lex[k * LEX_SLOTS + s]
            out[2 * w2 + s] = feature_key(LEX_SLOT + s, <uint64_t>j) if j else 0
    for s in range(w2):
        j = k - window + 1 + s
        if a <= j < b:
            out[s] = feature_key(s, codes[j])
            out[w2 + s] = feature_key(w2 + s, <uint64_t>classes[j])
        else:
            out[s] = 0
            out[w2 + s] = feature_key(w2 + s, EDGE_TYPE)
    return 2 * w2 + (LEX_SLOTS if lex != NULL else 0)


def gap_units(bounds):
    """The left unit k of every gap, in the order used here."""
    b = numpy.asarray(bounds, dtype=numpy.int64)
    n = int(b.max()) if b.shape[0] else 0
    keep = numpy.ones(n, dtype=bool)
    starts, ends = b[:b.shape[0] - 1], b[1:]
    keep[ends[ends > starts] - 1] = False
    return numpy.flatnonzero(keep)


def checked_units(codes, bounds):
    """(codes uint32, bounds int64, character class per unit int32), checked."""
    c = numpy.ascontiguousarray(codes, dtype=numpy.uint32)
    b = numpy.ascontiguousarray(bounds, dtype=numpy.int64)
    check_bounds(b, c.shape[0])
    return c, b, numpy.ascontiguousarray(char_classes(c), dtype=numpy.int32)


cdef int64_t _count_gaps(const int64_t[::1] b) noexcept:
    cdef Py_ssize_t r
    cdef int64_t n = 0
    for r in range(b.shape[0] - 1):
        n += max(b[r + 1] - b[r] - 1, 0)
    return n


def gap_keys(codes, bounds, int window=3, lexicon=None):
    """(n_gaps, 4 * window (+ LEX_SLOTS with `lexicon`)) uint64 keys of every gap (0 = absent)."""
    check_window(window)
    c_arr, b_arr, t_arr = checked_units(codes, bounds)
    cdef const uint32_t[::1] c = c_arr
    cdef const int64_t[::1] b = b_arr
    cdef const int32_t[::1] t = t_arr
    cdef const uint8_t[:, ::1] lex = checked_lexicon(lexicon, c.shape[0])
    cdef const uint8_t* lp = _lex_ptr(lex)
    cdef Py_ssize_t r, n_runs = b.shape[0] - 1, g = 0
    cdef int64_t k, n_gaps = _count_gaps(b)
    out = numpy.zeros((n_gaps, 4 * window + (LEX_SLOTS if lexicon is not None else 0)), dtype=numpy.uint64)
    if n_gaps == 0:
        return out
    cdef uint64_t[:, ::1] o = out
    with nogil:
        for r in range(n_runs):
            for k in range(b[r], b[r + 1] - 1):
                _gap_keys(&c[0], &t[0], lp, b[r], b[r + 1], k, window, &o[g, 0])
                g += 1
    return out


cdef class BoundaryVocab:
    """Feature keys -> dense ids 0 .. len - 1 (``keys[id]`` is the key)."""

    def __init__(self, int window=3, keys=None):
        self.window = check_window(window)
        k = numpy.zeros(0, dtype=numpy.uint64) if keys is None else numpy.asarray(keys)
        if k.ndim != 1 or (k.shape[0] and k.dtype.kind not in "ui"):
            raise ValueError("feature keys must be a 1-d array of unsigned integers")
        k = numpy.ascontiguousarray(k, dtype=numpy.uint64)
        slots = (k - 2) & ((1 << SLOT_BITS) - 1)
        if k.shape[0] and (k.min() < 2 or numpy.any((slots >= 4 * self.window) & (slots < LEX_SLOT))
                           or slots.max() >= LEX_SLOT + LEX_SLOTS):
            raise ValueError(f"a feature key does not belong to a window of {self.window}")
        if numpy.unique(k).shape[0] != k.shape[0]:
            raise ValueError("feature keys must be unique")
        self.keys = k
        self.table = PreshMap(max(2 * k.shape[0], 8))
        for i, key in enumerate(k.tolist()):
            self.table[key] = i + 1  # 0 would read as missing

    @classmethod
    def from_keys(cls, key_matrix, int window=3, int min_count=1):
        """The vocabulary of the keys seen in at least `min_count` gaps, ascending."""
        keys, counts = numpy.unique(numpy.asarray(key_matrix, dtype=numpy.uint64), return_counts=True)
        keep = (keys != 0) & (counts >= min_count)
        return cls(window, keys[keep])

    def __len__(self):
        return self.keys.shape[0]

    def __reduce__(self):  # pickling (nlp.pipe with n_process > 1)
        return (BoundaryVocab, (self.window, self.keys))

    cdef Py_ssize_t gap_features(self, const uint32_t* codes, const int32_t* classes, const uint8_t* lex,
                                 int64_t a, int64_t b, int64_t k, uint64_t* keys, int32_t* out) noexcept nogil:
        cdef int n = _gap_keys(codes, classes, lex, a, b, k, self.window, keys), s
        cdef Py_ssize_t m = 0
        cdef size_t v
        for s in range(n):
            if keys[s] != 0:
                v = <size_t>map_get(self.table.c_map, keys[s])
                if v != 0:
                    out[m] = <int32_t>(v - 1)
                    m += 1
        return m

    def gap_ids(self, codes, bounds, lexicon=None):
        """(indptr int64, indices int32): the CSR arrays of the known feature
        ids of every gap (`gap_keys` rows)."""
        # gap_keys' setup and loop repeated: ids via its key matrix took 1.4x (162 vs 116 ms, 400k units)
        c_arr, b_arr, t_arr = checked_units(codes, bounds)
        cdef const uint32_t[::1] c = c_arr
        cdef const int64_t[::1] b = b_arr
        cdef const int32_t[::1] t = t_arr
        cdef const uint8_t[:, ::1] lex = checked_lexicon(lexicon, c.shape[0])
        cdef const uint8_t* lp = _lex_ptr(lex)
        cdef Py_ssize_t r, n_runs = b.shape[0] - 1, g = 0, m
        cdef int64_t k, n_gaps = _count_gaps(b), pos = 0
        cdef int width = 4 * self.window + (LEX_SLOTS if lp != NULL else 0)
        indptr = numpy.zeros(n_gaps + 1, dtype=numpy.int64)
        indices = numpy.zeros(n_gaps * width, dtype=numpy.int32)
        if n_gaps == 0:
            return indptr, indices
        cdef int64_t[::1] p = indptr
        cdef int32_t[::1] ix = indices
        cdef uint64_t keys[MAX_KEYS]
        with nogil:
            for r in range(n_runs):
                for k in range(b[r], b[r + 1] - 1):
                    m = self.gap_features(&c[0], &t[0], lp, b[r], b[r + 1], k, keys, &ix[pos])
                    pos += m
                    g += 1
                    p[g] = pos
        return indptr, indices[:pos].copy()
