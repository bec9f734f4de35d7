"""The primal trainer: the polynomial-kernel SVM solved as a linear SVM on
the explicit subset features, giving PKE's subset weights without support
vectors and without mining. The feature map, the bias and the pruning:
docs/architecture.md, "The primal trainer"."""
import time
from typing import Optional

import numpy

from ..serialization.framed import pack
from .classifiers import PKE
from .coefficients import subset_weights
from .expansion import SubsetIndex
from .mining import trie_layout
from .progress import Progress
from .svm import binary_csr, merge_duplicates

def fit_linear_svc(phi, y, C: float = 1.0, sample_weight=None, intercept_scaling: Optional[float] = None,
                   tol: float = 1e-4, max_iter: int = 1000, random_state: int = 0):
    """liblinear's L1-loss (hinge) L2-regularised SVM, solved in the dual:
    LinearSVC(loss="hinge", dual=True, C). See the module doc for the bias."""
    from sklearn.svm import LinearSVC

    svc = LinearSVC(loss="hinge", dual=True, C=C, tol=tol, max_iter=max_iter,
                    fit_intercept=intercept_scaling is not None,
                    intercept_scaling=1.0 if intercept_scaling is None else float(intercept_scaling),
                    random_state=random_state)
    svc.fit(phi, numpy.asarray(y), sample_weight=sample_weight)
    return svc


class PrimalSVM:
    """The subset weights of the primal or on-line trainer (docs/architecture.md):
    `expansion.SubsetIndex`'s arrays per subset id, ``weight`` w(s), ``bias``
    and the support vectors by class, in memory only, for `to_pke`."""

    def __init__(self, degree: int, n_features: int, parent, item, size, support, weight,
                 bias: float, n_pos: int, n_neg: int, classes=(-1, 1), stats: Optional[dict] = None,
                 trainer: str = "primal"):
        self.trainer = str(trainer)  # "primal" or "online" (kernels/online.py): goes into the PKE's stats
        self.degree = int(degree)
        self.n_features = int(n_features)
        self.parent = numpy.ascontiguousarray(parent, dtype=numpy.int32)
        self.item = numpy.ascontiguousarray(item, dtype=numpy.int32)
        self.size = numpy.ascontiguousarray(size, dtype=numpy.int8)
        self.support = numpy.ascontiguousarray(support, dtype=numpy.int64)
        self.weight = numpy.ascontiguousarray(weight, dtype=numpy.float64)
        self.bias = float(bias)
        self.n_pos = int(n_pos)
        self.n_neg = int(n_neg)
        self.classes = tuple(c.item() if isinstance(c, numpy.generic) else c for c in classes)
        self.stats = dict(stats or {})
        n = self.weight.shape[0]
        if not (self.parent.shape == self.item.shape == self.size.shape == self.support.shape == (n,)):
            raise ValueError("primal SVM: the per-subset arrays do not match")

    @property
    def n_sv(self) -> int:
        return self.n_pos + self.n_neg

    @property
    def n_subsets(self) -> int:
        """Distinct subsets of the training examples (the empty set excluded)."""
        return self.weight.shape[0] - 1

    def to_pke(self, sigma: float = 0.0, xi: int = 1) -> PKE:
        """The PKE of the weights that sigma and xi keep, with the prefixes
        that lead to them (weight 0 unless kept), in `mining.trie_layout`'s layout."""
        if not sigma >= 0.0:
            raise ValueError("sigma must be >= 0")
        if int(xi) != xi or xi < 1:
            raise ValueError("xi (minimum support) must be an integer >= 1")
        d = self.degree
        n_sv = max(self.n_sv, 1)
        sig_pos = sigma * self.n_pos / n_sv
        sig_neg = -sigma * self.n_neg / n_sv
        w, size = self.weight, self.size
        keep = (w != 0) & ((w >= sig_pos) | (w <= sig_neg)) & (self.support >= xi)
        keep[0] = False  # the empty set is in the bias
        ids = numpy.flatnonzero(keep)
        del keep  # each temporary goes as soon as it is used: a table of millions of subsets
        kept_by_size = numpy.bincount(size[ids], minlength=d + 1)[1:].tolist()
        feats = self._feature_tuples(ids)  # (n, d), ascending ids, -1 padded
        # items: the features of kept subsets, ranked by ascending support
        # then id (as `mining.transactions` ranks them)
        items = numpy.unique(feats[feats >= 0])
        single = numpy.flatnonzero(size == 1)
        support1 = numpy.zeros(self.n_features, dtype=numpy.int64)
        support1[self.item[single]] = self.support[single]
        items = items[numpy.lexsort((items, support1[items]))]
        n_items = int(items.shape[0])
        feat_rank = numpy.full(self.n_features, -1, dtype=numpy.int32)
        feat_rank[items] = numpy.arange(n_items, dtype=numpy.int32)
        pad = numpy.iinfo(numpy.int32).max
        ranks = numpy.where(feats >= 0, feat_rank[numpy.maximum(feats, 0)], pad)
        ranks.sort(axis=1)
        del feats
        sizes = size[ids]
        # the trie, level by level: a node of level L is (its level-(L-1)
        # prefix node, its largest rank); a prefix that is not kept itself
        # gets weight 0
        rec_parent, rec_item, rec_w, rec_depth = [], [], [], []
        cur = numpy.full(ids.shape[0], -1, dtype=numpy.int64)  # record index of each row's prefix
        base = 0
        for level in range(1, d + 1):
            rows = numpy.flatnonzero(sizes >= level)
            if rows.shape[0] == 0:
                break
            r = ranks[rows, level - 1].astype(numpy.int64)
            key = (cur[rows] + 1) * (n_items + 1) + r
            uniq, first, inverse = numpy.unique(key, return_index=True, return_inverse=True)
            m = uniq.shape[0]
            rec_parent.append(cur[rows][first])
            rec_item.append(r[first])
            nw = numpy.zeros(m)
            ends = sizes[rows] == level
            nw[inverse[ends]] = w[ids[rows[ends]]]
            rec_w.append(nw)
            rec_depth.append(numpy.full(m, level, dtype=numpy.int8))
            cur[rows] = base + inverse
            base += m
        parent_r, item_r, w_r, depth_r = (
            numpy.concatenate(parts).astype(dt) if parts else numpy.zeros(0, dtype=dt)
            for parts, dt in ((rec_parent, numpy.int32), (rec_item, numpy.int32), (rec_w, numpy.float64),
                              (rec_depth, numpy.int8)))
        arrays = trie_layout(parent_r, item_r, w_r, depth_r, feat_rank, n_items, d)
        meta = {"degree": d, "bias": self.bias, "n_features": self.n_features,
                "sigma": float(sigma), "sigma_pos": float(sig_pos), "sigma_neg": float(sig_neg),
                "xi": int(xi),
                "stats": {"n_kept": int(ids.shape[0]), "kept_by_size": kept_by_size,
                          "n_nodes": int(w_r.shape[0]), "n_visited": int(self.n_subsets),
                          "n_items": n_items, "n_sv": int(self.n_sv), "trainer": self.trainer}}
        return PKE.from_bytes(pack(PKE.FORMAT, 1, arrays, meta))

    def _feature_tuples(self, ids):
        """(len(ids), d) int32: each subset's feature ids, ascending, padded with -1."""
        out = numpy.full((ids.shape[0], self.degree), -1, dtype=numpy.int32)
        cur = ids.astype(numpy.int64)
        col = self.size[ids].astype(numpy.int64) - 1
        rows = numpy.flatnonzero(col >= 0)
        while rows.shape[0]:
            out[rows, col[rows]] = self.item[cur[rows]]
            cur[rows] = self.parent[cur[rows]]
            col[rows] -= 1
            rows = rows[col[rows] >= 0]
        return out


def train_primal(X, y, degree: int = 3, C: float = 1.0, sample_weight=None, merge: bool = True,
                 intercept_scaling: Optional[float] = None, tol: float = 1e-4, max_iter: int = 1000,
                 random_state: int = 0, stats: Optional[dict] = None,
                 progress: Optional[Progress] = None) -> PrimalSVM:
    """Train the kernel SVM (1 + |X & Y|)^degree in the primal on phi(X);
    `merge` as in `svm.train_svm`. A dict `stats` gets the example counts,
    phi's and the index's sizes and the seconds of each step."""
    subset_weights(degree)
    t0 = time.perf_counter()
    X = binary_csr(X)
    y = numpy.asarray(y)
    classes = numpy.unique(y)
    if classes.shape[0] != 2:
        raise ValueError("the primal trainer trains binary SVMs: y needs exactly two classes")
    n = X.shape[0]
    if merge:
        X, y, counts, _ = merge_duplicates(X, y, sample_weight)
    else:
        counts = (numpy.ones(n) if sample_weight is None
                  else numpy.asarray(sample_weight, dtype=numpy.float64))
    if numpy.any(counts != numpy.round(counts)) or numpy.any(counts < 0):
        raise ValueError("sample weights must be counts (integers >= 0) for the support counts")
    t1 = time.perf_counter()
    progress = progress or Progress("kernel SVM", quiet=True)
    index = SubsetIndex(int(degree))
    with progress.running(f"primal trainer: expanding {X.shape[0]:,} examples into subsets"):
        phi = index.expand(X, counts=counts.astype(numpy.int64))
    arrays = index.arrays()
    index_bytes = index.nbytes
    del index
    t2 = time.perf_counter()
    weights = None if numpy.all(counts == 1) else counts
    with progress.running(f"primal trainer: liblinear on {phi.shape[1]:,} subset features, "
                          f"{phi.nnz:,} non-zeros"):
        svc = fit_linear_svc(phi, y, C=C, sample_weight=weights, intercept_scaling=intercept_scaling,
                             tol=tol, max_iter=max_iter, random_state=random_state)
    t3 = time.perf_counter()
    v = numpy.asarray(svc.coef_, dtype=numpy.float64).ravel()
    intercept = float(svc.intercept_[0]) if intercept_scaling is not None else 0.0
    scale = numpy.sqrt(numpy.asarray(subset_weights(degree), dtype=numpy.float64))
    w = scale[arrays["size"]] * v
    bias = intercept + w[0]
    w[0] = 0.0
    # support vectors: examples with y f(x) <= 1 (their dual variables may be > 0)
    margin = numpy.where(y == svc.classes_[1], 1.0, -1.0) * svc.decision_function(phi)
    on = margin <= 1.0 + 1e-6
    n_pos = int(counts[on & (y == svc.classes_[1])].sum())
    n_neg = int(counts[on & (y != svc.classes_[1])].sum())
    info = {"n_examples": int(n), "n_unique": int(X.shape[0]), "n_subsets": int(phi.shape[1] - 1),
            "phi_nnz": int(phi.nnz),
            "phi_bytes": int(phi.data.nbytes + phi.indices.nbytes + phi.indptr.nbytes),
            "index_bytes": int(index_bytes), "n_iter": int(svc.n_iter_),
            "merge_seconds": t1 - t0, "expand_seconds": t2 - t1, "fit_seconds": t3 - t2,
            "n_pos_sv": n_pos, "n_neg_sv": n_neg}
    del phi
    if stats is not None:
        stats.update(info)
    return PrimalSVM(degree, X.shape[1], arrays["parent"], arrays["item"], arrays["size"],
                     arrays["support"], w, bias, n_pos, n_neg, svc.classes_, info)
