"""Test views of the kernel models that the package itself never needs:
sets as CSR rows, support examples and subset weights as Python values,
subset lookups by feature ids, and pairwise classifiers built straight
from per-pair SVMs."""
from typing import Iterable, Optional

import numpy
import scipy.sparse

from spacy_adf.kernels import PairwiseClassifier, make_classifier
from spacy_adf.kernels.csr import as_ids
from spacy_adf.kernels.pairwise import n_pairs


def to_csr(examples: Iterable[Iterable[int]], n_features: Optional[int] = None) -> scipy.sparse.csr_matrix:
    """Binary CSR matrix (float64 ones) from sets of feature ids; duplicates merge."""
    rows = [numpy.unique(numpy.asarray(list(x), dtype=numpy.int64)) for x in examples]
    indptr = numpy.zeros(len(rows) + 1, dtype=numpy.int64)
    indptr[1:] = numpy.cumsum([len(r) for r in rows])
    indices = numpy.concatenate(rows) if rows else numpy.zeros(0, dtype=numpy.int64)
    if indices.size and indices.min() < 0:
        raise ValueError("feature ids must be >= 0")
    width = int(indices.max()) + 1 if indices.size else 0
    if n_features is not None:
        if n_features < width:
            raise ValueError(f"a feature id is >= n_features={n_features}")
        width = n_features
    data = numpy.ones(indices.shape[0], dtype=numpy.float64)
    return scipy.sparse.csr_matrix((data, indices.astype(numpy.int32), indptr), shape=(len(rows), width))


def sv_rows(sv):
    """The support examples of a `SupportVectors` as a list of int32 arrays."""
    return [sv.indices[sv.indptr[j]:sv.indptr[j + 1]] for j in range(sv.n_sv)]


def subset_of(model, sid: int):
    """The sorted feature ids of subset `sid` of a `PrimalSVM`."""
    out = []
    while sid > 0:
        out.append(int(model.item[sid]))
        sid = int(model.parent[sid])
    return tuple(reversed(out))


def primal_weights(model):
    """{sorted feature-id tuple: w(s)} of a `PrimalSVM`'s subsets with w != 0."""
    return {subset_of(model, i): float(model.weight[i]) for i in numpy.flatnonzero(model.weight) if i > 0}


def lookup(index, feature_ids) -> int:
    """The id of a subset of a `SubsetIndex`, given as feature ids (any order), -1 if absent."""
    arrays = index.arrays()
    ids = {(int(p), int(i)): sid for sid, (p, i) in enumerate(zip(arrays["parent"], arrays["item"])) if sid}
    feats = sorted(set(int(f) for f in feature_ids))
    if len(feats) > index.degree:
        return -1
    sid = 0
    for f in feats:
        sid = ids.get((sid, f), -1)
        if sid < 0:
            return -1
    return sid


def _check_classes(classes):
    if tuple(classes) != (-1, 1):
        raise ValueError("a pairwise binary SVM must be trained with labels -1 / +1 "
                         "(+1 for the lower class of its pair)")


def pairwise_from_support_vectors(support_vectors, n_classes: int, kind="pke", sigma: float = 0.0, xi: int = 1):
    """Form `kind` ("pkb", "pki", "pke"; sigma and xi prune PKE) from
    per-pair `SupportVectors` in `class_pairs` order (y = +1 for the pair's
    lower class)."""
    svs = list(support_vectors)
    for sv in svs:
        _check_classes(sv.classes)
    return PairwiseClassifier([make_classifier(kind, sv, sigma=sigma, xi=xi) for sv in svs], n_classes)


def pairwise_from_primal(primals, n_classes: int, sigma: float = 0.0, xi: int = 1):
    """PKE from per-pair `PrimalSVM` in `class_pairs` order."""
    ps = list(primals)
    for p in ps:
        _check_classes(p.classes)
    return PairwiseClassifier([p.to_pke(sigma=sigma, xi=xi) for p in ps], n_classes)


def pairwise_predict(clf, feature_ids) -> int:
    """The class a `PairwiseClassifier` gives one feature-id set."""
    ids = as_ids(feature_ids)
    return int(clf.votes(([0, ids.shape[0]], ids))[0][0])


def pairwise_decisions(clf, X):
    """(n, K(K-1)/2) float64: every binary classifier's decision value per row."""
    return numpy.stack([c.decision_batch(X) for c in clf.classifiers], axis=1)


def pair_index(i: int, j: int, n_classes: int) -> int:
    """The position of pair (i, j), i < j, in `class_pairs(n_classes)`."""
    if not 0 <= i < j < n_classes:
        raise ValueError(f"pair ({i}, {j}) is not i < j < {n_classes}")
    index = i * n_classes - i * (i + 1) // 2 + (j - i - 1)
    assert index < n_pairs(n_classes)
    return index


def omega(pke):
    """{sorted feature-id tuple: w(s)} of a PKE's stored subsets with w != 0
    (walks the whole trie in Python)."""
    arrays = pke.arrays
    fr = arrays["feat_rank"]
    feat_of = numpy.zeros(arrays["root"].shape[0], dtype=numpy.int64)
    feat_of[fr[fr >= 0]] = numpy.flatnonzero(fr >= 0)
    cptr, item, weight = arrays["cptr"], arrays["item"], arrays["weight"]
    out = {}
    n1 = int(cptr[0]) if item.shape[0] else 0  # the size-1 subsets
    stack = [(i, (int(feat_of[item[i]]),)) for i in range(n1)]
    while stack:
        node, feats = stack.pop()
        if weight[node] != 0:
            out[tuple(sorted(feats))] = float(weight[node])
        for c in range(cptr[node], cptr[node + 1]):
            stack.append((c, feats + (int(feat_of[item[c]]),)))
    return out


def pairwise_omega(clf):
    """Per pair of a pairwise PKE, `omega` (ValueError for PKB / PKI)."""
    if clf.kind != "pke":
        raise ValueError("omega (the expanded subsets) exists for PKE only")
    return [omega(c) for c in clf.classifiers]
