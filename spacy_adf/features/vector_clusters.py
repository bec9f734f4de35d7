"""Word clusters from word vectors trained elsewhere, split by
`clusters.bisecting_paths` (docs/training.md, "Word clusters")."""
import time
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional

import numpy

from ..serialization.text_lines import resolve_path
from ..command_line import run_command
from .clusters import bisecting_paths, progress, write_lines
from .templates import cluster_key
from .word2vec import open_word2vec

VECTORS_SOURCE = "vectors"
VECTORS_PREFIX = "vectors:"
WORD2VEC_PREFIX = "word2vec:"
NO_PIPELINE_VECTORS = ("the pipeline has no word vectors: set [initialize] vectors to a spaCy vectors package "
                       "or folder (e.g. made by spacy init vectors from a word2vec file), or use "
                       "clusters = \"word2vec:PATH\"")


def is_vector_source(source: str) -> bool:
    return source == VECTORS_SOURCE or source.startswith((VECTORS_PREFIX, WORD2VEC_PREFIX))


class WordVectors(NamedTuple):
    """The vectors to cluster and the words on them."""

    rows: numpy.ndarray  # float32, one row per distinct vector (a copy: the splitting normalises it)
    words: List[str]  # cluster keys, most frequent first, each once
    word_rows: List[int]  # the row of each word


class _Collector:
    """Keeps the first ``max_words`` distinct keys and the rows they use, each once."""

    def __init__(self, max_words: int):
        self.max_words = max_words
        self.words: List[str] = []
        self.word_rows: List[int] = []
        self.source_rows: List[int] = []
        self._seen = set()
        self._row_of: Dict[int, int] = {}

    @property
    def full(self) -> bool:
        return bool(self.max_words) and len(self.words) >= self.max_words

    def new_key(self, word: str) -> Optional[str]:
        """The key of ``word`` if it is not taken yet (and the table not full)."""
        key = cluster_key(word)
        return key if key and key not in self._seen and not self.full else None

    def add(self, key: str, source_row: int) -> None:
        row = self._row_of.setdefault(source_row, len(self.source_rows))
        if row == len(self.source_rows):
            self.source_rows.append(source_row)
        self._seen.add(key)
        self.words.append(key)
        self.word_rows.append(row)

    def result(self, rows: numpy.ndarray, what: str) -> WordVectors:
        """The collected words over ``rows`` (one per source row), less those of all-zero rows."""
        zero = ~rows.any(axis=1)
        if zero.any():
            keep = numpy.flatnonzero(~zero)
            new_index = numpy.full(len(rows), -1)
            new_index[keep] = numpy.arange(len(keep))
            pairs = [(w, int(new_index[r])) for w, r in zip(self.words, self.word_rows) if not zero[r]]
            rows = rows[keep]
            progress(f"left out {len(self.words) - len(pairs):,} words of {what} whose vector is all zeros")
            self.words, self.word_rows = [w for w, _ in pairs], [r for _, r in pairs]
        if not self.words:
            raise ValueError(f"{what} has no word with a vector to cluster")
        return WordVectors(rows, self.words, self.word_rows)


def read_word2vec(path, max_words: int = 0, every: int = 100_000) -> WordVectors:
    """The vectors of a word2vec/fastText text file, read into one preallocated array."""
    start = time.time()
    path, n, dims, vectors = open_word2vec(path)
    collect = _Collector(max_words)
    rows = numpy.empty((min(n, max_words) if max_words else n, dims), dtype=numpy.float32)
    n_vectors = 0
    for word, vector in vectors:
        n_vectors += 1
        key = collect.new_key(word)
        if key is None:
            continue
        rows[len(collect.source_rows)] = vector
        collect.add(key, len(collect.source_rows))
        if n_vectors % every == 0:
            progress(f"reading {path.name}: {n_vectors:,} of {n:,} vectors, {time.time() - start:.1f} s")
        if collect.full:
            break
    progress(f"read {n_vectors:,} vectors of {dims} dimensions from {path.name}: {len(collect.words):,} words, "
             f"{time.time() - start:.1f} s")
    return collect.result(rows[:len(collect.source_rows)], f"word2vec file {path}")


def spacy_word_vectors(vectors, strings, max_words: int = 0, what: str = "the vectors") -> WordVectors:
    """The words of a spaCy ``Vectors`` table (keys named by ``strings``) and their rows."""
    if vectors.mode != "default":
        raise ValueError(f"{what} are {vectors.mode} vectors (built from subword hashes): they have no table "
                         "of words to cluster; use their word2vec text file instead")
    if not len(vectors.key2row) or not vectors.shape[0]:
        raise ValueError(f"{what} are empty (no keys or no rows)")
    collect = _Collector(max_words)
    unnamed = 0
    for key, row in vectors.key2row.items():
        if collect.full:
            break
        try:
            word = strings[key]
        except KeyError:
            unnamed += 1  # a key whose string the vocab does not have: nothing to look it up by
            continue
        key = collect.new_key(word)
        if key is not None:
            collect.add(key, int(row))
    if unnamed:
        progress(f"left out {unnamed:,} keys of {what} that have no string in the vocab")
    data = vectors.data
    if not isinstance(data, numpy.ndarray):
        data = data.get()  # a GPU (cupy) table
    # one copy of the rows the words use (the splitting normalises it in place)
    rows = numpy.asarray(data[numpy.asarray(collect.source_rows, dtype=numpy.int64)], dtype=numpy.float32)
    return collect.result(rows, what)


def _spacy_vocab(path):
    """(the loaded vocab, its folder) of a spaCy pipeline or vocab folder with vectors."""
    from spacy.vocab import Vocab

    start = time.time()
    path = resolve_path(path)
    if not path.exists():
        raise ValueError(f"spaCy vectors folder {str(path)!r} does not exist")
    if not path.is_dir():
        raise ValueError(f"spaCy vectors path {str(path)!r} is not a folder (a pipeline or its vocab folder); "
                         "for a word2vec text file use word2vec:PATH")
    folder = path / "vocab" if (path / "vocab").is_dir() else path
    if not (folder / "vectors").exists() or not (folder / "strings.json").exists():
        raise ValueError(f"spaCy vectors folder {str(path)!r} has no vectors (no vocab/vectors and "
                         "vocab/strings.json): is it a spaCy pipeline or vectors folder?")
    vocab = Vocab().from_disk(folder, exclude=["lookups"])
    vectors = vocab.vectors
    progress(f"loaded {vectors.shape[0]:,} vectors of {vectors.shape[1]} dimensions and "
             f"{len(vectors.key2row):,} keys from {folder}, {time.time() - start:.1f} s")
    return vocab, folder


def read_spacy_vectors(path, max_words: int = 0) -> WordVectors:
    """The vectors of a spaCy pipeline folder or of its vocab folder."""
    vocab, folder = _spacy_vocab(path)
    return spacy_word_vectors(vocab.vectors, vocab.strings, max_words, f"the vectors of {folder}")


def check_options(depth: int, min_size: int, max_words: int) -> None:
    if depth < 1 or min_size < 2 or max_words < 0:
        raise ValueError(f"depth >= 1, min_size >= 2 and max_words >= 0 are needed (got depth={depth}, "
                         f"min_size={min_size}, max_words={max_words})")


def cluster_word_vectors(vectors: WordVectors, *, depth: int, min_size: int, seed: int, start: float
                         ) -> Dict[str, str]:
    """{key: its row's bit path}, most frequent words first (`start`: time.time() of the read)."""
    progress(f"clustering {len(vectors.rows):,} vectors of {len(vectors.words):,} words")
    paths = bisecting_paths(vectors.rows, depth, min_size, seed, start)
    return {w: paths[r] for w, r in zip(vectors.words, vectors.word_rows)}


def word_vectors(source: str, vocab=None, max_words: int = 0) -> WordVectors:
    """The vectors of a source string; ``vocab``: the pipeline's, for ``"vectors"``."""
    if source == VECTORS_SOURCE:
        from spacy.vectors import Vectors

        if vocab is None or (isinstance(vocab.vectors, Vectors) and vocab.vectors.mode == "default"
                             and not len(vocab.vectors.key2row)):
            raise ValueError(NO_PIPELINE_VECTORS)
        if not isinstance(vocab.vectors, Vectors):
            raise ValueError(f"the pipeline's vectors are a {type(vocab.vectors).__name__}, not a spaCy "
                             "Vectors table of words: use clusters = \"word2vec:PATH\"")
        return spacy_word_vectors(vocab.vectors, vocab.strings, max_words, "the pipeline's vectors")
    if source.startswith(VECTORS_PREFIX):
        return read_spacy_vectors(source[len(VECTORS_PREFIX):], max_words)
    if source.startswith(WORD2VEC_PREFIX):
        return read_word2vec(source[len(WORD2VEC_PREFIX):], max_words)
    raise ValueError(f"{source!r} names no vectors (vectors, vectors:PATH or word2vec:PATH)")


def vector_clusters(source: str, vocab=None, max_words: int = 0, *, depth: int = 12, min_size: int = 4,
                    seed: int = 0) -> Dict[str, str]:
    """The cluster table of a vectors source (module docstring)."""
    check_options(depth, min_size, max_words)
    start = time.time()
    return cluster_word_vectors(word_vectors(source, vocab, max_words), depth=depth, min_size=min_size,
                                seed=seed, start=start)


VECTORS_HELP = ("a word2vec/fastText text file ('N DIM' header), or a spaCy pipeline or vectors folder "
                "(pkg:PACKAGE/PATH: inside an installed package)")


def main(argv=None) -> int:
    return run_command(argv, "vector-clusters", "Cluster word vectors into bit paths by recursive 2-means and write "
                       "them as PATH<TAB>WORD lines, most frequent words first, for a config's "
                       "[initialize.components.X] clusters.", [
                           ("vectors", dict(help=VECTORS_HELP)),
                           ("output", dict(help="the cluster table to write")),
                           ("--depth", dict(type=int, default=12,
                                            help="levels of 2-means splits: the longest path (default 12)")),
                           ("--min-size", dict(type=int, default=4,
                                               help="a cluster of fewer vectors is not split (default 4)")),
                           ("--seed", dict(type=int, default=0)),
                           ("--max-words", dict(type=int, default=0,
                                                help="keep the most frequent words only (0: all)")),
                       ], _write_vector_clusters)


def _write_vector_clusters(args) -> None:
    resolved = resolve_path(args.vectors)  # a folder: spaCy vectors, a file: word2vec text
    source = (VECTORS_PREFIX if resolved.is_dir() else WORD2VEC_PREFIX) + str(resolved)
    table = vector_clusters(source, None, args.max_words, depth=args.depth, min_size=args.min_size, seed=args.seed)
    # PATH<TAB>WORD lines, most frequent first; no COUNT: vectors have ranks, which would be read as counts
    n = write_lines(args.output, (f"{bits}\t{word}" for word, bits in table.items()))
    progress(f"wrote {n:,} words in {len(set(table.values())):,} clusters to {args.output}")


def vector_words(path, max_words: int = 0) -> List[str]:
    """The words of a vectors table as written (a lexicon keeps case), in its
    order, words of all-zero rows left out; one read."""
    resolved = resolve_path(path)
    if resolved.is_dir():
        vocab, folder = _spacy_vocab(resolved)
        keyed = set(spacy_word_vectors(vocab.vectors, vocab.strings, 0, f"the vectors of {folder}").words)
        usable = ((w, cluster_key(w) in keyed)
                  for w in (vocab.strings[k] for k in vocab.vectors.key2row if k in vocab.strings))
        what, rest = f"the vectors of {folder}", ()
    else:
        resolved, _, _, rest = open_word2vec(resolved)
        nonzero: Dict[str, bool] = {}  # a key's vector is its first form's
        usable = ((w, bool(cluster_key(w)) and nonzero.setdefault(cluster_key(w), bool(v.any())))
                  for w, v in rest)
        what = f"word2vec file {resolved}"
    words, seen = [], set()
    for word, ok in usable:
        if ok and word not in seen:
            seen.add(word)
            words.append(word)
            if max_words and len(words) >= max_words:
                break
    for _ in rest:  # the rest of a file is checked all the same
        pass
    if not words:
        raise ValueError(f"{what} has no word with a vector to cluster")
    return words


def words_main(argv=None) -> int:  # arguments declared for run_command, as `main`'s
    return run_command(argv, "vector-words", "Write the words of a word-vector table, most frequent first, one a "
                       "line: a lexicon for a segmenter's user_dict (vectors are trained on far more text than a "
                       "segmentation corpus).", [
                           ("vectors", dict(help=VECTORS_HELP)),
                           ("output", dict(help="the word list to write")),
                           ("--max-words", dict(type=int, default=0, help="the most frequent words only (0: all)")),
                       ], _write_vector_words)


def _write_vector_words(args) -> None:
    if args.max_words < 0:
        raise ValueError(f"max_words >= 0 is needed (0: all words; got {args.max_words})")
    n = write_lines(args.output, vector_words(args.vectors, args.max_words))
    progress(f"wrote {n:,} words to {Path(args.output)}")
