# cython: language_level=3
"""The C-level interface of `boundary.pyx`: the vocabulary's nogil per-gap id lookup."""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t

from preshed.maps cimport PreshMap

cdef enum:
    SLOT_BITS = 6
    LEX_SLOT = 32          # the first dictionary slot: after the 4 * MAX_WINDOW window slots
    LEX_SLOTS = 3          # dictionary.GAP_LENGTH_NAMES
    MAX_KEYS = 35          # 4 * MAX_WINDOW + LEX_SLOTS slots, fit in SLOT_BITS


cdef class BoundaryVocab:
    cdef PreshMap table
    cdef readonly int window
    cdef readonly object keys

    # the known feature ids of the gap after unit k of the run [a, b) into
    # out (room for MAX_KEYS); keys: scratch of the same size; lex: the
    # dictionary lengths (3 per unit, `WordDictionary.gap_lengths`) or NULL
    cdef Py_ssize_t gap_features(self, const uint32_t* codes, const int32_t* classes, const uint8_t* lex,
                                 int64_t a, int64_t b, int64_t k, uint64_t* keys, int32_t* out) noexcept nogil
