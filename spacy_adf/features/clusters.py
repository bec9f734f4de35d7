"""Word clusters induced from raw text: neighbour counts, PPMI, truncated SVD
and 2-means splits (docs/training.md, "Word clusters")."""
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy

from ..command_line import run_command


def progress(message: str) -> None:
    print(f"[clusters] {message}", file=sys.stderr, flush=True)


def write_lines(path, lines: Iterable[str]) -> int:
    """Write UTF-8 `lines` (without line breaks) to `path`, making its folder; returns how many."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf8") as f:
        for line in lines:
            f.write(line + "\n")
            n += 1
    return n


def _check_options(min_count: int, n_contexts: int, dims: int, depth: int, min_size: int) -> None:
    if min_count < 1 or n_contexts < 1 or dims < 2 or depth < 1 or min_size < 2:
        raise ValueError("min_count, n_contexts >= 1, dims >= 2, depth >= 1 and min_size >= 2 are needed")


def _vocabulary(counts: Counter, min_count: int) -> List[str]:
    """The words seen ``min_count``+ times, most frequent first."""
    words = sorted((w for w, c in counts.items() if c >= min_count), key=lambda w: (-counts[w], w))
    if len(words) < 2:
        raise ValueError(f"too little text to induce clusters: {len(words)} words occur {min_count}+ times")
    return words


def _context_counts(sentences: Iterable[Sequence[str]], words: List[str], n_contexts: int,
                    chunk: int = 2_000_000, report: Callable[[int], None] = lambda n: None):
    """Counts of each word's neighbours (``n_contexts`` words, edges, other), summed chunk by chunk."""
    from scipy import sparse

    index = {w: i for i, w in enumerate(words)}
    contexts = {w: i for i, w in enumerate(words[:n_contexts])}
    n_ctx = len(contexts)
    shape = (len(words), 2 * n_ctx + 4)
    m = sparse.csr_matrix(shape)
    rows: List[int] = []
    cols: List[int] = []
    n_sentences = 0

    def flush():
        nonlocal m, rows, cols
        if rows:
            m = m + sparse.csr_matrix((numpy.ones(len(rows)), (rows, cols)), shape=shape)
            rows, cols = [], []

    for s in sentences:
        padded = ["<s>", *s, "</s>"]
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
        n_sentences += 1
        if len(rows) >= chunk:
            flush()
            report(n_sentences)
    flush()
    m.sum_duplicates()
    return m


def _bit_paths(m, words: List[str], n_tokens: int, dims: int, depth: int, min_size: int, seed: int,
               start: float) -> Dict[str, str]:
    """PPMI of the context counts, truncated SVD, then 2-means splits."""
    from scipy import sparse
    from sklearn.decomposition import TruncatedSVD

    total = m.sum()
    row = numpy.asarray(m.sum(axis=1)).ravel()
    col = numpy.asarray(m.sum(axis=0)).ravel()
    coo = m.tocoo()
    pmi = numpy.log(coo.data * total / (row[coo.row] * col[coo.col]))
    keep = pmi > 0
    ppmi = sparse.csr_matrix((pmi[keep], (coo.row[keep], coo.col[keep])), shape=m.shape)
    progress(f"{len(words)} words (in {n_tokens} tokens), {ppmi.nnz} context weights, {time.time() - start:.1f} s")
    k = min(dims, min(ppmi.shape) - 1)
    vectors = TruncatedSVD(n_components=k, random_state=seed).fit_transform(ppmi)
    progress(f"SVD to {k} dimensions, {time.time() - start:.1f} s")
    return dict(zip(words, bisecting_paths(vectors, depth, min_size, seed, start)))


def bisecting_paths(vectors: numpy.ndarray, depth: int, min_size: int, seed: int, start: float) -> List[str]:
    """The bit path of each row of ``vectors`` (normalised in place): its sides in repeated
    2-means splits, down to ``depth`` levels or clusters of fewer than ``min_size`` rows."""
    from sklearn.cluster import KMeans

    norms = numpy.linalg.norm(vectors, axis=1, keepdims=True)
    vectors /= numpy.maximum(norms, 1e-12)
    paths = [""] * len(vectors)
    todo = [numpy.arange(len(vectors))]
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
        progress(f"level {level + 1}/{depth}: {len(todo)} clusters, {time.time() - start:.1f} s")
        if not todo:
            break
    return [p or "0" for p in paths]


def induce_clusters(sentences: Iterable[Sequence[str]], *, min_count: int = 3, n_contexts: int = 2000,
                    dims: int = 64, depth: int = 12, min_size: int = 4, seed: int = 0) -> Dict[str, str]:
    """Bit paths ("0110...") of the lower-cased words of `sentences`."""
    _check_options(min_count, n_contexts, dims, depth, min_size)
    start = time.time()
    sents: List[List[str]] = [[w.lower() for w in s] for s in sentences]
    counts = Counter(w for s in sents for w in s)
    words = _vocabulary(counts, min_count)
    m = _context_counts(sents, words, n_contexts)
    return _bit_paths(m, words, sum(map(len, sents)), dims, depth, min_size, seed, start)


def file_sentences(path, tokenize: Optional[Callable[[str], List[str]]] = None) -> Iterator[List[str]]:
    """The lower-cased words (``tokenize`` or whitespace) of each non-empty line of a text file."""
    from ..serialization.text_lines import check_file, read_lines

    for _, line in read_lines(check_file(path, "text", hint="")):
        words = tokenize(line) if tokenize is not None else line.split()
        if words:
            yield [w.lower() for w in words]


def induce_clusters_from_file(path, *, min_count: int = 3, n_contexts: int = 2000, dims: int = 64,
                              depth: int = 12, min_size: int = 4, seed: int = 0,
                              tokenize: Optional[Callable[[str], List[str]]] = None,
                              every: int = 100_000) -> Tuple[Dict[str, str], Counter]:
    """(`induce_clusters` of a text file read twice, streamed, the word counts)."""
    _check_options(min_count, n_contexts, dims, depth, min_size)
    start = time.time()
    counts: Counter = Counter()
    n_lines = 0
    for words in file_sentences(path, tokenize):
        counts.update(words)
        n_lines += 1
        if n_lines % every == 0:
            progress(f"counting: {n_lines:,} lines, {len(counts):,} word types, {time.time() - start:.1f} s")
    words = _vocabulary(counts, min_count)
    progress(f"counted {n_lines:,} lines: {len(words):,} words seen {min_count}+ times")
    m = _context_counts(file_sentences(path, tokenize), words, n_contexts,
                        report=lambda n: progress(f"contexts: {n:,} of {n_lines:,} lines, {time.time() - start:.1f} s"))
    table = _bit_paths(m, words, sum(counts.values()), dims, depth, min_size, seed, start)
    return table, counts


def main(argv=None) -> int:
    return run_command(argv, "clusters", "Induce word clusters from a large text file (one sentence a line), "
                       "streamed, and write them as PATH<TAB>WORD<TAB>COUNT lines for a config's "
                       "[initialize.components.X] clusters.", [
                           ("text", dict(help="a UTF-8 text file, one sentence (or paragraph) a line")),
                           ("output", dict(help="the cluster table to write")),
                           ("--tokenize", dict(default=None, metavar="LANG",
                                               help="split lines with spacy.blank(LANG)'s tokenizer (default: at "
                                                    "whitespace, for tokenized text)")),
                           ("--min-count", dict(type=int, default=3)),
                           ("--n-contexts", dict(type=int, default=2000)),
                           ("--dims", dict(type=int, default=64)),
                           ("--depth", dict(type=int, default=12)),
                           ("--min-size", dict(type=int, default=4)),
                           ("--seed", dict(type=int, default=0)),
                       ], _write_clusters)


def _write_clusters(args) -> None:
    tokenize = None
    if args.tokenize:
        import spacy

        tokenizer = spacy.blank(args.tokenize).tokenizer
        tokenize = lambda line: [t.text for t in tokenizer(line) if not t.is_space]  # noqa: E731
    table, counts = induce_clusters_from_file(
        args.text, min_count=args.min_count, n_contexts=args.n_contexts, dims=args.dims, depth=args.depth,
        min_size=args.min_size, seed=args.seed, tokenize=tokenize)
    # PATH<TAB>WORD<TAB>COUNT lines, most frequent first (`cluster_tables.read_cluster_file`)
    words = sorted(table, key=lambda w: (-counts[w], w))
    n = write_lines(args.output, (f"{table[w]}\t{w}\t{counts[w]}" for w in words))
    progress(f"wrote {n:,} words to {args.output}")
