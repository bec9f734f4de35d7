# cython: language_level=3
"""Word segmentation by the character CRF in one C call: the character
features of every unit (`features/chars.pxd`), their ids in the feature table
(`features/extract.pxd`), Viterbi per run (`core/crf.pxd`) and the word starts
decoded from the tags under the unit rules, with buffers reused across calls,
so a one-text call pays no numpy step per stage. The numpy reference is
`CharSegmenter.segment_reference`; forced user words take that path."""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memset

import numpy

from ..core.crf cimport CRFContext, CRFModel, Seq, crf_viterbi
from ..features.chars cimport MAX_WORD, CharFeaturizer, check_bounds, glue_into
from ..features.extract cimport FeatureTable

__all__ = ["SegmentScratch", "segment_starts"]

cdef enum:
    KEEP_UNITS = 65536  # buffers grown past this many units are given back after the call


cdef class SegmentScratch:
    """Flat buffers of one segmenter, grown to the largest call, reused (cap and T start at 0, as C fields do)."""
    cdef Py_ssize_t cap
    cdef int T
    cdef uint64_t[::1] pre
    cdef unsigned char[::1] hit
    cdef int32_t[::1] cls
    cdef int32_t[:, ::1] lens
    cdef uint64_t[:, ::1] hashes
    cdef unsigned char[::1] msk
    cdef uint8_t[::1] glue
    cdef int64_t[::1] ptr
    cdef int32_t[::1] attrs
    cdef int32_t[::1] tags

    cdef int reserve(self, Py_ssize_t n, int T) except -1:
        if n <= self.cap and T == self.T:
            return 0
        cdef Py_ssize_t cap = max(n, 2 * self.cap if T == self.T else 0, 256)
        self.pre = numpy.empty(cap * MAX_WORD, dtype=numpy.uint64)
        self.hit = numpy.empty(cap * MAX_WORD, dtype=numpy.uint8)
        self.cls = numpy.empty(cap, dtype=numpy.int32)
        self.lens = numpy.empty((3, cap), dtype=numpy.int32)
        self.hashes = numpy.empty((cap, max(T, 1)), dtype=numpy.uint64)
        self.msk = numpy.ones(cap, dtype=numpy.uint8)
        self.glue = numpy.empty(cap, dtype=numpy.uint8)
        self.ptr = numpy.empty(cap + 1, dtype=numpy.int64)
        self.attrs = numpy.empty(cap * max(T, 1), dtype=numpy.int32)
        self.tags = numpy.empty(cap, dtype=numpy.int32)
        self.cap = cap
        self.T = T
        return 0

    cdef void release(self):
        self.pre = self.hit = self.cls = self.lens = self.hashes = None
        self.msk = self.glue = self.ptr = self.attrs = self.tags = None
        self.cap = 0

    @property
    def nbytes(self):
        """Bytes held between calls."""
        if self.cap == 0:
            return 0
        return (self.pre.nbytes + self.hit.nbytes + self.cls.nbytes + self.lens.nbytes + self.hashes.nbytes
                + self.msk.nbytes + self.glue.nbytes + self.ptr.nbytes + self.attrs.nbytes + self.tags.nbytes)


def segment_starts(CharFeaturizer featurizer, FeatureTable table, CRFModel crf,
                   CRFContext ctx, SegmentScratch scratch, codes, bounds,
                   int n_tags, bint graphemes):
    """uint8 per unit: 1 where a word starts. Units are cut into CRF
    sequences at `bounds` (run bounds from 0 to len(codes)); `n_tags`: the
    scheme's tag count, 2 for B I, 4 for B M E S, 6 for those and B2 B3
    (tags/bmes.py); `graphemes`: the "graphemes" unit rules apply (no start
    inside a grapheme cluster or letter/digit run)."""
    if featurizer.max_forced:
        raise ValueError("segment_starts does not apply forced user words: "
                         "use CharSegmenter.segment")
    if n_tags not in (2, 4, 6):
        raise ValueError(f"n_tags must be 2 (BI), 4 (BMES) or 6 (BB2B3MES), not {n_tags}")
    if crf.n_labels != n_tags:
        raise ValueError(f"the CRF has {crf.n_labels} labels, the scheme needs {n_tags}")
    cdef bint bmes = n_tags != 2  # B2 and B3 (tags 4, 5) neither open nor close a word
    c_arr = numpy.ascontiguousarray(codes, dtype=numpy.uint32)
    b_arr = numpy.ascontiguousarray(bounds, dtype=numpy.int64)
    cdef const uint32_t[::1] c = c_arr
    cdef const int64_t[::1] b = b_arr
    cdef Py_ssize_t n = c.shape[0], nb = b.shape[0], k, i, longest = 0
    check_bounds(b, n)
    for k in range(nb - 1):
        longest = max(longest, b[k + 1] - b[k])
    out = numpy.zeros(n, dtype=numpy.uint8)
    if n == 0:
        return out
    cdef uint8_t[::1] st = out
    cdef int T = featurizer.n_templates, L = crf.n_labels
    scratch.reserve(n, T)
    ctx.reserve(<int>longest, L, False)
    cdef uint64_t[:, ::1] hashes = scratch.hashes
    cdef int64_t[::1] ptr = scratch.ptr
    cdef int32_t[::1] attrs = scratch.attrs
    cdef int32_t[::1] tags = scratch.tags
    cdef uint8_t[::1] glue = scratch.glue
    cdef int32_t[:, ::1] lens = scratch.lens
    cdef int32_t t, prev
    cdef Seq seq
    with nogil:
        memset(&scratch.hit[0], 0, n * MAX_WORD)
        for k in range(3):
            memset(&lens[k, 0], 0, n * sizeof(int32_t))
        for k in range(nb - 1):
            if b[k + 1] > b[k]:
                featurizer._fill(c, b[k], b[k + 1], -1, scratch.pre, scratch.hit, scratch.cls,
                                 lens, hashes, scratch.msk)
    # feature ids of the known hashes, CSR by unit (the table's own lookup)
    ptr[0] = 0
    table._lookup_into(hashes[:n], ptr[:n + 1], attrs)
    with nogil:
        for k in range(nb - 1):
            if b[k + 1] == b[k]:
                continue
            seq.n = <int>(b[k + 1] - b[k])
            seq.ptr = &ptr[b[k]]
            seq.attrs = &attrs[0]
            seq.vals = NULL  # binary features
            crf_viterbi(crf, &seq, ctx, &tags[b[k]])
            # a word starts at B (or S), after E or S, and at every run start
            prev = -1
            for i in range(b[k], b[k + 1]):
                t = tags[i]
                if bmes:
                    st[i] = t == 0 or t == 3 or prev == 2 or prev == 3
                else:
                    st[i] = t == 0
                prev = t
            st[b[k]] = 1
        if graphemes:
            memset(&glue[0], 0, n)
            glue_into(&c[0], &b[0], nb, &glue[0])
            for i in range(n):
                if glue[i]:
                    st[i] = 0
    if scratch.cap > KEEP_UNITS:
        scratch.release()
    return out
