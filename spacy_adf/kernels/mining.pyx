# cython: language_level=3
"""PKE's subset weights from the support examples (Kudo & Matsumoto 2003,
section 3.3): the support examples over item ranks (`transactions`), the
depth-first miner with sigma / xi pruning (`mine_subsets`, nogil) and PKE's
breadth-first trie arrays (`trie_layout`)."""
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc, qsort
from libc.string cimport memset

import numpy

from .coefficients import subset_weights, suffix_max_weights
from .growth cimport fill_column, grow_block
from .idsets cimport cmp_i32


def transactions(sv, double sig_pos, double sig_neg, int xi):
    """Support examples as sorted rank lists over the items that can matter.

    An item i can only be in a kept subset if its support is >= xi and
    M(1) * S+(i) >= sigma_pos or M(1) * S-(i) <= sigma_neg (the one-sided
    sums only shrink for supersets); the others are removed up front. Ranks
    order items by ascending support, so rare items open the prefixes and the
    frequent ones sit in short suffixes: less projection work."""
    n_feat = sv.n_features
    rows = numpy.repeat(numpy.arange(sv.n_sv), numpy.diff(sv.indptr))
    cf = sv.coef[rows]
    cnt = numpy.bincount(sv.indices, minlength=n_feat)
    sp = numpy.bincount(sv.indices, weights=numpy.where(cf > 0, cf, 0.0), minlength=n_feat)
    sn = numpy.bincount(sv.indices, weights=numpy.where(cf < 0, cf, 0.0), minlength=n_feat)
    top = float(suffix_max_weights(sv.degree)[1])
    alive = (cnt >= max(xi, 1)) & ((top * sp >= sig_pos) | (top * sn <= sig_neg))
    ids = numpy.flatnonzero(alive)
    ids = ids[numpy.lexsort((ids, cnt[ids]))]
    feat_rank = numpy.full(n_feat, -1, dtype=numpy.int32)
    feat_rank[ids] = numpy.arange(ids.shape[0], dtype=numpy.int32)
    r = feat_rank[sv.indices]
    mask = r >= 0
    r, rows = r[mask], rows[mask]
    order = numpy.lexsort((r, rows))
    titem = numpy.ascontiguousarray(r[order], dtype=numpy.int32)
    tptr = numpy.zeros(sv.n_sv + 1, dtype=numpy.int64)
    tptr[1:] = numpy.cumsum(numpy.bincount(rows, minlength=sv.n_sv))
    return tptr, titem, feat_rank, int(ids.shape[0])


cdef struct Miner:
    # transactions: support examples as sorted item ranks (dead items removed)
    const int64_t* tptr
    const int32_t* titem
    const double* tcoef
    int32_t n_items
    int d
    double c[16]        # c_d(r)
    double M[17]        # max_{r' >= r} c_d(r'): bound for supersets
    double sig_pos
    double sig_neg
    int32_t xi
    # per-item accumulators, zero between nodes
    double* sp
    double* sn
    int32_t* cnt
    int64_t* slot       # write cursor into the child projection, -1 if not expanded
    int32_t* touched
    # per level L = 1..d: the children of the node being expanded at level L - 1
    int32_t* ch_item
    double* ch_w
    uint8_t* ch_flag    # 1 = kept, 2 = expand
    int64_t* ch_beg
    int32_t* ch_n
    # per level L = 1..d-1: projected transactions (t, position of last item)
    int32_t* pj_t
    int64_t* pj_p
    int64_t nnz
    # output records in DFS pre-order
    int32_t* r_parent
    int32_t* r_item
    double* r_w
    int8_t* r_depth
    uint8_t* r_keep
    int64_t n_rec
    int64_t cap_rec
    int64_t n_visited


cdef int _emit(Miner* m, int32_t parent, int32_t item, double w, int depth, bint keep) noexcept nogil:
    cdef int64_t cap
    if m.n_rec == m.cap_rec:
        cap = m.cap_rec * 2 + 1024
        if (grow_block(<void**>&m.r_parent, cap * sizeof(int32_t)) < 0
                or grow_block(<void**>&m.r_item, cap * sizeof(int32_t)) < 0
                or grow_block(<void**>&m.r_w, cap * sizeof(double)) < 0
                or grow_block(<void**>&m.r_depth, cap * sizeof(int8_t)) < 0
                or grow_block(<void**>&m.r_keep, cap * sizeof(uint8_t)) < 0):
            return -1
        m.cap_rec = cap
    if m.n_rec >= 2147483647:
        return -1
    m.r_parent[m.n_rec] = parent
    m.r_item[m.n_rec] = item
    m.r_w[m.n_rec] = w
    m.r_depth[m.n_rec] = <int8_t>depth
    m.r_keep[m.n_rec] = keep
    m.n_rec += 1
    return 0


cdef int _mine_node(Miner* m, int level, int32_t node, const int32_t* pt, const int64_t* pp,
                    int64_t n_proj) noexcept nogil:
    """Expand the subset `node` (size `level`), whose support examples are the
    projected transactions pt/pp: one pass accumulates, for every item after
    the last one of each projection, the positive and negative coefficient
    sums and the support count; children that can still reach |w| >= sigma
    (bounded by M(level + 2) times the one-sided sums, which only shrink for
    supersets) get their own projection, built in a second pass."""
    cdef int L = level + 1
    cdef int64_t q, p, end, off, b
    cdef int32_t t, it, nt = 0, nc = 0, k
    cdef double cf, w, sp, sn
    cdef bint keep, expand
    cdef int32_t* ch_item = m.ch_item + L * m.n_items
    cdef double* ch_w = m.ch_w + L * m.n_items
    cdef uint8_t* ch_flag = m.ch_flag + L * m.n_items
    cdef int64_t* ch_beg = m.ch_beg + L * m.n_items
    cdef int32_t* ch_n = m.ch_n + L * m.n_items
    cdef int32_t* pj_t = m.pj_t + L * m.nnz
    cdef int64_t* pj_p = m.pj_p + L * m.nnz
    cdef int64_t before
    for q in range(n_proj):
        t = pt[q]
        cf = m.tcoef[t]
        end = m.tptr[t + 1]
        for p in range(pp[q] + 1, end):
            it = m.titem[p]
            if m.cnt[it] == 0:
                m.touched[nt] = it
                nt += 1
            m.cnt[it] += 1
            if cf > 0:
                m.sp[it] += cf
            else:
                m.sn[it] += cf
    m.n_visited += nt
    qsort(m.touched, nt, sizeof(int32_t), cmp_i32)
    off = 0
    for k in range(nt):
        it = m.touched[k]
        sp = m.sp[it]
        sn = m.sn[it]
        if m.cnt[it] >= m.xi:
            w = m.c[L] * (sp + sn)
            keep = w >= m.sig_pos or w <= m.sig_neg
            expand = L < m.d and (m.M[L + 1] * sp >= m.sig_pos or m.M[L + 1] * sn <= m.sig_neg)
            if keep or expand:
                ch_item[nc] = it
                ch_w[nc] = w if keep else 0.0
                ch_flag[nc] = (1 if keep else 0) | (2 if expand else 0)
                ch_beg[nc] = off
                ch_n[nc] = m.cnt[it] if expand else 0
                if expand:
                    m.slot[it] = off
                    off += m.cnt[it]
                nc += 1
        m.sp[it] = 0.0
        m.sn[it] = 0.0
        m.cnt[it] = 0
    if off:  # second pass: the projections of the expanded children
        for q in range(n_proj):
            t = pt[q]
            end = m.tptr[t + 1]
            for p in range(pp[q] + 1, end):
                it = m.titem[p]
                b = m.slot[it]
                if b >= 0:
                    pj_t[b] = t
                    pj_p[b] = p
                    m.slot[it] = b + 1
        for k in range(nc):
            if ch_flag[k] & 2:
                m.slot[ch_item[k]] = -1
    # level-L lists and projections stay intact while a child expands: it
    # writes its own children into level L + 1
    for k in range(nc):
        before = m.n_rec
        if _emit(m, node, ch_item[k], ch_w[k], L, ch_flag[k] & 1) < 0:
            return -1
        if ch_flag[k] & 2:
            if _mine_node(m, L, <int32_t>before, pj_t + ch_beg[k], pj_p + ch_beg[k], ch_n[k]) < 0:
                return -1
            if not (ch_flag[k] & 1) and m.n_rec == before + 1:
                m.n_rec = before  # not kept, no kept descendant: drop the prefix node
    return 0


def mine_subsets(tptr, titem, tcoef, int n_items, int degree, double sig_pos, double sig_neg,
                 int xi):
    """Depth-first subset mining over the support examples (PrefixSpan-style
    projection, items in rank order). Returns pre-order records (parent,
    item, w, depth, keep) of every kept subset and of the prefixes leading to
    them (w = 0 for a prefix that is not kept), plus the number of visited
    candidate subsets. Transactions must hold sorted ranks < n_items."""
    cdef const int64_t[::1] tp = numpy.ascontiguousarray(tptr, dtype=numpy.int64)
    cdef const int32_t[::1] ti = numpy.ascontiguousarray(titem, dtype=numpy.int32)
    cdef const double[::1] tc = numpy.ascontiguousarray(tcoef, dtype=numpy.float64)
    if degree < 1 or degree > 15:
        raise ValueError("PKE supports degrees 1 to 15")
    if xi < 1:
        raise ValueError("xi (minimum support) must be >= 1")
    cdef Py_ssize_t n_sv = tc.shape[0]
    if tp.shape[0] != n_sv + 1 or tp[0] != 0 or tp[n_sv] != ti.shape[0]:
        raise ValueError("mine_subsets: transactions do not match")
    cdef Miner m
    memset(&m, 0, sizeof(Miner))  # NULL records, no counts yet
    cdef int r
    cdef Py_ssize_t j, k
    c = subset_weights(degree)
    M = suffix_max_weights(degree)
    for r in range(degree + 1):
        m.c[r] = float(c[r])
    for r in range(degree + 2):
        m.M[r] = float(M[r])
    m.tptr = &tp[0]
    m.titem = &ti[0] if ti.shape[0] else NULL
    m.tcoef = &tc[0] if tc.shape[0] else NULL
    m.n_items = n_items
    m.d = degree
    m.sig_pos = sig_pos
    m.sig_neg = sig_neg
    m.xi = xi
    m.nnz = ti.shape[0] + 1
    cdef int64_t ni = n_items + 1
    m.sp = <double*>calloc(ni, sizeof(double))
    m.sn = <double*>calloc(ni, sizeof(double))
    m.cnt = <int32_t*>calloc(ni, sizeof(int32_t))
    m.slot = <int64_t*>malloc(ni * sizeof(int64_t))
    m.touched = <int32_t*>malloc(ni * sizeof(int32_t))
    m.ch_item = <int32_t*>malloc((degree + 1) * ni * sizeof(int32_t))
    m.ch_w = <double*>malloc((degree + 1) * ni * sizeof(double))
    m.ch_flag = <uint8_t*>malloc((degree + 1) * ni * sizeof(uint8_t))
    m.ch_beg = <int64_t*>malloc((degree + 1) * ni * sizeof(int64_t))
    m.ch_n = <int32_t*>malloc((degree + 1) * ni * sizeof(int32_t))
    # a level's projections never exceed the transaction items: each projected
    # (t, p) owns a distinct suffix position, so nnz slots per level suffice
    m.pj_t = <int32_t*>malloc(degree * m.nnz * sizeof(int32_t))
    m.pj_p = <int64_t*>malloc(degree * m.nnz * sizeof(int64_t))
    cdef int rc = -1
    try:
        if (m.sp == NULL or m.sn == NULL or m.cnt == NULL or m.slot == NULL or m.touched == NULL
                or m.ch_item == NULL or m.ch_w == NULL or m.ch_flag == NULL or m.ch_beg == NULL
                or m.ch_n == NULL or m.pj_t == NULL or m.pj_p == NULL):
            raise MemoryError()
        for j in range(ni):
            m.slot[j] = -1
        # root projection (level-0 buffer): every non-empty transaction, before its first item
        k = 0
        for j in range(n_sv):
            if tp[j + 1] > tp[j]:
                m.pj_t[k] = <int32_t>j
                m.pj_p[k] = tp[j] - 1
                k += 1
        with nogil:
            rc = _mine_node(&m, 0, -1, m.pj_t, m.pj_p, k)
        if rc < 0:
            raise MemoryError("PKE mining ran out of memory (raise sigma or xi)")
        n = m.n_rec
        return (fill_column(numpy.empty(n, dtype=numpy.int32), m.r_parent),
                fill_column(numpy.empty(n, dtype=numpy.int32), m.r_item),
                fill_column(numpy.empty(n, dtype=numpy.float64), m.r_w),
                fill_column(numpy.empty(n, dtype=numpy.int8), m.r_depth),
                fill_column(numpy.empty(n, dtype=numpy.uint8), m.r_keep).view(numpy.bool_), int(m.n_visited))
    finally:
        free(m.sp); free(m.sn); free(m.cnt); free(m.slot); free(m.touched)
        free(m.ch_item); free(m.ch_w); free(m.ch_flag); free(m.ch_beg); free(m.ch_n)
        free(m.pj_t); free(m.pj_p)
        free(m.r_parent); free(m.r_item); free(m.r_w); free(m.r_depth); free(m.r_keep)


def trie_layout(parent, item, w, depth, feat_rank, int n_items, int d):
    """Pre-order mining records -> breadth-first trie arrays: level by level,
    nodes sorted by their parent's new id (stable, so children keep their
    ascending item order), which makes every node's children contiguous."""
    n = parent.shape[0]
    if n >= 2147483647:
        raise ValueError("PKE trie too large for int32 node ids (raise sigma or xi)")
    new_id = numpy.empty(n, dtype=numpy.int64)
    parts = []
    base = 0
    for level in range(1, d + 1):
        idx = numpy.flatnonzero(depth == level)
        if level > 1:
            idx = idx[numpy.argsort(new_id[parent[idx]], kind="stable")]
        new_id[idx] = base + numpy.arange(idx.shape[0])
        base += idx.shape[0]
        parts.append(idx)
    order = numpy.concatenate(parts) if parts else numpy.zeros(0, dtype=numpy.int64)
    n1 = parts[0].shape[0] if parts else 0
    par = parent[order]
    new_par = new_id[par[n1:]]
    cptr = numpy.empty(n + 1, dtype=numpy.int64)
    cptr[0] = n1
    cptr[1:] = n1 + numpy.cumsum(numpy.bincount(new_par, minlength=n))[:n]
    items = numpy.ascontiguousarray(item[order], dtype=numpy.int32)
    root = numpy.full(n_items, -1, dtype=numpy.int32)
    root[items[:n1]] = numpy.arange(n1, dtype=numpy.int32)
    return {"feat_rank": feat_rank, "root": root, "cptr": cptr.astype(numpy.int32),
            "item": items, "weight": numpy.ascontiguousarray(w[order], dtype=numpy.float64)}
