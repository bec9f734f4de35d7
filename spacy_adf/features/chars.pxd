from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

from cymem.cymem cimport Pool
from preshed.maps cimport MapStruct, PreshMap

ctypedef unsigned char[::1] uint8_t_view

cdef enum:
    MAX_FORCED = 32
    MAX_WORD = 8
    BASE_TEMPLATES = 30   # 5 uni + 4 bi + 1 skip + 9 identity + 2 type + 5 generic lexicon + 4 pair
    TRIGRAM_TEMPLATES = 5  # c[-2..0], c[-1..1], c[0..2] and the skips c[-2]c[0], c[0]c[2]


cdef class CharFeaturizer:
    """Hashes the segmentation templates of code sequences; owns the lexicon."""
    cdef Pool mem
    cdef PreshMap lexicon
    cdef readonly int min_word
    cdef readonly int max_word
    cdef readonly bint word_features
    cdef readonly bint char_trigrams
    cdef readonly int n_templates
    cdef readonly dict fold_of          # word -> fold (-1: visible to every fold)
    cdef uint64_t* seeds
    cdef PreshMap forced                # user words kept whole (keys as the lexicon's)
    cdef PreshMap forced_prefixes       # their prefixes: matching stops early
    cdef readonly int max_forced        # longest forced word, in units

    # every template value of each row of c[a:e] whose mask is set (0 = off); other rows untouched
    cdef void _fill(self, const uint32_t[::1] c, Py_ssize_t a, Py_ssize_t e, int fold,
                    uint64_t[::1] pre, uint8_t_view hit, int32_t[::1] cls,
                    int32_t[:, ::1] lens, uint64_t[:, ::1] o,
                    const unsigned char[::1] msk) noexcept nogil


# 1 where no word may start (grapheme and letter-run glue), for runs b[0..nb-1]
cdef void glue_into(const uint32_t* c, const int64_t* b, Py_ssize_t nb,
                    unsigned char* out) noexcept nogil


# Dictionary matching, one definition for CharFeaturizer and features/dictionary.pyx
cdef uint64_t word_key(const uint32_t* c, Py_ssize_t n) noexcept nogil
cdef void match_lexicon(const MapStruct* lexicon, const uint32_t* c, Py_ssize_t a, Py_ssize_t e,
                        int min_word, int max_word, int fold, uint64_t* pre, unsigned char* hit,
                        int32_t* ends, int32_t* begins, int32_t* inside) noexcept nogil


# a ValueError naming `what` unless run bounds go from 0 to n, non-decreasing
cdef int check_bounds(const int64_t[::1] b, Py_ssize_t n, str what=*) except -1
