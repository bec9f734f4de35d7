# cython: language_level=3
"""The user dictionary of `pke_segmenter` (docs/components.md, "Kernel
taggers"): the words that can match (MIN_WORD .. max_word code points), keys
matched as adf_segmenter matches them (`chars.match_lexicon`), and their
sorted text, saved with the model; `gap_lengths`: the longest words around each gap.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memset

import re

import numpy

from cymem.cymem cimport Pool
from preshed.maps cimport PreshMap

from .chars cimport MAX_WORD, check_bounds, match_lexicon, word_key

from .chars import text_codes

cdef enum:
    C_MIN_WORD = 2         # a one-character "word" would match nearly everywhere
    N_LENGTHS = 3          # the columns of gap_lengths, GAP_LENGTH_NAMES

MIN_WORD = C_MIN_WORD
DEFAULT_MAX_WORD = 6       # adf_segmenter's default max_word
MAX_DICT_WORD = MAX_WORD   # the longest word that can match (chars.pxd)
GAP_LENGTH_NAMES = ("lex_end_len", "lex_begin_len", "lex_span_len")
_WHITESPACE = re.compile(r"[^\S\n]")  # what str.isspace() is true of, but the words' separator


def check_max_word(max_word) -> int:
    if int(max_word) != max_word or not MIN_WORD <= max_word <= MAX_DICT_WORD:
        raise ValueError(f"dict_max_word must be an integer from {MIN_WORD} to {MAX_DICT_WORD}, "
                         f"not {max_word!r}")
    return int(max_word)


cdef class WordDictionary:
    """The matchable words of a user dictionary (see the module docstring)."""
    cdef PreshMap keys
    cdef readonly int max_word
    cdef bytes text            # the words, sorted and unique, "\n"-joined UTF-8
    cdef readonly Py_ssize_t n_words

    def __init__(self, int max_word=DEFAULT_MAX_WORD, words=()):
        self.max_word = check_max_word(max_word)
        self.keys = PreshMap()
        self.text = b""
        self.n_words = 0
        self.add_words(words)

    def __len__(self):
        return self.n_words

    def __reduce__(self):  # pickling (nlp.pipe with n_process > 1)
        return (WordDictionary.from_text, (self.max_word, self.text))

    def words(self) -> list:
        """The words, sorted."""
        return self.text.decode("utf8").split("\n") if self.n_words else []

    @property
    def text_bytes(self) -> bytes:
        """The words, sorted, one a line (UTF-8): what a model saves and `from_text` reads."""
        return self.text

    @classmethod
    def from_text(cls, int max_word, bytes text):
        """A WordDictionary of `text_bytes`."""
        cdef WordDictionary d = cls(max_word)
        if text:
            d._load_text(text)
        return d

    def add_words(self, words) -> int:
        """Add words (whitespace in one is a ValueError); returns how many can match."""
        words = list(words)
        if not words:
            return 0
        # checked on the joined text: a loop per character is slow for 100k words
        joined = "\n".join(words) if all(isinstance(w, str) for w in words) else None
        if joined is None or _WHITESPACE.search(joined) or joined.count("\n") != len(words) - 1 or not all(words):
            bad = next(w for w in words if not isinstance(w, str) or not w or any(ch.isspace() for ch in w))
            raise ValueError(f"dictionary words must be non-empty strings without whitespace, got {bad!r}")
        usable = [w for w in words if MIN_WORD <= len(w) <= self.max_word]
        if not usable:
            return 0
        new = set(usable)
        merged = sorted(new.union(self.words()))
        self.text = "\n".join(merged).encode("utf8")
        self.n_words = len(merged)
        self._add_keys("\n".join(new))
        return len(usable)

    cdef int _load_text(self, bytes text) except -1:
        # the saved form (sorted, unique): checked, but not sorted again
        joined = text.decode("utf8")
        words = joined.split("\n")
        if _WHITESPACE.search(joined) or not all(MIN_WORD <= len(w) <= self.max_word for w in words):
            raise ValueError(f"the dictionary text holds a word of other than {MIN_WORD} to {self.max_word} "
                             "characters, or whitespace")
        self.keys = PreshMap(2 * len(words))
        self._add_keys(joined)
        self.text = text
        self.n_words = len(words)
        return 0

    cdef int _add_keys(self, str joined) except -1:
        # one pass over the code points of the "\n"-joined words
        cdef const uint32_t[::1] c = text_codes(joined)
        cdef Py_ssize_t i, start = 0, n = c.shape[0]
        for i in range(n + 1):
            if i == n or c[i] == 0x0A:
                self.keys.set(word_key(&c[start], i - start), <void*>1)
                start = i + 1
        return 0

    def gap_lengths(self, codes, bounds):
        """uint8 (n_units, 3): the GAP_LENGTH_NAMES of the gap after unit k (0: none), within runs."""
        cdef const uint32_t[::1] c = numpy.ascontiguousarray(codes, dtype=numpy.uint32)
        cdef const int64_t[::1] b = numpy.ascontiguousarray(bounds, dtype=numpy.int64)
        cdef Py_ssize_t n = c.shape[0], nb = b.shape[0], r, longest = 0
        check_bounds(b, n)
        for r in range(nb - 1):
            longest = max(longest, b[r + 1] - b[r])
        out = numpy.zeros((n, N_LENGTHS), dtype=numpy.uint8)
        if n == 0 or self.n_words == 0:
            return out
        cdef uint8_t[:, ::1] o = out
        # scratch for the longest run: matching works run by run, positions from 0
        cdef Pool mem = Pool()
        cdef uint64_t* pre = <uint64_t*>mem.alloc(longest * MAX_WORD, sizeof(uint64_t))
        cdef unsigned char* hit = <unsigned char*>mem.alloc(longest * MAX_WORD, 1)
        cdef int32_t* lens = <int32_t*>mem.alloc(3 * longest, sizeof(int32_t))
        with nogil:
            for r in range(nb - 1):
                if b[r + 1] - b[r] >= 2:
                    self._run_lengths(&c[b[r]], b[r + 1] - b[r], pre, hit, lens, &o[b[r], 0])
        return out

    cdef void _run_lengths(self, const uint32_t* c, Py_ssize_t m, uint64_t* pre, unsigned char* hit,
                           int32_t* lens, uint8_t* o) noexcept nogil:
        # the rows of one run c[0:m] (m >= 2) into o (m rows of N_LENGTHS)
        cdef int32_t* ends = lens
        cdef int32_t* begins = lens + m
        cdef int32_t* inside = lens + 2 * m
        cdef Py_ssize_t s, l, k
        memset(hit, 0, m * MAX_WORD)
        memset(lens, 0, 3 * m * sizeof(int32_t))
        match_lexicon(self.keys.c_map, c, 0, m, C_MIN_WORD, self.max_word, -1, pre, hit, ends, begins, inside)
        for k in range(m - 1):
            o[k * N_LENGTHS] = <uint8_t>ends[k]
            o[k * N_LENGTHS + 1] = <uint8_t>begins[k + 1]
        for s in range(m - 1):
            for l in range(C_MIN_WORD, self.max_word + 1):
                if s + l > m:
                    break
                if hit[s * MAX_WORD + l - 1]:
                    for k in range(s, s + l - 1):   # the gaps inside c[s:s+l]
                        if l > o[k * N_LENGTHS + 2]:
                            o[k * N_LENGTHS + 2] = <uint8_t>l
