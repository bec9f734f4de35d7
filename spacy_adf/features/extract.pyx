# cython: language_level=3
"""Template hashing and feature-id lookup in nogil loops. A template hashes
the values (64-bit attribute hashes) of its (column, offset) cells with its
seed; a value of 0 switches it off; outside the sequence: offset sentinels.
"""
from libc.stdint cimport int32_t, int64_t, uint16_t, uint64_t
from libc.stdlib cimport qsort

import numpy

from cpython.mem cimport PyMem_Free, PyMem_Realloc
from murmurhash.mrmr cimport hash64
from preshed.maps cimport MapStruct, PreshMap, map_get

from ..core.params cimport prefetch
from .chars cimport check_bounds

cdef enum:
    MAX_CELLS = 16


cdef inline void* _table_get(const MapStruct* m, uint64_t key) noexcept nogil:
    """map_get(m, key) with preshed's linear probe inlined: the call per probe
    into preshed's module took about a tenth of the Weibo segmenter's decoding
    (74 -> 66 ms over the dev file). A FeatureTable holds neither 0 nor 1
    (preshed's reserved keys), so they find an empty cell: not found."""
    cdef uint64_t mask = m.length - 1, i = key & mask
    while m.cells[i].key != 0 and m.cells[i].key != key:
        i = (i + 1) & mask
    return m.cells[i].value


cdef inline void _prefetch_row(const MapStruct* m, const uint64_t* hs, Py_ssize_t T) noexcept nogil:
    """Start loading the table cells of one row of hashes (0: off)."""
    cdef Py_ssize_t j
    for j in range(T):
        if hs[j] != 0:
            prefetch(&m.cells[hs[j] & (m.length - 1)])


cdef inline Py_ssize_t _probe_row(const MapStruct* m, const uint64_t* hs, Py_ssize_t T, int32_t* a,
                                  Py_ssize_t nnz) noexcept nogil:
    """Append the ids of one row's known hashes to a[nnz:]; returns the new nnz."""
    cdef Py_ssize_t j
    cdef size_t v
    for j in range(T):
        if hs[j] != 0:
            v = <size_t>_table_get(m, hs[j])
            if v != 0:
                a[nnz] = <int32_t>(v - 1)
                nnz += 1
    return nnz


cdef int _cmp_u16(const void* x, const void* y) noexcept nogil:
    return (<const uint16_t*>x)[0] - (<const uint16_t*>y)[0]


cdef inline void _sort_u16(uint16_t* v, Py_ssize_t n) noexcept nogil:
    """Ascending; insertion sort for the short runs most buckets are (kernels/idsets.sort_unique
    sorts int32 ids and drops duplicates: another type, another job)."""
    cdef Py_ssize_t i, j
    cdef uint16_t x
    if n > 32:
        qsort(v, n, sizeof(uint16_t), _cmp_u16)
        return
    for i in range(1, n):
        x = v[i]
        j = i - 1
        while j >= 0 and v[j] > x:
            v[j + 1] = v[j]
            j -= 1
        v[j + 1] = x


cdef inline void _bucket_codes(const MapStruct* m, const uint64_t[:, ::1] hashes, const int64_t[::1] y,
                        const int64_t[::1] yp, int64_t L, const unsigned char[::1] edge_mask, bint state_observed,
                        bint edge_observed, int64_t* pos, uint16_t* out, unsigned char* edge_attrs) noexcept nogil:
    """`observed_blocks`' two passes: with out NULL, count each attribute's codes; else write them."""
    cdef Py_ssize_t t, j
    cdef int64_t a
    for t in range(hashes.shape[0]):
        for j in range(hashes.shape[1]):
            if hashes[t, j] == 0:
                continue
            a = <int64_t>(<size_t>map_get(m, hashes[t, j])) - 1
            if a < 0:  # not in the table
                continue
            if state_observed:
                if out != NULL:
                    out[pos[a]] = <uint16_t>y[t]
                pos[a] += 1
            if edge_mask[j]:
                edge_attrs[a] = 1
                if edge_observed and yp[t] >= 0:
                    if out != NULL:
                        out[pos[a]] = <uint16_t>(L + yp[t] * L + y[t])
                    pos[a] += 1


cdef int _check_templates(Py_ssize_t n_cols, const int32_t[:, ::1] tcols,
                          const int32_t[::1] tlen, const uint64_t[::1] tseed) except -1:
    cdef Py_ssize_t j, c, T = tlen.shape[0]
    if tseed.shape[0] != T or tcols.shape[0] != T:
        raise ValueError("template arrays do not match")
    for j in range(T):
        if tlen[j] > MAX_CELLS or tlen[j] < 1:
            raise ValueError(f"a template has {tlen[j]} cells; 1 to {MAX_CELLS} are allowed")
        if tlen[j] > tcols.shape[1]:
            raise ValueError("template cell arrays are too narrow")
        for c in range(tlen[j]):
            if tcols[j, c] < 0 or tcols[j, c] >= n_cols:
                raise ValueError("template column out of range")
    return 0


cdef inline uint64_t _template_hash(const uint64_t* cols, Py_ssize_t n_cols, Py_ssize_t n,
                                    Py_ssize_t t, const int32_t* tcol, const int32_t* toff,
                                    int32_t n_cells, uint64_t seed) noexcept nogil:
    """The hash of one template at position t of a sequence of n rows from `cols` (0: off)."""
    cdef uint64_t buf[MAX_CELLS]
    cdef Py_ssize_t c, pos
    cdef uint64_t v, h
    for c in range(n_cells):
        pos = t + toff[c]
        if pos < 0:
            v = <uint64_t>(2 * (-pos) + 2)          # BOS sentinel
        elif pos >= n:
            v = <uint64_t>(2 * (pos - n + 1) + 3)   # EOS sentinel
        else:
            v = cols[pos * n_cols + tcol[c]]
            if v == 0:
                return 0
        buf[c] = v
    h = hash64(buf, <int>(n_cells * sizeof(uint64_t)), seed)
    if h < 2:  # 0 means absent; 1 is reserved by preshed
        h += 2
    return h


def template_hashes(const uint64_t[:, ::1] cols, const int32_t[:, ::1] tcols,
                    const int32_t[:, ::1] toffs, const int32_t[::1] tlen,
                    const uint64_t[::1] tseed, seq_starts=None):
    """uint64 (n, n_templates) hashes of every template at every position of
    one sequence, or of the sequences seq_starts[i]:seq_starts[i+1]."""
    cdef Py_ssize_t n = cols.shape[0], n_cols = cols.shape[1], T = tlen.shape[0]
    out = numpy.zeros((n, T), dtype=numpy.uint64)
    cdef uint64_t[:, ::1] o = out
    cdef Py_ssize_t t, j, i, s0, length
    _check_templates(n_cols, tcols, tlen, tseed)
    if seq_starts is None:
        seq_starts = numpy.array([0, n], dtype=numpy.int64)
    cdef const int64_t[::1] ss = numpy.ascontiguousarray(seq_starts, dtype=numpy.int64)
    check_bounds(ss, n, "seq_starts")
    if n == 0:
        return out
    with nogil:
        for i in range(ss.shape[0] - 1):
            s0 = ss[i]
            length = ss[i + 1] - s0
            for t in range(length):
                for j in range(T):
                    o[s0 + t, j] = _template_hash(&cols[s0, 0], n_cols, length, t, &tcols[j, 0],
                                                  &toffs[j, 0], tlen[j], tseed[j])
    return out


cdef class FeatureTable:
    """Feature dictionary: the 64-bit template hashes seen in training -> dense attribute ids."""

    def __init__(self, keys=None):
        self.map = PreshMap()
        keys = numpy.zeros(0, dtype=numpy.uint64) if keys is None else keys
        self.keys = numpy.ascontiguousarray(keys, dtype=numpy.uint64)
        cdef const uint64_t[::1] k = self.keys
        cdef Py_ssize_t i
        for i in range(k.shape[0]):
            if k[i] < 2:
                raise ValueError("feature keys 0 and 1 are reserved")
            if self.map.get(k[i]) != NULL:
                raise ValueError("duplicate feature key in the feature table")
            self.map.set(k[i], <void*><size_t>(i + 1))

    def __len__(self):
        return self.keys.shape[0]

    def __reduce__(self):
        return (FeatureTable, (self.keys,))

    def get(self, uint64_t key):
        cdef size_t v = <size_t>self.map.get(key)
        return <int64_t>v - 1

    def observed_codes(self, const uint64_t[:, ::1] hashes, const int64_t[::1] y,
                       const int64_t[::1] yp, int n_labels, const unsigned char[::1] edge_mask,
                       bint state_observed, bint edge_observed):
        """`observed_blocks` as sorted attr * n_codes + code (code = label for
        states, n_labels + prev * n_labels + label for rich edges)."""
        counts, values, edge_attrs = self.observed_blocks(hashes, y, yp, n_labels, edge_mask,
                                                          state_observed, edge_observed)
        cdef int64_t n_codes = n_labels + n_labels * n_labels
        owner = numpy.repeat(numpy.arange(len(counts), dtype=numpy.int64), counts)
        return owner * n_codes + values.astype(numpy.int64), edge_attrs

    def observed_blocks(self, const uint64_t[:, ::1] hashes, const int64_t[::1] y,
                        const int64_t[::1] yp, int n_labels, const unsigned char[::1] edge_mask,
                        bint state_observed, bint edge_observed):
        """The weight entries a corpus touches: (counts int64 per attribute, codes uint16: each
        one's distinct codes ascending, edge_attrs uint8), bucketed by attribute, 2 bytes a code."""
        cdef Py_ssize_t n = hashes.shape[0], T = hashes.shape[1], t, j
        cdef int64_t L = n_labels, n_codes = L + L * L, a, A = len(self), i, k, total
        if T != edge_mask.shape[0] or y.shape[0] != n or yp.shape[0] != n:
            raise ValueError("observed_codes: shapes do not match")
        if n_codes > 65535:
            raise ValueError(f"observed_codes: {n_labels} labels give more than 65535 codes")
        edge_attrs = numpy.zeros(A, dtype=numpy.uint8)
        starts = numpy.zeros(A + 1, dtype=numpy.int64)
        cdef unsigned char[::1] ea = edge_attrs
        cdef int64_t[::1] st = starts
        cdef MapStruct* m = self.map.c_map
        with nogil:
            _bucket_codes(m, hashes, y, yp, L, edge_mask, state_observed, edge_observed, &st[1], NULL, &ea[0])
            for a in range(A):
                st[a + 1] += st[a]
        total = st[A]
        buf = numpy.empty(total, dtype=numpy.uint16)
        fill = starts[:A].copy()
        cdef uint16_t[::1] b = buf
        cdef int64_t[::1] f = fill
        if total:
            with nogil:
                _bucket_codes(m, hashes, y, yp, L, edge_mask, state_observed, edge_observed, &f[0], &b[0], &ea[0])
        del fill
        # the distinct codes of each bucket, moved to the front of the array
        # (k <= st[a]: they never overwrite a code not read yet)
        counts = numpy.zeros(A, dtype=numpy.int64)
        cdef unsigned char[::1] sn = numpy.zeros(n_codes, dtype=numpy.uint8)
        cdef int64_t[::1] c = counts
        cdef int64_t w
        k = 0
        with nogil:
            for a in range(A):
                w = k
                for i in range(st[a], st[a + 1]):
                    if not sn[b[i]]:
                        sn[b[i]] = 1
                        b[w] = b[i]
                        w += 1
                for i in range(k, w):
                    sn[b[i]] = 0
                _sort_u16(&b[0] + k, w - k)
                c[a] = w - k
                k = w
        del b, sn, c, st
        buf.resize((k,), refcheck=False)
        return counts, buf, edge_attrs

    def lookup(self, const uint64_t[:, ::1] hashes):
        """Known features per position as CSR: (ptr int64 (n+1), attrs int32)."""
        cdef Py_ssize_t n = hashes.shape[0], T = hashes.shape[1]
        ptr = numpy.zeros(n + 1, dtype=numpy.int64)
        attrs = numpy.empty(n * T, dtype=numpy.int32)
        cdef Py_ssize_t nnz = self._lookup_into(hashes, ptr, attrs)
        # shrunk in place (realloc), not copied: a training build's lookup is in memory once
        attrs.resize((nnz,), refcheck=False)
        return ptr, attrs

    cdef Py_ssize_t _lookup_into(self, const uint64_t[:, ::1] hashes, int64_t[::1] p,
                                 int32_t[::1] a) except -1:
        cdef Py_ssize_t n = hashes.shape[0], T = hashes.shape[1], t, nnz = 0
        cdef const MapStruct* m = self.map.c_map
        if T == 0:
            p[:] = 0
            return 0
        with nogil:
            for t in range(n):
                if t + 1 < n:  # the next row's cells load while this row is probed
                    _prefetch_row(m, &hashes[t + 1, 0], T)
                nnz = _probe_row(m, &hashes[t, 0], T, &a[0], nnz)
                p[t + 1] = nnz
        return nnz

    def lookup_columns(self, const uint64_t[:, ::1] cols, const int64_t[::1] seq_starts,
                       const int32_t[:, ::1] tcols, const int32_t[:, ::1] toffs,
                       const int32_t[::1] tlen, const uint64_t[::1] tseed):
        """`lookup` of `template_hashes(...)` in one pass, table cells prefetched."""
        cdef Py_ssize_t N = cols.shape[0], n_cols = cols.shape[1], T = tlen.shape[0]
        cdef Py_ssize_t n_seq = seq_starts.shape[0] - 1, i, t, j, n, s0, nnz = 0
        _check_templates(n_cols, tcols, tlen, tseed)
        check_bounds(seq_starts, N, "seq_starts")
        ptr = numpy.zeros(N + 1, dtype=numpy.int64)
        attrs = numpy.empty(N * T, dtype=numpy.int32)
        if N == 0 or T == 0:
            return ptr, attrs[:0].copy()
        cdef int64_t[::1] p = ptr
        cdef int32_t[::1] a = attrs
        hbuf = numpy.empty(T, dtype=numpy.uint64)
        cdef uint64_t[::1] hb = hbuf
        cdef const MapStruct* m = self.map.c_map
        cdef const uint64_t* base = &cols[0, 0]
        with nogil:
            for i in range(n_seq):
                s0 = seq_starts[i]
                n = seq_starts[i + 1] - s0
                for t in range(n):
                    for j in range(T):
                        hb[j] = _template_hash(base + s0 * n_cols, n_cols, n, t, &tcols[j, 0],
                                               &toffs[j, 0], tlen[j], tseed[j])
                    _prefetch_row(m, &hb[0], T)
                    nnz = _probe_row(m, &hb[0], T, &a[0], nnz)
                    p[s0 + t + 1] = nnz
        return ptr, attrs[:nnz].copy()


def count_keys(const uint64_t[:, ::1] hashes):
    """Distinct non-zero values of a hash matrix and their counts, in one hash-table pass."""
    cdef PreshMap counts = PreshMap()
    cdef Py_ssize_t n = hashes.shape[0], T = hashes.shape[1], t, j
    cdef uint64_t h
    cdef size_t c
    for t in range(n):
        for j in range(T):
            h = hashes[t, j]
            if h == 0:
                continue
            c = <size_t>counts.get(h)
            counts.set(h, <void*>(c + 1))
    keys = numpy.fromiter((k for k, _ in counts.items()), dtype=numpy.uint64, count=len(counts))
    vals = numpy.fromiter((<size_t>v for _, v in counts.items()), dtype=numpy.int64, count=len(counts))
    return keys, vals


cdef class WordCache:
    """Word-derived column values: a row of `width` uint64 per ORTH, added once, gathered in C."""
    cdef PreshMap index          # orth -> row + 1
    cdef uint64_t* rows
    cdef readonly int width
    cdef readonly Py_ssize_t n_rows
    cdef readonly Py_ssize_t max_rows
    cdef Py_ssize_t cap

    def __cinit__(self, int width, Py_ssize_t max_rows=1_000_000):
        if width < 1:
            raise ValueError("a WordCache needs at least one column")
        self.index = PreshMap()  # rows NULL, n_rows and cap 0: a new object's C fields are zeroed
        self.width = width
        self.max_rows = max_rows

    def __dealloc__(self):
        PyMem_Free(self.rows)

    def __len__(self):
        return self.n_rows

    def __reduce__(self):
        # a cache: pickles empty
        return (WordCache, (self.width, self.max_rows))

    @property
    def full(self):
        return self.n_rows >= self.max_rows

    def add(self, uint64_t orth, values):
        """Store the row of `orth`, unless the cache is full or has it."""
        cdef const uint64_t[::1] vals = numpy.ascontiguousarray(values, dtype=numpy.uint64)
        cdef Py_ssize_t c, new_cap
        cdef void* grown
        if vals.shape[0] != self.width:
            raise ValueError(f"a WordCache row has {self.width} values, got {vals.shape[0]}")
        if self.n_rows >= self.max_rows or self.index.get(orth) != NULL:
            return
        if orth < 2:
            return  # keys 0 and 1 are reserved by preshed; such words are computed each time
        if self.n_rows == self.cap:
            new_cap = max(1024, 2 * self.cap)
            grown = PyMem_Realloc(self.rows, new_cap * self.width * sizeof(uint64_t))
            if grown == NULL:
                raise MemoryError()
            self.rows = <uint64_t*>grown
            self.cap = new_cap
        for c in range(self.width):
            self.rows[self.n_rows * self.width + c] = vals[c]
        self.n_rows += 1
        self.index.set(orth, <void*><size_t>self.n_rows)

    def gather(self, const uint64_t[::1] orths, uint64_t[:, ::1] out, const int32_t[::1] out_cols):
        """out[i, out_cols[c]] = value c of each cached word orths[i]; returns the other positions."""
        cdef Py_ssize_t n = orths.shape[0], i, c, n_miss = 0
        cdef size_t r
        cdef const uint64_t* row
        if out.shape[0] != n or out_cols.shape[0] != self.width:
            raise ValueError("gather: shapes do not match")
        for c in range(self.width):
            if out_cols[c] < 0 or out_cols[c] >= out.shape[1]:
                raise ValueError("gather: column out of range")
        missing = numpy.empty(n, dtype=numpy.int64)
        cdef int64_t[::1] miss = missing
        # (with the GIL: `add` may move the rows)
        for i in range(n):
            r = <size_t>self.index.get(orths[i]) if orths[i] >= 2 else 0
            if r == 0:
                miss[n_miss] = i
                n_miss += 1
                continue
            row = self.rows + (r - 1) * self.width
            for c in range(self.width):
                out[i, out_cols[c]] = row[c]
        return missing[:n_miss]


def layout_all_states(const int64_t[::1] counts, const uint16_t[::1] edge_codes, int n_labels):
    """(block_ptr int64, codes uint16) of the state_features = "all" layout:
    each attribute's block is the state codes 0..L-1, then its edge codes."""
    cdef Py_ssize_t A = counts.shape[0], a, i, k = 0, j = 0
    cdef int L = n_labels
    block_ptr = numpy.empty(A + 1, dtype=numpy.int64)
    cdef int64_t[::1] p = block_ptr
    p[0] = 0
    for a in range(A):
        p[a + 1] = p[a] + L + counts[a]
    if p[A] - <int64_t>A * L != edge_codes.shape[0]:
        raise ValueError("layout_all_states: counts do not match the edge codes")
    codes = numpy.empty(p[A], dtype=numpy.uint16)
    cdef uint16_t[::1] c = codes
    with nogil:
        for a in range(A):
            for i in range(L):
                c[k] = <uint16_t>i
                k += 1
            for i in range(counts[a]):
                c[k] = edge_codes[j]
                k += 1
                j += 1
    return block_ptr, codes
