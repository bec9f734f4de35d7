"""Word clusters induced from raw text, for cluster feature columns.

Each word seen at least ``min_count`` times gets a bit path: a leaf of a
binary tree over the words, as Brown clusters give (Koo et al. 2008 and
Turian et al. 2010 use prefixes of such paths as features: a short prefix
is a coarse class, a long one a fine class). The tree here is built from
distributional vectors, which is fast and needs only numpy, scipy and
scikit-learn: each word's counts of the words just left and right of it
(the ``n_contexts`` most frequent words, lower-cased), weighted by positive
pointwise mutual information, reduced to ``dims`` dimensions by truncated
SVD and length-normalised, then split in two by 2-means again and again
(down to ``depth`` levels, or until a cluster has fewer than
``min_size`` words). Words are matched lower-cased: case is what the
orthography columns describe.
"""
import sys
import time
from collections import Counter
from typing import Dict, Iterable, List, Sequence

import numpy


def _progress(message: str) -> None:
    print(f"[clusters] {message}", file=sys.stderr, flush=True)


def induce_clusters(sentences: Iterable[Sequence[str]], *, min_count: int = 3, n_contexts: int = 2000,
                    dims: int = 64, depth: int = 12, min_size: int = 4, seed: int = 0) -> Dict[str, str]:
    """Bit paths ("0110...") of the lower-cased words of `sentences`."""
    from scipy import sparse
    from sklearn.cluster import KMeans
    from sklearn.decomposition import TruncatedSVD

    if min_count < 1 or n_contexts < 1 or dims < 2 or depth < 1 or min_size < 2:
        raise ValueError("min_count, n_contexts >= 1, dims >= 2, depth >= 1 and min_size >= 2 are needed")
    start = time.time()
    sents: List[List[str]] = [[w.lower() for w in s] for s in sentences]
    counts = Counter(w for s in sents for w in s)
    words = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    if len(words) < 2:
        raise ValueError(f"too little text to induce clusters: {len(words)} words occur {min_count}+ times")
    index = {w: i for i, w in enumerate(words)}
    contexts = {w: i for i, w in enumerate(words[:n_contexts])}
    n_ctx = len(contexts)
    rows, cols = [], []
    for s in sents:
        padded = ["<s>"] + s + ["</s>"]
        for k in range(1, len(padded) - 1):
            i = index.get(padded[k])
            if i is None:
                continue
            left, right = padded[k - 1], padded[k + 1]
            # context columns: left words, then right words, then the two edges
            rows.append(i)
            cols.append(contexts[left] if left in contexts else (2 * n_ctx if left == "<s>" else 2 * n_ctx + 2))
            rows.append(i)
            cols.append(n_ctx + contexts[right] if right in contexts
                        else (2 * n_ctx + 1 if right == "</s>" else 2 * n_ctx + 3))
    m = sparse.csr_matrix((numpy.ones(len(rows)), (rows, cols)), shape=(len(words), 2 * n_ctx + 4))
    m.sum_duplicates()
    total = m.sum()
    row = numpy.asarray(m.sum(axis=1)).ravel()
    col = numpy.asarray(m.sum(axis=0)).ravel()
    coo = m.tocoo()
    pmi = numpy.log(coo.data * total / (row[coo.row] * col[coo.col]))
    keep = pmi > 0
    ppmi = sparse.csr_matrix((pmi[keep], (coo.row[keep], coo.col[keep])), shape=m.shape)
    _progress(f"{len(words)} words ({min_count}+ times in {sum(map(len, sents))} tokens), "
              f"{ppmi.nnz} context weights, {time.time() - start:.1f} s")
    k = min(dims, min(ppmi.shape) - 1)
    vectors = TruncatedSVD(n_components=k, random_state=seed).fit_transform(ppmi)
    norms = numpy.linalg.norm(vectors, axis=1, keepdims=True)
    vectors /= numpy.maximum(norms, 1e-12)
    _progress(f"SVD to {k} dimensions, {time.time() - start:.1f} s")
    paths = [""] * len(words)
    todo = [numpy.arange(len(words))]
    for level in range(depth):
        nxt = []
        for members in todo:
            if len(members) < min_size:
                continue
            km = KMeans(n_clusters=2, n_init=2, random_state=seed + level, max_iter=50)
            side = km.fit_predict(vectors[members])
            if side.min() == side.max():
                continue
            for bit in (0, 1):
                part = members[side == bit]
                for i in part.tolist():
                    paths[i] += str(bit)
                nxt.append(part)
        todo = nxt
        _progress(f"level {level + 1}/{depth}: {len(todo)} clusters, {time.time() - start:.1f} s")
        if not todo:
            break
    return {w: p or "0" for w, p in zip(words, paths)}
