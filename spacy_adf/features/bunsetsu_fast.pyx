# cython: language_level=3
# distutils: language = c++
"""The bunsetsu features of `features/bunsetsu.py` as feature ids, for the
Cython parse of `pke_dependency` (docs/components.md, "Parse path"): per
distinct token (ORTH, MORPH, POS, TAG) the ids of every string it can give
(`NCOL` columns, -1: unknown or off) and its flags, read into a `SegmentBatch`.
"""
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector
from cython.operator cimport dereference as deref

import numpy
from spacy.attrs import MORPH, ORTH, POS, SENT_START, TAG

from ..lang.ja.bunsetsu import bunsetsu_sentences, is_sentence_ender, token_class
from .bunsetsu import BRACKET_SUBPOS, FIELD_NAMES, PARTICLE_POS, is_punct_token, token_fields

# columns of a token's row: feature ids, -1 if unknown
cdef enum:
    C_MH = 0      # m.hw= m.hp= m.hs= m.hct= m.hcf=  (head word, as modifier)
    C_HH = 5      # h.hw= ...                        (head word, as head)
    C_MF = 10     # m.fw= m.fp= m.fs= m.fct= m.fcf=  (functional word)
    C_HF = 15     # h.fw= ...
    C_MLCF = 20   # m.lcf=  (last non-punctuation word's conjugation form)
    C_HLCF = 21   # h.lcf=
    C_MPU = 22    # m.pu=   (punctuation surface)
    C_HPU = 23    # h.pu=
    C_BP = 24     # b.p=    (a particle functional word, between a pair)
    C_BPU = 25    # b.pu=
    C_DA = 26     # da.fw= da.fs=  (functional word of a child of the modifier)
    C_DB = 28     # db.fw= db.fs=  (... of a child of the head)
    C_MLAST = 30  # m.last=  (the modifier's last token: surface)
    C_MLP = 31    # m.lp=    (its sub-POS)
    C_MPL = 32    # m.pl=    (the last token of the segment before the modifier)
    C_HFIRST = 33 # h.first= (the head's first token: surface)
    C_HFP = 34    # h.fp=    (its sub-POS)
    C_HLP = 35    # h.lp=    (the head's last token: sub-POS)
    C_HNF = 36    # h.nf= h.nh= h.nl=  (first, head and last token of the segment after the head)
    C_MPA = 39    # m.pa=    (a particle token)
    C_HPA = 40    # h.pa=
    NCOL = 41

# token flags
cdef enum:
    F_CLASS = 3     # head-rule class: 0 content, 1 function, 2 punctuation
    F_PUNCT = 4     # punctuation for the features (`is_punct_token`)
    F_BRACKET = 8   # bracket sub-POS
    F_ENDER = 16    # a sentence-ending token (`is_sentence_ender`)
    F_SPACE = 32    # whitespace

# constant features
cdef enum:
    K_MBR = 0
    K_HBR = 1
    K_MPU_NONE = 2
    K_HPU_NONE = 3
    K_FIRST = 4
    K_LAST = 5
    K_BBR = 6
    K_MPL_BOS = 7
    K_HN_EOS = 8    # h.nf=EOS h.nh=EOS h.nl=EOS
    NCONST = 11

_CONSTS = ("m.br", "h.br", "m.pu=-", "h.pu=-", "m.first", "h.last", "b.br", "m.pl=BOS", "h.nf=EOS", "h.nh=EOS",
           "h.nl=EOS")
_CONST_GROUP = ("punct", "punct", "punct", "punct", "position", "position", "between", "context", "context",
                "context", "context")


def token_row(groups, ids, fields, particle):
    """The NCOL feature ids of a token with these fields; `particle`: a particle's POS."""
    row = [-1] * NCOL
    get = ids.get
    f = fields
    for side, p in enumerate(("m.", "h.")):  # each "h." column follows its "m." one
        if "head" in groups:
            for k, name in enumerate(FIELD_NAMES):
                row[C_MH + 5 * side + k] = get(p + "h" + name + "=" + f[k], -1)
        if "function" in groups:
            for k, name in enumerate(FIELD_NAMES):
                row[C_MF + 5 * side + k] = get(p + "f" + name + "=" + f[k], -1)
            row[C_MLCF + side] = get(p + "lcf=" + f[4], -1)
        if "punct" in groups:
            row[C_MPU + side] = get(p + "pu=" + f[0], -1)
        if "particles" in groups and particle:
            row[C_MPA + side] = get(p + "pa=" + f[0], -1)
    if "between" in groups:
        if particle:
            row[C_BP] = get("b.p=" + f[0], -1)
        row[C_BPU] = get("b.pu=" + f[0], -1)
    if "dynamic" in groups:
        for k, p in ((C_DA, "da."), (C_DB, "db.")):
            row[k] = get(p + "fw=" + f[0], -1)
            row[k + 1] = get(p + "fs=" + f[2], -1)
    if "context" in groups:
        for k, name in ((C_MLAST, "m.last="), (C_MPL, "m.pl="), (C_HFIRST, "h.first="), (C_HNF, "h.nf="),
                        (C_HNF + 1, "h.nh="), (C_HNF + 2, "h.nl=")):
            row[k] = get(name + f[0], -1)
        for k, name in ((C_MLP, "m.lp="), (C_HFP, "h.fp="), (C_HLP, "h.lp=")):
            row[k] = get(name + f[2], -1)
    return row


cdef inline uint64_t _mix(uint64_t orth, uint64_t morph, uint64_t pos, uint64_t tag) noexcept nogil:
    cdef uint64_t h = orth ^ (morph * <uint64_t>0x9E3779B97F4A7C15ULL)
    h ^= tag * <uint64_t>0xC2B2AE3D27D4EB4FULL
    h ^= pos * <uint64_t>0x165667B19E3779F9ULL
    h ^= h >> 31
    return h


cdef class SegmentBatch:
    """The flat arrays of a batch of Docs: segment g's five feature lists (as modifier, as head,
    between, da, db) are ``feats[seg_off[5g + k]:seg_off[5g + k + 1]]``; no final offsets."""
    cdef vector[int32_t] feats
    cdef vector[int64_t] seg_off
    cdef vector[int64_t] sent_seg
    cdef vector[int64_t] doc_seg
    cdef vector[int64_t] doc_sent
    cdef vector[int32_t] doc_ntok
    cdef vector[int32_t] seg_start   # first token of the segment (Doc index)
    cdef vector[int32_t] seg_end
    cdef vector[int32_t] seg_head    # head token (Doc index)
    cdef vector[uint64_t] seg_word   # head token's ORTH (coordination)
    cdef readonly list docs          # the Docs with tokens, in order

    def __init__(self):
        self.docs = []

    def arrays(self):
        """(feats int32, seg_off int64, sent_seg int64): the cascade's input."""
        feats = numpy.asarray(<int32_t[:self.feats.size()]>self.feats.data()).copy() \
            if self.feats.size() else numpy.zeros(0, dtype=numpy.int32)
        return feats, _with_end(self.seg_off, self.feats.size()), _with_end(self.sent_seg, self.seg_start.size())

    def words(self):
        """The head word (ORTH) of every segment, uint64 (coordination features)."""
        cdef size_t n = self.seg_word.size()
        return numpy.asarray(<uint64_t[:n]>self.seg_word.data()).copy() if n else numpy.zeros(0, dtype=numpy.uint64)

    def tree(self, heads, uint64_t intra, uint64_t root, uint64_t dep):
        """Per Doc: (its bunsetsu heads (-1: root), (n_tokens, 2) uint64 HEAD and DEP as
        `set_bunsetsu_tree` sets them), from the sentence-relative heads of every segment."""
        cdef const int32_t[::1] h = numpy.ascontiguousarray(heads, dtype=numpy.int32)
        if h.shape[0] != <Py_ssize_t>self.seg_start.size():
            raise ValueError("one head per segment is needed")
        cdef Py_ssize_t d, s, g, t, s1, g0, g1, nt, first, n_docs = len(self.docs)
        cdef Py_ssize_t n_sent = self.sent_seg.size(), n_seg = self.seg_start.size()
        cdef int32_t ht, hh
        cdef uint64_t[:, ::1] a
        out = []
        for d in range(len(self.docs)):
            nt = self.doc_ntok[d]
            arr = numpy.empty((nt, 2), dtype=numpy.uint64)
            a = arr
            doc_heads = []
            g0 = self.doc_seg[d]
            s1 = self.doc_sent[d + 1] if d + 1 < n_docs else n_sent
            for s in range(self.doc_sent[d], s1):
                first = self.sent_seg[s]
                g1 = self.sent_seg[s + 1] if s + 1 < n_sent else n_seg
                for g in range(first, g1):
                    ht = self.seg_head[g]
                    for t in range(self.seg_start[g], self.seg_end[g]):
                        a[t, 0] = <uint64_t>(<int64_t>(ht - t))
                        a[t, 1] = intra
                    if h[g] < 0:
                        a[ht, 0] = 0
                        a[ht, 1] = root
                        doc_heads.append(-1)
                    else:
                        hh = self.seg_head[first + h[g]]
                        a[ht, 0] = <uint64_t>(<int64_t>(hh - ht))
                        a[ht, 1] = dep
                        doc_heads.append(first + h[g] - g0)
            out.append((doc_heads, arr))
        return out


cdef class TokenFeatureTable:
    """Feature ids and flags per distinct token, for one vocabulary and set of
    groups; grows as tokens are seen, pickles empty."""
    cdef readonly object groups
    cdef readonly object vocab        # the FeatureVocab the ids index
    cdef object ids
    cdef vector[uint64_t] keys        # 4 per type: ORTH, MORPH, POS, TAG
    cdef vector[int32_t] rows         # NCOL per type
    cdef vector[uint8_t] flags
    cdef vector[int32_t] chain        # next type with the same hash
    cdef unordered_map[uint64_t, int32_t] index
    cdef int32_t none_row[NCOL]       # the "no functional word" row ("-" fields)
    cdef int32_t consts[NCONST]

    def __init__(self, groups, vocab):
        self.groups = frozenset(groups)
        self.vocab = vocab
        self.ids = vocab.ids
        cdef int k
        row = token_row(self.groups, self.ids, ("-",) * 5, False)
        for k in range(NCOL):
            self.none_row[k] = row[k]
        for k in range(NCONST):
            self.consts[k] = self.ids.get(_CONSTS[k], -1) if _CONST_GROUP[k] in self.groups else -1

    def __reduce__(self):
        return (TokenFeatureTable, (self.groups, self.vocab))

    def __len__(self):
        return <Py_ssize_t>self.flags.size()

    cdef int32_t _add(self, doc, Py_ssize_t i, uint64_t h, const uint64_t* key) except -1:
        token = doc[i]
        f = token_fields(token)
        row = token_row(self.groups, self.ids, f, f[1] in PARTICLE_POS)
        cdef int32_t t = <int32_t>self.flags.size()
        cdef int k
        cdef unordered_map[uint64_t, int32_t].iterator it
        cdef uint8_t fl = <uint8_t>token_class(token)
        if is_punct_token(f, token):
            fl |= F_PUNCT
        if f[2] in BRACKET_SUBPOS:
            fl |= F_BRACKET
        if is_sentence_ender(token.text):
            fl |= F_ENDER
        if token.text.isspace():
            fl |= F_SPACE
        for k in range(4):
            self.keys.push_back(key[k])
        for k in range(NCOL):
            self.rows.push_back(row[k])
        self.flags.push_back(fl)
        it = self.index.find(h)
        if it == self.index.end():
            self.chain.push_back(-1)
        else:
            self.chain.push_back(deref(it).second)
        self.index[h] = t
        return t

    cdef int32_t _type(self, doc, Py_ssize_t i, const uint64_t* key) except -1:
        cdef uint64_t h = _mix(key[0], key[1], key[2], key[3])
        cdef int32_t t = -1
        cdef const uint64_t* k
        cdef unordered_map[uint64_t, int32_t].iterator it = self.index.find(h)
        if it != self.index.end():
            t = deref(it).second
            while t >= 0:
                k = &self.keys[4 * t]
                if k[0] == key[0] and k[1] == key[1] and k[2] == key[2] and k[3] == key[3]:
                    return t
                t = self.chain[t]
        return self._add(doc, i, h, key)

    def read(self, items, on_bad=None, recut=None):
        """A `SegmentBatch` of (Doc, bunsetsu spans) items; bad spans: ``on_bad(doc)``, then a
        ValueError. ``recut(doc)``: the spans to read instead (or None) of a Doc with a sentence
        ender before its last token or whitespace after its first (`respect_sentence_ends`)."""
        batch = SegmentBatch()
        for doc, spans in items:
            if len(doc):
                self._read_doc(batch, doc, spans, on_bad, recut)
        return batch

    cdef _read_doc(self, SegmentBatch batch, doc, spans, on_bad, recut):
        cdef Py_ssize_t n = len(doc), i, k, b, nb, s, e
        arr = doc.to_array([ORTH, MORPH, POS, TAG, SENT_START])
        cdef const uint64_t[:, ::1] a = numpy.ascontiguousarray(arr, dtype=numpy.uint64)
        cdef vector[int32_t] types
        cdef vector[int32_t] starts
        cdef vector[int32_t] ends
        cdef uint64_t key[4]
        cdef bint split = n > 1 and "sents" in doc.user_hooks
        cdef bint inner_space = False
        types.resize(n)
        for i in range(n):
            for k in range(4):
                key[k] = a[i, k]
            types[i] = self._type(doc, i, key)
            if i > 0 and a[i, 4] == 1:
                split = True  # a sentence starts inside: doc.sents decides (-1, "not a start", splits nothing)
            if i < n - 1 and self.flags[types[i]] & F_ENDER:
                split = True  # a sentence ender before the end: the punctuation rule decides
            if i > 0 and self.flags[types[i]] & F_SPACE:
                inner_space = True
        if recut is not None and n > 1 and (inner_space or split):
            recut_spans = recut(doc)
            if recut_spans is not None:
                spans = recut_spans
        cdef bint bad = False
        e = 0
        for span in spans:
            s = span.start
            bad = bad or s != e
            e = span.end
            bad = bad or e <= s
            starts.push_back(s)
            ends.push_back(e)
        nb = starts.size()
        if bad or e != n:
            if on_bad is not None:
                on_bad(doc)
            raise ValueError("the bunsetsu spans must cover the Doc with non-empty spans in order")
        if split:
            sentences = bunsetsu_sentences(doc, spans)
        else:
            sentences = ((0, nb),)
        batch.docs.append(doc)
        batch.doc_seg.push_back(batch.seg_start.size())
        batch.doc_sent.push_back(batch.sent_seg.size())
        batch.doc_ntok.push_back(n)
        cdef vector[int32_t] heads
        for b in range(nb):
            heads.push_back(self._head_token(types.data(), starts[b], ends[b]))
        cdef int32_t prev_last
        cdef int32_t nxt[3]
        for s, e in sentences:
            batch.sent_seg.push_back(batch.seg_start.size())
            for b in range(s, e):
                prev_last = ends[b - 1] - 1 if b > s else -1
                if b < e - 1:
                    nxt[0] = starts[b + 1]
                    nxt[1] = heads[b + 1]
                    nxt[2] = ends[b + 1] - 1
                else:
                    nxt[0] = -1
                self._segment(batch, types.data(), starts[b], ends[b], heads[b], b == s, b == e - 1, prev_last,
                              nxt)
                batch.seg_word.push_back(a[heads[b], 0])
        return None

    cdef int32_t _head_token(self, const int32_t* types, int32_t start, int32_t end) noexcept:
        """The head word: the rightmost token of the lowest class (bunsetsu_head_tokens)."""
        cdef int32_t t = end - 1, h = end - 1, best = 3, cls
        while t >= start:
            cls = self.flags[types[t]] & F_CLASS
            if cls < best:
                h = t
                best = cls
                if cls == 0:
                    break
            t -= 1
        return h

    cdef void _static(self, SegmentBatch batch, const int32_t* types, const int32_t* row, const int32_t* frow,
                      int32_t start, int32_t end, int32_t lastw, bint brackets, bint no_punct,
                      int side) noexcept:
        """Start a segment's static list as modifier (side 0: "m.") or head (1: "h.")."""
        cdef vector[int32_t]* out = &batch.feats
        cdef int k
        cdef int32_t t
        batch.seg_off.push_back(out.size())
        for k in range(5):
            _put(out, row[C_MH + 5 * side + k])
        for k in range(5):
            _put(out, frow[C_MF + 5 * side + k])
        if lastw >= 0:
            _put(out, self.rows[NCOL * types[lastw] + C_MLCF + side])
        for t in range(start, end):
            if self.flags[types[t]] & F_PUNCT:
                _put(out, self.rows[NCOL * types[t] + C_MPU + side])
        if brackets:
            _put(out, self.consts[K_MBR + side])
        if no_punct:
            _put(out, self.consts[K_MPU_NONE + side])

    cdef void _segment(self, SegmentBatch batch, const int32_t* types, int32_t start, int32_t end, int32_t h,
                       bint first, bint last, int32_t prev_last, const int32_t* nxt) noexcept:
        """Append one segment's five feature lists (h: its head word; prev_last: the previous
        segment's last token; nxt: the next one's first, head and last token; -1: none)."""
        cdef int32_t t, func = -1, lastw = -1, np_ = 0, k
        cdef bint brackets = False
        cdef uint8_t fl
        cdef const int32_t* row
        cdef const int32_t* frow
        cdef const int32_t* c = self.consts
        cdef const int32_t* rows = self.rows.data()
        cdef vector[int32_t]* out = &batch.feats
        for t in range(start, end):
            fl = self.flags[types[t]]
            if fl & F_PUNCT:
                np_ += 1
                if fl & F_BRACKET:
                    brackets = True
            else:
                lastw = t
                if t > h:
                    func = t
        row = &self.rows[NCOL * types[h]]
        frow = &self.rows[NCOL * types[func]] if func >= 0 else self.none_row
        batch.seg_start.push_back(start)
        batch.seg_end.push_back(end)
        batch.seg_head.push_back(h)
        # as modifier, as head
        self._static(batch, types, row, frow, start, end, lastw, brackets, np_ == 0, 0)
        if first:
            _put(out, c[K_FIRST])
        _put(out, rows[NCOL * types[end - 1] + C_MLAST])
        _put(out, rows[NCOL * types[end - 1] + C_MLP])
        _put(out, rows[NCOL * types[prev_last] + C_MPL] if prev_last >= 0 else c[K_MPL_BOS])
        for t in range(start, end):
            _put(out, rows[NCOL * types[t] + C_MPA])
        self._static(batch, types, row, frow, start, end, lastw, brackets, np_ == 0, 1)
        if last:
            _put(out, c[K_LAST])
        _put(out, rows[NCOL * types[start] + C_HFIRST])
        _put(out, rows[NCOL * types[start] + C_HFP])
        _put(out, rows[NCOL * types[end - 1] + C_HLP])
        for k in range(3):
            _put(out, rows[NCOL * types[nxt[k]] + C_HNF + k] if nxt[0] >= 0 else c[K_HN_EOS + k])
        for t in range(start, end):
            _put(out, rows[NCOL * types[t] + C_HPA])
        # between a pair
        batch.seg_off.push_back(out.size())
        if func >= 0:
            _put(out, frow[C_BP])
        for t in range(start, end):
            if self.flags[types[t]] & F_PUNCT:
                _put(out, self.rows[NCOL * types[t] + C_BPU])
        if brackets:
            _put(out, c[K_BBR])
        # as a child of the modifier, of the head
        batch.seg_off.push_back(out.size())
        _put(out, frow[C_DA])
        _put(out, frow[C_DA + 1])
        batch.seg_off.push_back(out.size())
        _put(out, frow[C_DB])
        _put(out, frow[C_DB + 1])


cdef _with_end(const vector[int64_t]& v, int64_t end):
    """v and then `end`, as an int64 array."""
    out = numpy.empty(v.size() + 1, dtype=numpy.int64)
    cdef int64_t[::1] o = out
    cdef size_t i
    for i in range(v.size()):
        o[i] = v[i]
    o[v.size()] = end
    return out


cdef inline void _put(vector[int32_t]* out, int32_t f) noexcept:
    if f >= 0:
        out.push_back(f)
