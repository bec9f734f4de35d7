"""The bunsetsu dependency parser behind `pke_dependency`, without spaCy pipeline
concerns: docs/architecture.md, "pke_dependency"."""
from array import array
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
import scipy.sparse
from spacy.tokens import Doc, Span

from ..features.bunsetsu import COORDINATION_FEATURES, FEATURE_GROUPS, BunsetsuFeaturizer, FeatureVocab
from ..features.bunsetsu_fast import TokenFeatureTable
from ..kernels.cascade import cascade_heads
from ..kernels.tournament import tournament_heads
from ..lang.ja.bunsetsu import check_bunsetsu_heads, check_sentence_heads, head_sentences, sentence_heads
from ..serialization.payloads import dump_payload, load_payload
from .cascaded_chunking import oracle_rounds
from .kernel_forms import BinaryKernelModel
from .tournament import oracle_games

FEATURES_FORMAT = "spacy_adf.bunsetsu_features"
FEATURES_VERSION = 1

# how a sentence is parsed (docs/architecture.md, "Cascaded chunking", "Step-ladder tournament")
ALGORITHMS = ("cascade", "tournament")
DISTANCE_FEATURES = ("dist=1", "dist=2-5", "dist=6+")
# `parse_docs`'s token table starts afresh past this many distinct tokens
# (about 200 bytes each), so a long stream of new words cannot grow it forever
MAX_TOKEN_TYPES = 1_000_000


def _csr_of_codes(codes: numpy.ndarray, indptr: numpy.ndarray, remap: numpy.ndarray, n_vocab: int,
                  n_features: int) -> scipy.sparse.csr_matrix:
    """The binary CSR of decisions read as codes (2 * temporary id + side,
    `BunsetsuParser.examples`): ids through `remap` (-1: not in the
    vocabulary, dropped), side 1 offset by `n_vocab`, each row's columns
    sorted and unique."""
    rows = numpy.repeat(numpy.arange(indptr.shape[0] - 1, dtype=numpy.int64), numpy.diff(indptr))
    cols = remap[codes >> 1]
    keep = cols >= 0
    rows, cols = rows[keep], cols[keep] + (codes[keep] & 1) * n_vocab
    order = numpy.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    if rows.shape[0]:
        first = numpy.ones(rows.shape[0], dtype=bool)
        first[1:] = (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])
        rows, cols = rows[first], cols[first]
    out_ptr = numpy.zeros(indptr.shape[0], dtype=numpy.int64)
    numpy.cumsum(numpy.bincount(rows, minlength=indptr.shape[0] - 1), out=out_ptr[1:])
    data = numpy.ones(cols.shape[0], dtype=bool)  # binary: the trainers read ids (binary_rows / binary_csr)
    return scipy.sparse.csr_matrix((data, cols.astype(numpy.int32), out_ptr), shape=(indptr.shape[0] - 1, n_features))


def check_algorithm(algorithm: str) -> str:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, not {algorithm!r}")
    return algorithm


class BunsetsuParser(BinaryKernelModel):
    """Bunsetsu features, a kernel SVM and the parsing ``algorithm`` (`ALGORITHMS`)."""

    what = "parser"

    def __init__(self, groups: Sequence[str] = FEATURE_GROUPS, algorithm: str = "cascade"):
        super().__init__("pke_dependency")
        self.algorithm = check_algorithm(algorithm)
        self.featurizer = BunsetsuFeaturizer(groups)
        self.groups = list(groups)
        self.vocab = FeatureVocab()
        self._table: Optional[TokenFeatureTable] = None  # per-token feature ids for self.vocab

    @property
    def n_inputs(self) -> int:
        """One classifier input per vocabulary entry, two for the tournament (the farther side)."""
        return len(self.vocab) * (2 if self.algorithm == "tournament" else 1)

    def oracle_features(self, doc: Doc, spans: Sequence[Span], heads: Sequence[int]
                        ) -> Iterable[Tuple[List[str], bool]]:
        """(feature strings, gold label) of every decision of the gold parse:
        cascaded chunking's questions (D) or the tournament's games (the
        farther candidate wins; the strings a pair of lists)."""
        segs = self.featurizer.segments(doc, spans)
        if self.algorithm == "tournament":
            for i, nearer, farther, label in oracle_games(heads):
                yield self.featurizer.game(segs, i, nearer, farther), label
            return
        for state, pairs, gold in oracle_rounds(heads):
            for (i, j), label in zip(pairs, gold):
                yield self.featurizer.pair(segs, i, j, state.children), label

    def examples(self, items: Iterable[Tuple[Doc, Sequence[Span], Sequence[int]]], min_count: int = 1,
                 build_vocab: bool = True) -> Tuple[scipy.sparse.csr_matrix, numpy.ndarray]:
        """Training matrix (binary CSR) and labels (+1 D or farther wins, -1 not) from gold
        (doc, bunsetsu spans, heads) triples; builds the vocabulary first
        when `build_vocab`. Heads with several roots are several sentences
        (`head_sentences`), each parsed on its own, as `parse_docs` does."""
        temp: Dict[str, int] = {}
        counts = array("q")
        codes = array("i")
        ends = array("q", [0])
        labels = array("b")
        tournament = self.algorithm == "tournament"

        def intern(strings) -> set:
            out = set()
            for f in strings:
                t = temp.get(f)
                if t is None:
                    t = temp[f] = len(temp)
                    counts.append(0)
                out.add(t)
            return out

        for doc, spans, heads in self.progress.counted(items, "reading gold parse decisions", "sentences"):
            heads = list(heads)
            sentences = head_sentences(heads)
            several = len(sentences) > 1
            problem = check_sentence_heads(heads, sentences) if several else check_bunsetsu_heads(heads)
            if problem is not None:
                raise ValueError(f"gold bunsetsu heads of {doc.text[:30]!r}: {problem}")
            spans = list(spans) if several else spans
            parts = [(spans[s:e], sentence_heads(heads, s, e)) for s, e in sentences] if several else [(spans, heads)]
            for sent_spans, sent_heads in parts:
                for f, label in self.oracle_features(doc, sent_spans, sent_heads):
                    near = intern(f[0] if tournament else f)
                    far = intern(f[1]) if tournament else set()
                    for t in near | far:
                        counts[t] += 1
                    codes.extend([2 * t for t in near] + [2 * t + 1 for t in far])
                    ends.append(len(codes))
                    labels.append(1 if label else -1)
        strings = list(temp)
        del temp
        if build_vocab:
            self.vocab = FeatureVocab.from_counts(dict(zip(strings, counts)), min_count)
        ids = self.vocab.ids
        remap = numpy.fromiter((ids.get(f, -1) for f in strings), dtype=numpy.int64, count=len(strings))
        X = _csr_of_codes(numpy.frombuffer(codes, dtype=numpy.int32).astype(numpy.int64),
                          numpy.frombuffer(ends, dtype=numpy.int64), remap, len(self.vocab), self.n_inputs)
        return X, numpy.asarray(labels, dtype=numpy.int64)

    @property
    def one_class_error(self) -> str:
        if self.algorithm == "tournament":
            return ("the training data must contain games won by the nearer and by the farther "
                    "candidate (give sentences with three or more bunsetsu and varied heads)")
        return "the training data must contain both D and O decisions (give sentences with three or more bunsetsu)"

    def parse_docs(self, items: Sequence[Tuple[Doc, Sequence[Span]]], labels: Tuple[int, int, int],
                   on_bad: Optional[Callable[[Doc], object]] = None,
                   recut: Optional[Callable[[Doc], Sequence[Span]]] = None, n_threads: int = 1
                   ) -> List[Tuple[List[int], numpy.ndarray]]:
        """Parse (non-empty Doc, its bunsetsu spans) items sentence by sentence, in C
        over the whole batch: per item (bunsetsu heads, -1 for a root; the (n_tokens, 2)
        HEAD / DEP array, `labels` the string ids of the intra-bunsetsu, root and
        dependency labels). ``on_bad``, ``recut``: `TokenFeatureTable.read`."""
        if self.classifier is None:
            raise ValueError("the parser has no classifier: initialize / train it first")
        table = self._table
        if table is None or table.vocab is not self.vocab or len(table) > MAX_TOKEN_TYPES:
            table = self._table = TokenFeatureTable(self.groups, self.vocab)
        batch = table.read(items, on_bad, recut)
        feats, offsets, sentences = batch.arrays()
        ids = self.vocab.ids
        distance = [ids.get(s, -1) if "distance" in self.groups else -1 for s in DISTANCE_FEATURES]
        words, coordination = None, (-1, -1, -1)
        if "coordination" in self.groups:
            words, coordination = batch.words(), [ids.get(s, -1) for s in COORDINATION_FEATURES]
        if self.algorithm == "tournament":
            heads = tournament_heads(self.classifier, feats, offsets, sentences, distance, len(self.vocab),
                                     n_threads=n_threads, words=words, coordination=coordination)[0]
        else:
            heads = cascade_heads(self.classifier, feats, offsets, sentences, distance, n_threads=n_threads,
                                  words=words, coordination=coordination)[0]
        return batch.tree(heads, *labels)

    def features_to_bytes(self) -> bytes:
        """The feature vocabulary: its strings, in id order (a versioned payload)."""
        return dump_payload(FEATURES_FORMAT, FEATURES_VERSION, list(self.vocab.strings))

    def features_from_bytes(self, data: bytes) -> "BunsetsuParser":
        _, strings = load_payload(data, FEATURES_FORMAT, [FEATURES_VERSION])
        if not isinstance(strings, list) or not all(isinstance(x, str) for x in strings):
            raise ValueError("the bunsetsu feature data is not a list of strings")
        self.vocab = FeatureVocab(strings)
        return self
