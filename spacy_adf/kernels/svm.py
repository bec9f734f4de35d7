"""Train the polynomial-kernel SVM (1 + |X & Y|)^d over sets of feature ids
(rows of a binary CSR matrix) with libsvm, SVC(kernel="poly", gamma=1,
coef0=1), and keep what the classifiers need: the support sets, y_j a_j, b."""
import time
from typing import Optional, Sequence, Tuple

import numpy
import scipy.sparse

from ..serialization.framed import pack, unpack
from .coefficients import subset_weights
from .progress import Progress

FORMAT = "spacy_adf.kernels.support_vectors"
VERSION = 1
_DTYPES = {"indptr": "int64", "indices": "int32", "coef": "float64"}


def _canonical_binary(X) -> bool:
    """Is X a CSR matrix with sorted, unique ids per row and every stored value 1 (any dtype)?"""
    return scipy.sparse.isspmatrix_csr(X) and X.has_canonical_format and bool(numpy.all(X.data == 1))


def binary_csr(X) -> scipy.sparse.csr_matrix:
    """X as canonical binary float64 CSR (sorted ids, no explicit zeros; X
    itself if it already is, else a copy); ValueError if a value is not 1."""
    if _canonical_binary(X) and X.dtype == numpy.float64:
        return X
    X = scipy.sparse.csr_matrix(X, dtype=numpy.float64, copy=True)
    X.sum_duplicates()
    X.eliminate_zeros()
    if X.nnz and not numpy.all(X.data == 1.0):
        raise ValueError("the polynomial-kernel classifiers need binary features (all values 1)")
    return X


def binary_rows(X) -> Tuple[numpy.ndarray, numpy.ndarray, int]:
    """(indptr int64, indices int32, n_features): the sorted, unique ids of each row of binary
    X, without `binary_csr`'s float64 copy when X is canonical already (data all 1,
    bool or float: the bunsetsu parser's decisions keep one byte a value)."""
    if not _canonical_binary(X):
        X = binary_csr(X)
    return (numpy.ascontiguousarray(X.indptr, dtype=numpy.int64), numpy.ascontiguousarray(X.indices, dtype=numpy.int32),
            X.shape[1])


class SupportVectors:
    """A trained binary SVM: decision(X) = sum_j coef[j] (1 + |X_j & X|)^degree
    + bias, coef[j] = y_j a_j (> 0 for the positive class, classes[1], as in
    scikit-learn); row j of (indptr, indices) holds the sorted ids of X_j."""

    def __init__(self, indptr, indices, coef, bias: float, degree: int, n_features: int,
                 classes: Sequence = (-1, 1)):
        # typed copies of the fields, as PrimalSVM's of its own: the two forms share no array
        self.indptr = numpy.ascontiguousarray(indptr, dtype=numpy.int64)
        self.indices = numpy.ascontiguousarray(indices, dtype=numpy.int32)
        self.coef = numpy.ascontiguousarray(coef, dtype=numpy.float64)
        self.bias = float(bias)
        self.degree = int(degree)
        self.n_features = int(n_features)
        self.classes = tuple(c.item() if isinstance(c, numpy.generic) else c for c in classes)
        subset_weights(self.degree)  # validates the degree
        n = self.coef.shape[0]
        p, ix = self.indptr, self.indices
        if self.coef.ndim != 1 or p.shape != (n + 1,) or p[0] != 0 or p[-1] != ix.shape[0]:
            raise ValueError("support vectors: indptr, indices and coef do not match")
        if numpy.any(numpy.diff(p) < 0):
            raise ValueError("support vectors: indptr must be non-decreasing")
        if ix.size and (ix.min() < 0 or ix.max() >= self.n_features):
            raise ValueError("support vectors: a feature id is out of range")
        # strictly increasing within rows: the sorted-merge intersection relies on it
        starts = numpy.zeros(ix.shape[0], dtype=bool)
        starts[p[:-1][p[:-1] < p[1:]]] = True
        if ix.size > 1 and numpy.any((numpy.diff(ix) <= 0) & ~starts[1:]):
            raise ValueError("support vectors: feature ids must be sorted and unique per row")
        if not numpy.all(numpy.isfinite(self.coef)) or not numpy.isfinite(self.bias):
            raise ValueError("support vectors: coefficients must be finite")
        if len(self.classes) != 2:
            raise ValueError("support vectors: a binary SVM has two classes")

    @property
    def n_sv(self) -> int:
        return self.coef.shape[0]

    @property
    def n_pos(self) -> int:
        return int((self.coef > 0).sum())

    @property
    def n_neg(self) -> int:
        return int((self.coef < 0).sum())

    @classmethod
    def from_svc(cls, svc) -> "SupportVectors":
        """Read a fitted binary sklearn SVC with kernel (1 + <x, y>)^d; its public
        dual_coef_ and intercept_ are signed for classes_[1] (libsvm's own are not)."""
        if svc.kernel != "poly":
            raise ValueError("the SVC must use kernel='poly'")
        if float(svc._gamma) != 1.0 or float(svc.coef0) != 1.0:
            raise ValueError("the SVC must use gamma=1 and coef0=1: K = (1 + |X & Y|)^d")
        if len(svc.classes_) != 2:
            raise ValueError("only binary SVMs are supported (train one per class pair)")
        sv = binary_csr(svc.support_vectors_)
        dual = svc.dual_coef_  # a sparse matrix when the SVC was fitted on sparse X
        dual = numpy.asarray(dual.toarray() if scipy.sparse.issparse(dual) else dual).ravel()
        return cls(sv.indptr, sv.indices, dual, svc.intercept_[0], svc.degree,
                   sv.shape[1], svc.classes_)

    def to_bytes(self) -> bytes:
        meta = {"bias": self.bias, "degree": self.degree, "n_features": self.n_features,
                "classes": list(self.classes)}
        return pack(FORMAT, VERSION, {"indptr": self.indptr, "indices": self.indices,
                                      "coef": self.coef}, meta)

    @classmethod
    def from_bytes(cls, data: bytes) -> "SupportVectors":
        arrays, meta = unpack(data, FORMAT, VERSION, _DTYPES)
        try:
            return cls(arrays["indptr"], arrays["indices"], arrays["coef"], meta["bias"],
                       meta["degree"], meta["n_features"], meta["classes"])
        except (KeyError, TypeError) as e:
            raise ValueError(f"the support-vector data is incomplete ({e!r})") from None


def merge_duplicates(X, y, sample_weight=None):
    """Rows of binary X with the same feature set and label as one row
    weighted by the sum of their weights: the same SVM problem (k copies
    with 0 <= a <= C act as one with 0 <= a <= k C, liblinear's and libsvm's
    sample weight). (X', y', weights float64, index of each kept row in X):
    the first occurrences, in order."""
    X = binary_csr(X)
    y = numpy.asarray(y)
    n = X.shape[0]
    if y.shape[0] != n:
        raise ValueError("X and y have different numbers of rows")
    w = (numpy.ones(n) if sample_weight is None
         else numpy.asarray(sample_weight, dtype=numpy.float64).reshape(-1))
    if w.shape[0] != n:
        raise ValueError("sample_weight must have one entry per row")
    _, labels = numpy.unique(y, return_inverse=True)
    p, ix = X.indptr, X.indices
    seen = {}
    group = numpy.empty(n, dtype=numpy.int64)
    for i in range(n):
        key = (int(labels[i]), ix[p[i]:p[i + 1]].tobytes())
        group[i] = seen.setdefault(key, len(seen))
    first = numpy.unique(group, return_index=True)[1]  # groups are numbered in order of first rows
    weights = numpy.bincount(group, weights=w, minlength=len(seen))
    return X[first], y[first], weights, first


def train_svm(X, y, degree: int = 2, C: float = 1.0, merge: bool = False,
              stats: Optional[dict] = None, progress=None, **svc_kwargs) -> Tuple[SupportVectors, object]:
    """Train with libsvm: (SupportVectors, the fitted SVC). `merge`: identical
    examples once, with their count as weight (`merge_duplicates`; why it is
    off by default: docs/components.md). A dict `stats` gets n_examples,
    n_unique, merge_seconds and fit_seconds."""
    from sklearn.svm import SVC

    progress = progress or Progress("kernel SVM", quiet=True)
    start = time.perf_counter()
    weights = None
    n = X.shape[0]
    if merge:
        X, y, weights, _ = merge_duplicates(X, y)
        if weights.shape[0] == n:  # nothing merged: no weights, exactly the unmerged call
            weights = None
    merged = time.perf_counter()
    subset_weights(degree)
    svc = SVC(kernel="poly", degree=int(degree), gamma=1.0, coef0=1.0, C=C, **svc_kwargs)
    with progress.running(f"libsvm: fitting {X.shape[0]:,} examples (degree {degree})"):
        svc.fit(binary_csr(X), numpy.asarray(y), sample_weight=weights)
    if stats is not None:
        stats.update({"n_examples": int(n), "n_unique": int(X.shape[0]),
                      "merge_seconds": merged - start, "fit_seconds": time.perf_counter() - merged})
    return SupportVectors.from_svc(svc), svc
