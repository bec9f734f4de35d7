# cython: language_level=3
"""Template hashing and feature-id lookup in nogil loops.

A template is a conjunction of (column, offset) cells. For every position the
cell values (64-bit attribute hashes) are hashed together with a per-template
seed; a value of 0 means "absent" and switches the template off there.
Positions outside the sequence use a sentinel that encodes the offset.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t

import numpy

from murmurhash.mrmr cimport hash64
from preshed.maps cimport PreshMap

cdef enum:
    MAX_CELLS = 16


def template_hashes(const uint64_t[:, ::1] cols, const int32_t[:, ::1] tcols,
                    const int32_t[:, ::1] toffs, const int32_t[::1] tlen,
                    const uint64_t[::1] tseed):
    """Hash every template at every position: uint64 array (n, n_templates)."""
    cdef Py_ssize_t n = cols.shape[0], n_cols = cols.shape[1], T = tlen.shape[0]
    out = numpy.zeros((n, T), dtype=numpy.uint64)
    cdef uint64_t[:, ::1] o = out
    cdef uint64_t buf[MAX_CELLS]
    cdef Py_ssize_t t, j, c, pos
    cdef int32_t off
    cdef uint64_t v, h
    cdef bint absent
    for j in range(T):
        if tlen[j] > MAX_CELLS or tlen[j] < 1:
            raise ValueError(f"a template has {tlen[j]} cells; 1 to {MAX_CELLS} are allowed")
        for c in range(tlen[j]):
            if tcols[j, c] < 0 or tcols[j, c] >= n_cols:
                raise ValueError("template column out of range")
    with nogil:
        for t in range(n):
            for j in range(T):
                absent = False
                for c in range(tlen[j]):
                    off = toffs[j, c]
                    pos = t + off
                    if pos < 0:
                        v = <uint64_t>(2 * (-pos) + 2)          # BOS sentinel
                    elif pos >= n:
                        v = <uint64_t>(2 * (pos - n + 1) + 3)   # EOS sentinel
                    else:
                        v = cols[pos, tcols[j, c]]
                        if v == 0:
                            absent = True
                            break
                    buf[c] = v
                if absent:
                    continue
                h = hash64(buf, <int>(tlen[j] * sizeof(uint64_t)), tseed[j])
                if h < 2:  # 0 means absent; 1 is reserved by preshed
                    h += 2
                o[t, j] = h
    return out


cdef class FeatureTable:
    """Feature dictionary: 64-bit template hash -> dense attribute id.

    Holds only values seen in training (the table is built from them), so an
    unseen value maps to nothing instead of colliding with a trained feature.
    """
    cdef PreshMap map
    cdef readonly object keys

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
        """The weight entries a corpus touches, as sorted attr * n_codes + code
        (code = label for states, n_labels + prev * n_labels + label for rich
        edges), and which attributes occur in edge templates (uint8 flags)."""
        cdef Py_ssize_t n = hashes.shape[0], T = hashes.shape[1], t, j
        cdef int64_t L = n_labels, n_codes = L + L * L, a
        cdef PreshMap seen = PreshMap()
        edge_attrs = numpy.zeros(len(self), dtype=numpy.uint8)
        cdef unsigned char[::1] ea = edge_attrs
        cdef size_t v
        if T != edge_mask.shape[0] or y.shape[0] != n or yp.shape[0] != n:
            raise ValueError("observed_codes: shapes do not match")
        # (PreshMap.set may allocate, so these build-time loops keep the GIL)
        for t in range(n):
            for j in range(T):
                if hashes[t, j] == 0:
                    continue
                v = <size_t>self.map.get(hashes[t, j])
                if v == 0:
                    continue
                a = <int64_t>(v - 1)
                if state_observed:
                    seen.set(<uint64_t>(a * n_codes + y[t] + 2), <void*>1)
                if edge_mask[j]:
                    ea[a] = 1
                    if edge_observed and yp[t] >= 0:
                        seen.set(<uint64_t>(a * n_codes + L + yp[t] * L + y[t] + 2), <void*>1)
        codes = numpy.fromiter((k for k, _ in seen.items()), dtype=numpy.int64, count=len(seen))
        codes -= 2
        codes.sort()
        return codes, edge_attrs

    def lookup(self, const uint64_t[:, ::1] hashes):
        """Known features per position as CSR: (ptr int64 (n+1), attrs int32)."""
        cdef Py_ssize_t n = hashes.shape[0], T = hashes.shape[1], t, j, nnz = 0
        ptr = numpy.zeros(n + 1, dtype=numpy.int64)
        attrs = numpy.empty(n * T, dtype=numpy.int32)
        cdef int64_t[::1] p = ptr
        cdef int32_t[::1] a = attrs
        cdef size_t v
        cdef uint64_t h
        with nogil:
            for t in range(n):
                for j in range(T):
                    h = hashes[t, j]
                    if h == 0:
                        continue
                    v = <size_t>self.map.get(h)
                    if v != 0:
                        a[nnz] = <int32_t>(v - 1)
                        nnz += 1
                p[t + 1] = nnz
        return ptr, attrs[:nnz].copy()


def count_keys(const uint64_t[:, ::1] hashes):
    """Distinct non-zero values of a hash matrix and their counts, in one
    hash-table pass (a template value counts once per position)."""
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
