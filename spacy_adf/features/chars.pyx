# cython: language_level=3
"""Character features for word segmentation (Sun, Wang and Li 2012; the ADF
paper, section 4.2), hashed in one nogil pass per sequence of 32-bit unit
codes: one 64-bit value per template and position (0 = off). The lexicon and
its folds: docs/components.md, "Word segmentation"; fold -1 sees every word.
"""
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t

import numpy

from cymem.cymem cimport Pool
from murmurhash.mrmr cimport hash64
from preshed.maps cimport MapStruct, PreshMap, map_get

# MAX_FORCED, MAX_WORD, BASE_TEMPLATES and the featurizer's fields: chars.pxd
CLASS_NAMES = ("other", "digit", "latin", "han", "hiragana", "katakana",
               "han_numeral", "punct", "space", "symbol", "token")

cdef enum:
    MAX_KEY_UNITS = 64  # longer words go to Doc as str

cdef uint32_t UNIT_CODE_BASE = 0x200000  # codes at or above: hashed multi-char tokens


cdef inline uint64_t fmix(uint64_t h) nogil:
    # MurmurHash3's finalizer; kernels/subset_keys.mix64 is splitmix64's (other constants, other hashes)
    h ^= h >> 33
    h *= 0xff51afd7ed558ccdULL
    h ^= h >> 33
    h *= 0xc4ceb9fe1a85ec53ULL
    h ^= h >> 33
    return h


cdef inline uint64_t mix(uint64_t h, uint64_t v) nogil:
    return fmix(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)))


cdef inline uint64_t out_code(int64_t pos, int64_t n) nogil:
    # Sentinels for positions before/after the sequence (distinct per distance).
    if pos < 0:
        return 0x110000 + <uint64_t>(-pos)
    return 0x110100 + <uint64_t>(pos - n + 1)


cdef inline int char_class(uint32_t c) nogil:
    if c >= UNIT_CODE_BASE:
        return 10
    if (0x30 <= c <= 0x39) or (0xFF10 <= c <= 0xFF19):
        return 1
    if (0x41 <= c <= 0x5A) or (0x61 <= c <= 0x7A) or (0xFF21 <= c <= 0xFF3A) \
            or (0xFF41 <= c <= 0xFF5A) or (0xC0 <= c <= 0x24F and c != 0xD7 and c != 0xF7):
        return 2
    if c == 0x3007 or c == 0x4E00 or c == 0x4E8C or c == 0x4E09 or c == 0x56DB \
            or c == 0x4E94 or c == 0x516D or c == 0x4E03 or c == 0x516B or c == 0x4E5D \
            or c == 0x5341 or c == 0x767E or c == 0x5343 or c == 0x4E07 or c == 0x4EBF \
            or c == 0x5146 or c == 0x96F6:
        return 6
    if (0x4E00 <= c <= 0x9FFF) or (0x3400 <= c <= 0x4DBF) or (0xF900 <= c <= 0xFAFF) \
            or (0x20000 <= c <= 0x2FFFF) or c == 0x3005:
        return 3
    if 0x3040 <= c <= 0x309F:
        return 4
    if (0x30A0 <= c <= 0x30FF) or (0x31F0 <= c <= 0x31FF) or (0xFF66 <= c <= 0xFF9F):
        return 5
    if c == 0x20 or (0x09 <= c <= 0x0D) or c == 0x3000 or c == 0xA0 or (0x2000 <= c <= 0x200A) \
            or c == 0x85 or c == 0x1680 or c == 0x2028 or c == 0x2029 or c == 0x202F or c == 0x205F \
            or (0x1C <= c <= 0x1F):
        return 8
    if (0x21 <= c <= 0x2F) or (0x3A <= c <= 0x40) or (0x5B <= c <= 0x60) or (0x7B <= c <= 0x7E) \
            or (0x3001 <= c <= 0x3003) or (0x3008 <= c <= 0x3011) or (0x3014 <= c <= 0x301F) \
            or (0xFF01 <= c <= 0xFF0F) or (0xFF1A <= c <= 0xFF20) or (0xFF3B <= c <= 0xFF40) \
            or (0xFF5B <= c <= 0xFF65) or (0x2010 <= c <= 0x2027) or (0x2030 <= c <= 0x205E) \
            or (0xA1 <= c <= 0xBF) or c == 0x30FB:
        return 7
    if (0x2100 <= c <= 0x2BFF) or (0x1F000 <= c <= 0x1FAFF) or (0xFE00 <= c <= 0xFE0F) or c == 0x200D:
        return 9
    return 0


def char_classes(codes):
    """Class id (index into CLASS_NAMES) of every code: a test and debugging aid."""
    cdef const uint32_t[::1] c = numpy.ascontiguousarray(codes, dtype=numpy.uint32)
    out = numpy.zeros(c.shape[0], dtype=numpy.int32)
    cdef int32_t[::1] o = out
    cdef Py_ssize_t i
    for i in range(c.shape[0]):
        o[i] = char_class(c[i])
    return out


cdef class CharFeaturizer:
    """Hashes the segmentation templates of code sequences; owns the lexicon."""

    def __init__(self, int min_word=2, int max_word=6, bint word_features=True, bint char_trigrams=False):
        if not (2 <= min_word <= max_word <= MAX_WORD):
            raise ValueError(
                f"dictionary word lengths must satisfy 2 <= min_word <= max_word <= {MAX_WORD}, "
                f"got min_word={min_word}, max_word={max_word}")
        self.mem = Pool()
        self.lexicon = PreshMap()
        self.min_word = min_word
        self.max_word = max_word
        self.word_features = word_features
        self.char_trigrams = char_trigrams
        self.n_templates = (BASE_TEMPLATES + (2 * (max_word - min_word + 1) if word_features else 0)
                            + (TRIGRAM_TEMPLATES if char_trigrams else 0))
        self.fold_of = {}
        self.forced = PreshMap()
        self.forced_prefixes = PreshMap()
        self.max_forced = 0
        self.seeds = <uint64_t*>self.mem.alloc(self.n_templates, sizeof(uint64_t))
        cdef int j
        for j in range(self.n_templates):
            self.seeds[j] = fmix(0x5eed0000ULL + <uint64_t>j * 0x10001ULL)

    def __len__(self):
        return len(self.fold_of)

    def __reduce__(self):
        return (_rebuild_featurizer, (self.min_word, self.max_word, self.word_features, dict(self.fold_of),
                                      self.char_trigrams))

    def add_word(self, str word, int fold=-1):
        """Add a lexicon word; fold >= 0 hides it from that training fold (a
        word of two folds is always visible). True if its length can match."""
        if not word or any(ch.isspace() for ch in word):
            raise ValueError(f"lexicon words must be non-empty and contain no whitespace, got {word!r}")
        old = self.fold_of.get(word)
        new = fold if old is None or old == fold else -1
        self.fold_of[word] = new
        if not (self.min_word <= len(word) <= self.max_word):
            return False
        cdef const uint32_t[::1] c = text_codes(word)
        self.lexicon.set(word_key(&c[0], c.shape[0]), <void*><size_t>(1 if new < 0 else new + 2))
        return True

    def add_words(self, words, int fold=-1):
        return sum(bool(self.add_word(w, fold)) for w in words)

    def add_forced_word(self, str word):
        """A word kept whole where forward and backward longest matching agree."""
        if not 2 <= len(word) <= MAX_FORCED or any(ch.isspace() for ch in word):
            return False
        cdef const uint32_t[::1] c = text_codes(word)
        cdef uint64_t h = 0
        cdef Py_ssize_t i
        for i in range(c.shape[0]):
            h = mix(h, c[i])
            self.forced_prefixes.set(_lex_key(h, i + 1), <void*>1)
        self.forced.set(_lex_key(h, c.shape[0]), <void*>1)
        if c.shape[0] > self.max_forced:
            self.max_forced = <int>c.shape[0]
        return True

    def forced_boundaries(self, codes, bounds):
        """uint8 (start, inside) flags of the forced words forward and backward maximum matching agree on.
        Its prefix walk is shaped like `match_lexicon`'s but stops at the first unknown prefix and
        has no folds."""
        cdef const uint32_t[::1] c = numpy.ascontiguousarray(codes, dtype=numpy.uint32)
        cdef const int64_t[::1] b = numpy.ascontiguousarray(bounds, dtype=numpy.int64)
        cdef Py_ssize_t n = c.shape[0]
        start = numpy.zeros(n, dtype=numpy.uint8)
        inside = numpy.zeros(n, dtype=numpy.uint8)
        if self.max_forced == 0 or n == 0:
            return start, inside
        cdef int32_t[::1] f = numpy.zeros(n, dtype=numpy.int32)  # length of the FMM word starting at i
        cdef int32_t[::1] w = numpy.zeros(n, dtype=numpy.int32)  # length of the BMM word starting at i
        cdef uint64_t[::1] m = numpy.zeros(n, dtype=numpy.uint64)  # bit l-1: forced word of length l starts at i
        cdef unsigned char[::1] st = start
        cdef unsigned char[::1] ins = inside
        cdef Py_ssize_t k, i, l, a, e, best
        cdef uint64_t h
        cdef int maxl = self.max_forced
        with nogil:
            for k in range(b.shape[0] - 1):
                a = b[k]
                e = b[k + 1]
                for i in range(a, e):
                    h = 0
                    for l in range(1, maxl + 1):
                        if i + l > e:
                            break
                        h = mix(h, c[i + l - 1])
                        if self.forced_prefixes.get(_lex_key(h, l)) == NULL:
                            break
                        if l >= 2 and self.forced.get(_lex_key(h, l)) != NULL:
                            m[i] |= (<uint64_t>1) << (l - 1)
                i = a
                while i < e:          # forward: longest forced word starting at i
                    best = 1
                    for l in range(maxl, 1, -1):
                        if m[i] & ((<uint64_t>1) << (l - 1)):
                            best = l
                            break
                    f[i] = <int32_t>best
                    i += best
                i = e
                while i > a:          # backward: longest forced word ending at i
                    best = 1
                    for l in range(maxl, 1, -1):
                        if i - l >= a and m[i - l] & ((<uint64_t>1) << (l - 1)):
                            best = l
                            break
                    w[i - best] = <int32_t>best
                    i -= best
            for i in range(n):
                if f[i] >= 2 and f[i] == w[i]:
                    st[i] = 1
                    for l in range(1, f[i]):
                        ins[i + l] = 1
                    if i + f[i] < n:
                        st[i + f[i]] = 1
        return start, inside

    def hashes(self, codes, bounds=None, int fold=-1, mask=None):
        """uint64 (n, n_templates) feature hashes (0 = off) of the sequences
        codes[bounds[k]:bounds[k+1]]; rows where `mask` is 0 stay 0."""
        cdef const uint32_t[::1] c = numpy.ascontiguousarray(codes, dtype=numpy.uint32)
        cdef Py_ssize_t n = c.shape[0], k
        cdef const int64_t[::1] b = numpy.ascontiguousarray((0, n) if bounds is None else bounds, dtype=numpy.int64)
        check_bounds(b, n)
        out = numpy.zeros((n, self.n_templates), dtype=numpy.uint64)
        if n == 0:
            return out
        cdef uint64_t[:, ::1] o = out
        cdef uint64_t[::1] pre = numpy.zeros(n * MAX_WORD, dtype=numpy.uint64)
        cdef uint8_t_view hit = numpy.zeros(n * MAX_WORD, dtype=numpy.uint8)
        cdef int32_t[::1] cls = numpy.zeros(n, dtype=numpy.int32)
        cdef int32_t[:, ::1] lens = numpy.zeros((3, n), dtype=numpy.int32)
        if mask is None:
            mask = numpy.ones(n, dtype=numpy.uint8)
        cdef const unsigned char[::1] msk = numpy.ascontiguousarray(mask, dtype=numpy.uint8)
        if msk.shape[0] != n:
            raise ValueError("mask must have one entry per unit")
        with nogil:
            for k in range(b.shape[0] - 1):
                if b[k + 1] > b[k]:
                    self._fill(c, b[k], b[k + 1], fold, pre, hit, cls, lens, o, msk)
        return out

    cdef void _fill(self, const uint32_t[::1] c, Py_ssize_t a, Py_ssize_t e, int fold,
                    uint64_t[::1] pre, uint8_t_view hit, int32_t[::1] cls,
                    int32_t[:, ::1] lens, uint64_t[:, ::1] o,
                    const unsigned char[::1] msk) noexcept nogil:
        # positions are global (a <= i < e); the sequence is c[a:e]
        cdef Py_ssize_t i, s, l, j, k, t
        cdef int max_word = self.max_word, min_word = self.min_word
        cdef uint64_t* seeds = self.seeds
        cdef uint64_t u[5]
        cdef uint64_t ty[3]
        cdef int32_t le, lb, lm
        cdef uint64_t* row
        for i in range(a, e):
            cls[i] = char_class(c[i])
        match_lexicon(self.lexicon.c_map, &c[0], a, e, min_word, max_word, fold, &pre[0], &hit[0],
                      &lens[0, 0], &lens[1, 0], &lens[2, 0])
        for i in range(a, e):
            if not msk[i]:
                continue
            for k in range(5):
                j = i + k - 2
                u[k] = c[j] if a <= j < e else out_code(j - a, e - a)
            for k in range(3):
                j = i + k - 1
                ty[k] = <uint64_t>cls[j] if a <= j < e else <uint64_t>(20 + k)
            le = lens[0, i]
            lb = lens[1, i]
            lm = lens[2, i]
            row = &o[i, 0]
            t = 0
            for k in range(5):  # unigrams c[-2..2]
                t = _put(row, t, _nz(mix(seeds[t], u[k])))
            for k in range(4):  # bigrams c[-2]c[-1] .. c[1]c[2]
                t = _put(row, t, _nz(mix(mix(seeds[t], u[k]), u[k + 1])))
            t = _put(row, t, _nz(mix(mix(seeds[t], u[1]), u[3])))
            for j in range(i - 2, i + 2):  # identical characters: x_j == x_{j+1}, j = i-2..i+1
                t = _put(row, t, _nz(seeds[t]) if (j >= a and j + 1 < e and c[j] == c[j + 1]) else 0)
            for j in range(i - 3, i + 2):  # x_j == x_{j+2}, j = i-3..i+1
                t = _put(row, t, _nz(seeds[t]) if (j >= a and j + 2 < e and c[j] == c[j + 2]) else 0)
            t = _put(row, t, _nz(mix(seeds[t], ty[1])))
            t = _put(row, t, _nz(mix(mix(mix(seeds[t], ty[0]), ty[1]), ty[2])))
            # generic lexicon features: longest visible word ending / starting
            # at i or covering i inside; they carry user-dictionary words
            t = _put(row, t, _nz(mix(seeds[t], le)) if le else 0)
            t = _put(row, t, _nz(mix(seeds[t], lb)) if lb else 0)
            t = _put(row, t, _nz(mix(seeds[t], lm)) if lm else 0)
            t = _put(row, t, _nz(mix(mix(seeds[t], le), u[2])) if le else 0)
            t = _put(row, t, _nz(mix(mix(seeds[t], lb), u[2])) if lb else 0)
            t = _put(row, t, _nz(mix(mix(seeds[t], le), lb)) if (le or lb) else 0)
            t = _put(row, t, _nz(mix(mix(seeds[t], ty[1]), u[1])))
            t = _put(row, t, _nz(mix(mix(seeds[t], ty[1]), u[3])))
            t = _put(row, t, _nz(mix(mix(seeds[t], lm), u[2])) if lm else 0)
            if self.word_features:
                # the lexicon word itself, ending at i / starting at i
                for l in range(min_word, max_word + 1):
                    s = i - l + 1
                    t = _put(row, t, _nz(mix(seeds[t], pre[s * MAX_WORD + l - 1]))
                             if s >= a and hit[s * MAX_WORD + l - 1] else 0)
                for l in range(min_word, max_word + 1):
                    t = _put(row, t, _nz(mix(seeds[t], pre[i * MAX_WORD + l - 1]))
                             if i + l <= e and hit[i * MAX_WORD + l - 1] else 0)
            if self.char_trigrams:
                # after the others, so models without them keep their columns
                for k in range(3):
                    t = _put(row, t, _nz(mix(mix(mix(seeds[t], u[k]), u[k + 1]), u[k + 2])))
                t = _put(row, t, _nz(mix(mix(seeds[t], u[0]), u[2])))
                t = _put(row, t, _nz(mix(mix(seeds[t], u[2]), u[4])))


cdef inline Py_ssize_t _put(uint64_t* row, Py_ssize_t t, uint64_t h) noexcept nogil:
    """row[t] = h (template t's value; 0: off); returns t + 1, the next template."""
    row[t] = h
    return t + 1


cdef inline uint64_t _nz(uint64_t h) nogil:
    # 0 means "off" and 1 is reserved by preshed
    return h + 2 if h < 2 else h


cdef inline uint64_t _lex_key(uint64_t h, Py_ssize_t length) nogil:
    return _nz(fmix(h + <uint64_t>length * 0x9e3779b97f4a7c15ULL))


cdef uint64_t word_key(const uint32_t* c, Py_ssize_t n) noexcept nogil:
    """The lexicon key of the word c[0:n]: what `match_lexicon` looks up."""
    cdef uint64_t h = 0
    cdef Py_ssize_t i
    for i in range(n):
        h = mix(h, c[i])
    return _lex_key(h, n)


cdef void match_lexicon(const MapStruct* lexicon, const uint32_t* c, Py_ssize_t a, Py_ssize_t e,
                        int min_word, int max_word, int fold, uint64_t* pre, unsigned char* hit,
                        int32_t* ends, int32_t* begins, int32_t* inside) noexcept nogil:
    """The lexicon words in c[a:e]: pre[s * MAX_WORD + l - 1] = the hash of c[s:s+l], hit[same] = a word
    visible to `fold`; ends / begins / inside[i]: the longest word ending at / starting at / covering i.
    The caller zeroes hit, ends, begins and inside."""
    cdef Py_ssize_t s, l, k
    cdef uint64_t h
    cdef size_t val
    for s in range(a, e):
        h = 0
        for l in range(1, max_word + 1):
            if s + l > e:
                break
            h = mix(h, c[s + l - 1])
            pre[s * MAX_WORD + l - 1] = h
            if l >= min_word:
                val = <size_t>map_get(lexicon, _lex_key(h, l))
                if val == 1 or (val >= 2 and <int>(val - 2) != fold):
                    hit[s * MAX_WORD + l - 1] = 1
                    if l > begins[s]:
                        begins[s] = <int32_t>l
                    if l > ends[s + l - 1]:
                        ends[s + l - 1] = <int32_t>l
                    for k in range(s + 1, s + l - 1):
                        if l > inside[k]:
                            inside[k] = <int32_t>l


def _rebuild_featurizer(min_word, max_word, word_features, fold_of, char_trigrams=False):
    f = CharFeaturizer(min_word, max_word, word_features, char_trigrams)
    for word, fold in fold_of.items():
        f.add_word(word, fold)
    return f


cdef int check_bounds(const int64_t[::1] b, Py_ssize_t n, str what="bounds") except -1:
    cdef Py_ssize_t k, nb = b.shape[0]
    if nb < 1 or b[0] != 0 or b[nb - 1] != n:
        raise ValueError(f"{what} must run from 0 to the number of units ({n})")
    for k in range(nb - 1):
        if b[k + 1] < b[k]:
            raise ValueError(f"{what} must be non-decreasing")
    return 0


def text_codes(str text):
    """Code points of a string as uint32."""
    return numpy.frombuffer(text.encode("utf-32-le"), dtype=numpy.uint32)


def unit_code(str token):
    """Code of one token: its code point, or a hashed code for longer tokens."""
    if len(token) == 1:
        return ord(token)
    cdef uint64_t h = 0
    for ch in token:
        h = mix(h, ord(ch))
    return UNIT_CODE_BASE + <uint32_t>(h % <uint64_t>(0xFFFFFFFF - UNIT_CODE_BASE))


def texts_to_units(list texts):
    """(codes uint32, char position of each unit, non-whitespace run bounds, unit offsets of the texts)."""
    cdef Py_ssize_t total = 0, k, n_texts = len(texts)
    for text in texts:
        if not isinstance(text, str):
            raise TypeError(f"texts must be str, got {type(text).__name__}")
        total += len(<str>text)
    codes = numpy.empty(total, dtype=numpy.uint32)
    pos = numpy.empty(total, dtype=numpy.int64)
    bounds = numpy.empty(total + 1, dtype=numpy.int64)
    offsets = numpy.empty(n_texts + 1, dtype=numpy.int64)
    cdef uint32_t[::1] c = codes
    cdef int64_t[::1] p = pos
    cdef int64_t[::1] b = bounds
    cdef int64_t[::1] o = offsets
    cdef Py_ssize_t u = 0, nb = 0, i
    cdef Py_UCS4 ch
    cdef bint in_run
    cdef str s
    o[0] = 0
    for k in range(n_texts):
        s = texts[k]
        in_run = False
        i = 0
        for ch in s:
            if char_class(<uint32_t>ch) == 8:
                in_run = False
            else:
                if not in_run:
                    b[nb] = u
                    nb += 1
                    in_run = True
                c[u] = <uint32_t>ch
                p[u] = i
                u += 1
            i += 1
        o[k + 1] = u
    b[nb] = u
    nb += 1
    return codes[:u], pos[:u], bounds[:nb], offsets


def words_from_starts(str text, const int64_t[::1] pos, const unsigned char[::1] starts,
                      const uint32_t[::1] codes=None, vocab=None):
    """(words, spaces) for a Doc from the word-start flags of the units at text positions `pos`
    (whitespace: `whitespace_gap`). Given the units' code points and a Vocab, a non-ASCII word with a
    lexeme comes as its id, which Doc() takes without hashing (ASCII may be a symbol name: str)."""
    cdef list words = [], spaces = []
    cdef Py_ssize_t n = pos.shape[0], k = 0, e, prev = 0, a, z, i, m
    cdef unsigned char buf[4 * MAX_KEY_UNITS]
    cdef uint32_t ch, high
    cdef bint keyed = codes is not None and vocab is not None
    if keyed and codes.shape[0] != n:
        raise ValueError("codes must have one entry per unit")
    while k < n:
        e = k + 1
        while e < n and not starts[e]:
            e += 1
        a = pos[k]
        z = pos[e - 1] + 1
        if a > prev:
            whitespace_gap(text[prev:a], words, spaces)
        word = None
        if keyed and e - k <= MAX_KEY_UNITS and z - a == e - k:  # no whitespace inside
            m = 0
            high = 0
            for i in range(k, e):
                ch = codes[i]
                high |= ch
                m += _utf8_put(ch, buf + m)
            if high >= 0x80:
                key = hash64(buf, <int>m, 1)
                if key in vocab:
                    word = key
        words.append(text[a:z] if word is None else word)
        spaces.append(False)
        prev = z
        k = e
    if prev < len(text):
        whitespace_gap(text[prev:], words, spaces)
    return words, spaces


cdef inline Py_ssize_t _utf8_put(uint32_t ch, unsigned char* out) noexcept nogil:
    """UTF-8 bytes of one code point into out; returns their number."""
    cdef Py_ssize_t n = 1 if ch < 0x80 else 2 if ch < 0x800 else 3 if ch < 0x10000 else 4, i
    for i in range(n - 1, 0, -1):  # continuation bytes, last first
        out[i] = <unsigned char>(0x80 | (ch & 0x3F))
        ch >>= 6
    out[0] = <unsigned char>ch if n == 1 else <unsigned char>((0xFF00 >> n) | ch)  # lead byte
    return n


cpdef void whitespace_gap(str gap, list words, list spaces):
    """Add a stretch of whitespace after `words` as spaCy's tokenizer does (docs/components.md)."""
    cdef Py_ssize_t last = len(words) - 1
    if gap[0] == u" " and last >= 0 and not spaces[last] and not (
            isinstance(words[last], str) and (<str>words[last]).isspace()):
        spaces[last] = True
        gap = gap[1:]
    if gap:
        words.append(gap)
        spaces.append(False)


# Where no word may start (`unit_glue`; docs/components.md, "Unit rules").
# One byte per code point below 0x20000 (plane 14 is tested inline): bit 7 =
# extends the previous character, bits 0-2 = run class. Built from
# unicodedata at import, so it follows the running Python's Unicode version.
cdef enum:
    GLUE_EXTEND = 0x80
    RUN_DIGIT = 1
    RUN_LATIN = 2
    RUN_ARABIC = 3
    RUN_HEBREW = 4
    GLUE_TABLE_SIZE = 0x20000

def _build_glue_table():
    import unicodedata

    table = numpy.zeros(GLUE_TABLE_SIZE, dtype=numpy.uint8)
    for cp in range(GLUE_TABLE_SIZE):
        cat = unicodedata.category(chr(cp))
        if cat[0] == "M":
            table[cp] = GLUE_EXTEND
        elif cat == "Nd":
            table[cp] = RUN_DIGIT
        elif cat[0] == "L":
            if char_class(cp) == 2:
                table[cp] = RUN_LATIN
            elif (0x0620 <= cp <= 0x06FF) or (0x0750 <= cp <= 0x077F) or (0x0870 <= cp <= 0x08FF) \
                    or (0xFB50 <= cp <= 0xFDFF) or (0xFE70 <= cp <= 0xFEFF):
                table[cp] = RUN_ARABIC
            elif (0x05D0 <= cp <= 0x05F2) or (0xFB1D <= cp <= 0xFB4F):
                table[cp] = RUN_HEBREW
    # Hebrew geresh / gershayim are written inside words (abbreviations).
    table[0x05F3] = table[0x05F4] = RUN_HEBREW
    # Not marks by category but grapheme extenders all the same: ZWNJ, ZWJ,
    # half-width katakana voicing marks, emoji skin-tone modifiers.
    for cp in (0x200C, 0x200D, 0xFF9E, 0xFF9F):
        table[cp] = GLUE_EXTEND
    table[0x1F3FB:0x1F400] = GLUE_EXTEND
    return table


cdef unsigned char[::1] _GLUE = _build_glue_table()


cdef inline unsigned char glue_info(uint32_t c) nogil:
    if c < GLUE_TABLE_SIZE:
        return _GLUE[c]
    # plane 14: tag characters (emoji flag sequences), variation selectors 17-256
    if (0xE0020 <= c <= 0xE007F) or (0xE0100 <= c <= 0xE01EF):
        return GLUE_EXTEND
    return 0  # other planes and hashed multi-character units: no rule


def unit_glue(codes, bounds):
    """uint8 flag per unit: 1 where no word may start (see above); a run's
    first unit is never glued."""
    cdef const uint32_t[::1] c = numpy.ascontiguousarray(codes, dtype=numpy.uint32)
    cdef Py_ssize_t n = c.shape[0]
    cdef const int64_t[::1] b = numpy.ascontiguousarray(bounds, dtype=numpy.int64)
    check_bounds(b, n)
    cdef Py_ssize_t nb = b.shape[0]
    out = numpy.zeros(n, dtype=numpy.uint8)
    cdef unsigned char[::1] o = out
    if n:
        with nogil:
            glue_into(&c[0], &b[0], nb, &o[0])
    return out


cdef void glue_into(const uint32_t* c, const int64_t* b, Py_ssize_t nb,
                    unsigned char* o) noexcept nogil:
    cdef Py_ssize_t k, i
    cdef unsigned char g, run, prev_run
    cdef bint after_zwj, regional
    cdef int64_t n_regional
    for k in range(nb - 1):
        prev_run = 0
        after_zwj = False
        n_regional = 0
        for i in range(b[k], b[k + 1]):
            g = glue_info(c[i])
            regional = 0x1F1E6 <= c[i] <= 0x1F1FF
            if i > b[k]:
                if (g & GLUE_EXTEND) or after_zwj:
                    o[i] = 1
                elif regional and n_regional % 2 == 1:
                    o[i] = 1  # the second flag letter of a pair
                else:
                    run = g & 0x07
                    if run != 0 and run == prev_run:
                        o[i] = 1
            if not (g & GLUE_EXTEND):
                prev_run = g & 0x07  # marks keep the run of their base
            after_zwj = c[i] == 0x200D
            n_regional = n_regional + 1 if regional else 0
