"""The bunsetsu dependency parser behind `pke_dependency`: features,
feature vocabulary, a polynomial-kernel SVM and the parsing algorithm
(cascaded chunking or a step-ladder tournament), and the serialization of
its trained parts, without spaCy pipeline concerns (the component and the
benchmark share it)."""
import time
from collections import Counter
from typing import Callable, Iterable, List, Optional, Sequence, Tuple

import numpy
import scipy.sparse
from spacy.tokens import Doc, Span

from ..features.bunsetsu import FEATURE_GROUPS, BunsetsuFeaturizer, FeatureVocab, game_ids, pair_ids, segment_ids
from ..features.bunsetsu_fast import TokenFeatureTable
from ..kernels import KernelClassifier, SupportVectors, make_classifier, train_svm
from ..kernels.cascade import cascade_heads
from ..kernels.online import train_online
from ..kernels.primal import PrimalSVM, train_primal
from ..kernels.progress import Progress
from ..kernels.tournament import tournament_heads
from ..lang.ja.bunsetsu import check_bunsetsu_heads, check_sentence_heads, head_sentences, sentence_heads
from ..serialization.payloads import dump_payload, load_payload
from .cascaded_chunking import ParseState, oracle_rounds
from .kernel_forms import (  # noqa: F401  (re-exported: the components import them from here)
    KINDS, TRAINERS, MismatchedPartsError, check_classifier_options, check_epochs, check_support_vectors,
    check_trainer, load_checked_classifier, rebuild_error,
)
from .tournament import oracle_games, tournament_parse

FEATURES_FORMAT = "spacy_adf.bunsetsu_features"
FEATURES_VERSION = 1

# how `parse_docs` parses: "cython" (features, rounds and classifier calls in
# C over flat arrays: `features/bunsetsu_fast.pyx`, `kernels/cascade.pyx`) or
# "python" (the reference: `parse_many` on feature strings and ids per
# segment). Both give the same heads; "cython" needs a `KernelClassifier`
# (PKB, PKI or PKE) and falls back to "python" for anything else.
PATHS = ("cython", "python")
# how a sentence is parsed: "cascade" (cascaded chunking, Kudo & Matsumoto
# 2002: "does i modify its neighbour?", `cascaded_chunking.py`) or
# "tournament" (a step-ladder tournament, Iwatate et al. 2008: "does i modify
# the farther of two candidates?", `tournament.py`; its classifier has two
# inputs per vocabulary entry, see `BunsetsuFeaturizer.game`)
ALGORITHMS = ("cascade", "tournament")
DISTANCE_FEATURES = ("dist=1", "dist=2-5", "dist=6+")
# the online trainer's passes when none are given: a cubic kernel over ~25
# features a decision costs ~2,800 subset lookups an example and pass, and
# KWDLC's dev accuracy gains little past 5 (see configs/dep_ja_kwdlc.cfg)
ONLINE_EPOCHS = 5
# the Cython path's token table starts afresh past this many distinct tokens
# (about 200 bytes each), so a long stream of new words cannot grow it forever
MAX_TOKEN_TYPES = 1_000_000


def _is_string_list(value) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _rows(rows: List[List[int]]) -> Tuple[numpy.ndarray, numpy.ndarray]:
    """(indptr, indices) of feature-id rows: the classifiers' CSR input."""
    indptr = numpy.zeros(len(rows) + 1, dtype=numpy.int64)
    indptr[1:] = numpy.cumsum([len(r) for r in rows])
    indices = numpy.fromiter((f for r in rows for f in r), dtype=numpy.int32, count=int(indptr[-1]))
    return indptr, indices


def _csr(rows: List[List[int]], n_features: int) -> scipy.sparse.csr_matrix:
    indptr, indices = _rows(rows)
    data = numpy.ones(indices.shape[0], dtype=numpy.float64)
    return scipy.sparse.csr_matrix((data, indices, indptr), shape=(len(rows), n_features))


def check_algorithm(algorithm: str) -> str:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"algorithm must be one of {list(ALGORITHMS)}, not {algorithm!r}")
    return algorithm


class BunsetsuParser:
    """Bunsetsu parser with a kernel SVM: cascaded chunking or a tournament
    (``algorithm``, see `ALGORITHMS`).

    Its trained state is three parts, each serialized on its own (as the
    component's files of the same names): the feature vocabulary
    (``features``), the support vectors (``support_vectors``: kept so the
    classifier can be rebuilt in another form without retraining) and the
    classifier (``classifier``). `PARTS` is their load order.
    """

    # the classifier is checked against the vocabulary, so it loads after it
    PARTS = ("features", "support_vectors", "classifier")

    def __init__(self, groups: Sequence[str] = FEATURE_GROUPS, vocab: Optional[FeatureVocab] = None,
                 support_vectors: Optional[SupportVectors] = None,
                 classifier: Optional[KernelClassifier] = None, algorithm: str = "cascade"):
        self.algorithm = check_algorithm(algorithm)
        self.featurizer = BunsetsuFeaturizer(groups)
        self.groups = list(groups)
        self.vocab = vocab or FeatureVocab()
        self.support_vectors = support_vectors
        self.classifier = classifier
        self.primal: Optional[PrimalSVM] = None  # trainers "primal", "online": all subset weights (not saved)
        self.train_stats: dict = {}
        self.progress = Progress("pke_dependency")  # training's console lines
        self.decision_seconds = 0.0  # time inside the kernel classifier (python path), for benchmarks
        self.n_decisions = 0         # questions asked (both paths)
        self.n_classifier_calls = 0  # classifier calls of the cython path (repeated questions are not re-asked)
        # seconds in the cython path's stages: reading the Docs into arrays, the
        # cascade (pair features and classifier), the token-tree arrays
        self.stage_seconds = {"read": 0.0, "cascade": 0.0, "tree": 0.0}
        self.path = "cython"
        self._table: Optional[TokenFeatureTable] = None  # per-token feature ids for self.vocab

    @property
    def n_inputs(self) -> int:
        """The classifier's number of inputs: one per vocabulary entry, two
        for the tournament (the farther candidate's side)."""
        return len(self.vocab) * (2 if self.algorithm == "tournament" else 1)

    # ------------------------------------------------------------ training

    def oracle_features(self, doc: Doc, spans: Sequence[Span], heads: Sequence[int]
                        ) -> Iterable[Tuple[List[str], bool]]:
        """(feature strings, gold label) of every decision of the gold
        parse: cascaded chunking's questions (label: D), or the tournament's
        games (the strings a pair of lists, `BunsetsuFeaturizer.game`;
        label: the farther candidate wins)."""
        segs = self.featurizer.segments(doc, spans)
        if self.algorithm == "tournament":
            for i, nearer, farther, label in oracle_games(heads):
                yield self.featurizer.game(segs, i, nearer, farther), label
            return
        for state, pairs, gold in oracle_rounds(heads):
            for (i, j), label in zip(pairs, gold):
                yield self.featurizer.pair(segs, i, j, state.children), label

    def _row(self, feats) -> List[int]:
        """Feature ids of one decision (a tournament game's farther side
        offset by the vocabulary's size)."""
        if self.algorithm == "tournament":
            near, far = feats
            offset = len(self.vocab)
            return self.vocab.lookup(near) + [f + offset for f in self.vocab.lookup(far)]
        return self.vocab.lookup(feats)

    def examples(self, items: Iterable[Tuple[Doc, Sequence[Span], Sequence[int]]], min_count: int = 1,
                 build_vocab: bool = True) -> Tuple[scipy.sparse.csr_matrix, numpy.ndarray]:
        """Training matrix (binary CSR) and labels (+1 D or farther wins, -1 not) from gold
        (doc, bunsetsu spans, heads) triples; builds the vocabulary first
        when `build_vocab`. Heads with several roots are several sentences
        (each root ends one, `head_sentences`), each its own oracle parse
        with its features computed within the sentence, as `parse_many`
        parses them; a head across a sentence end is an error."""
        feats, labels = [], []
        for doc, spans, heads in self.progress.counted(items, "reading gold parse decisions", "sentences"):
            heads = list(heads)
            sentences = head_sentences(heads)
            if len(sentences) > 1:
                problem = check_sentence_heads(heads, sentences)
            else:
                problem = check_bunsetsu_heads(heads)
            if problem is not None:
                raise ValueError(f"gold bunsetsu heads of {doc.text[:30]!r}: {problem}")
            if len(sentences) > 1:
                spans = list(spans)
                parts = [(spans[s:e], sentence_heads(heads, s, e)) for s, e in sentences]
            else:
                parts = [(spans, heads)]
            for sent_spans, sent_heads in parts:
                for f, label in self.oracle_features(doc, sent_spans, sent_heads):
                    feats.append(f)
                    labels.append(1 if label else -1)
        if build_vocab:
            counts: Counter = Counter()
            tournament = self.algorithm == "tournament"
            for f in feats:
                counts.update(set(f[0]) | set(f[1]) if tournament else set(f))
            self.vocab = FeatureVocab.from_counts(counts, min_count)
        rows = [self._row(f) for f in feats]
        return _csr(rows, self.n_inputs), numpy.asarray(labels, dtype=numpy.int64)

    def train(self, X, y, degree: int = 3, C: float = 1.0, cache_size: float = 1000.0,
              max_iter: int = -1, trainer: str = "libsvm", merge_duplicates: bool = False,
              epochs: int = 0, seed: int = 0) -> float:
        """Fit the SVM with libsvm (support vectors), with trainer "primal"
        as a linear SVM on the subset features (PKE only; max_iter <= 0
        means liblinear's 1000), or with trainer "online" by `epochs`
        passes of averaged PA-I over the subset features, streamed (PKE
        only; epochs <= 0: `ONLINE_EPOCHS`; the passes' order from
        `seed`). Identical decisions are trained once with their count as
        weight (always for primal; for libsvm with `merge_duplicates`, off
        by default: it moves decision values by up to ~8e-4). Returns the
        training seconds; `train_stats` gets the details."""
        check_trainer(trainer, "pke")
        if len(set(numpy.asarray(y).tolist())) < 2:
            if self.algorithm == "tournament":
                raise ValueError("the training data must contain games won by the nearer and by the farther "
                                 "candidate (give sentences with three or more bunsetsu and varied heads)")
            raise ValueError("the training data must contain both D and O decisions "
                             "(give sentences with three or more bunsetsu)")
        start = time.perf_counter()
        self.train_stats = {"trainer": trainer}
        if trainer == "online":
            self.primal = train_online(X, y, degree=degree, C=C, epochs=check_epochs(epochs, ONLINE_EPOCHS),
                                       seed=seed, progress=self.progress, stats=self.train_stats)
            self.support_vectors = None
        elif trainer == "primal":
            self.primal = train_primal(X, y, degree=degree, C=C, merge=True,
                                       max_iter=max_iter if max_iter > 0 else 1000,
                                       stats=self.train_stats, progress=self.progress)
            self.support_vectors = None
        else:
            self.support_vectors, _ = train_svm(X, y, degree=degree, C=C, merge=merge_duplicates,
                                                stats=self.train_stats, progress=self.progress,
                                                cache_size=cache_size, max_iter=max_iter)
            self.primal = None
        return time.perf_counter() - start

    def build(self, kind: str = "pke", sigma: float = 0.0, xi: int = 1) -> float:
        """(Re)build the classifier form from the support vectors (or, after
        trainer "primal" or "online", PKE from the subset weights); returns seconds."""
        if self.support_vectors is None and self.primal is not None:
            check_trainer(self.primal.trainer, kind)
            start = time.perf_counter()
            with self.progress.running(f"PKE from {self.primal.n_subsets:,} subset weights (sigma {sigma}, xi {xi})"):
                self.classifier = self.primal.to_pke(sigma=sigma, xi=xi)
            return time.perf_counter() - start
        if self.support_vectors is None:
            problem = rebuild_error("parser", self.classifier)
            raise ValueError(problem or "the parser has no trained SVM: initialize / train it first")
        start = time.perf_counter()
        with self.progress.running(f"{kind.upper()} from {self.support_vectors.n_sv:,} support vectors"):
            self.classifier = make_classifier(kind, self.support_vectors, sigma=sigma, xi=xi)
        return time.perf_counter() - start

    # ------------------------------------------------------------ parsing

    def parse(self, doc: Doc, spans: Sequence[Span]) -> List[int]:
        """Bunsetsu heads (-1 = root) of one sentence: ``spans`` are its
        bunsetsu (all of a one-sentence Doc, or a slice of them)."""
        return self.parse_many([(doc, spans)])[0]

    def parse_many(self, items: Sequence[Tuple[Doc, Sequence[Span]]]) -> List[List[int]]:
        """Heads of several sentences, each a (Doc, its bunsetsu spans) item
        (several items may be sentences of one Doc: the heads index into the
        item's spans, and position features see the item's first and last
        bunsetsu), parsed side by side: each round asks the classifier about
        the pending pairs of all items in one batch call, so a batch costs
        about its total pairs plus (longest sentence) rounds."""
        if self.classifier is None:
            raise ValueError("the parser has no classifier: initialize / train it first")
        if self.algorithm == "tournament":
            return [self._tournament(doc, spans) for doc, spans in items]
        results: List[Optional[List[int]]] = [None] * len(items)
        active = []
        for k, (doc, spans) in enumerate(items):
            n = len(spans)
            if n <= 2:  # nothing to ask: 0 or 1 segment, or a pair
                results[k] = [-1] if n == 1 else [1, -1] if n == 2 else []
            else:
                segs = segment_ids(self.featurizer, self.featurizer.segments(doc, spans), self.vocab)
                active.append((k, ParseState(n), segs))
        fz, ids = self.featurizer, self.vocab.ids
        distance = [ids.get(s, -1) for s in DISTANCE_FEATURES]
        while active:
            rows, counts = [], []
            for _, state, segs in active:
                pairs = state.questions()
                rows.extend(pair_ids(fz, segs, distance, i, j, state.children) for i, j in pairs)
                counts.append(len(pairs))
            scores = self._classify(rows) if rows else numpy.zeros(0)
            pos, still = 0, []
            for (k, state, segs), m in zip(active, counts):
                state.answer((scores[pos:pos + m] > 0).tolist())
                pos += m
                if state.done:
                    results[k] = state.heads
                else:
                    still.append((k, state, segs))
            active = still
        return results

    def _tournament(self, doc: Doc, spans: Sequence[Span]) -> List[int]:
        """The reference tournament parse of one sentence: one classifier
        call per game."""
        return self.tournament_margins(doc, spans)[0]

    def tournament_margins(self, doc: Doc, spans: Sequence[Span]) -> Tuple[List[int], List[float]]:
        """The reference tournament parse of one sentence and the classifier's
        margin of every game it played, in playing order (the farther
        candidate wins a game whose margin is > 0)."""
        n = len(spans)
        if n <= 2:
            return ([-1] if n == 1 else [1, -1] if n == 2 else []), []
        segs = segment_ids(self.featurizer, self.featurizer.segments(doc, spans), self.vocab)
        ids = self.vocab.ids
        distance = [ids.get(s, -1) for s in DISTANCE_FEATURES]
        n_vocab = len(self.vocab)
        margins: List[float] = []

        def play(heads, i, nearer, farther):
            row = game_ids(self.featurizer, segs, distance, i, nearer, farther, n_vocab)
            margins.append(float(self._classify([row])[0]))
            return margins[-1] > 0

        return tournament_parse(n, play), margins

    @property
    def uses_cython(self) -> bool:
        """Whether `parse_docs` takes the Cython path (see `PATHS`)."""
        if self.path not in PATHS:
            raise ValueError(f"path must be one of {list(PATHS)}, not {self.path!r}")
        return self.path == "cython" and isinstance(self.classifier, KernelClassifier)

    def parse_docs(self, items: Sequence[Tuple[Doc, Sequence[Span]]], labels: Tuple[int, int, int],
                   on_bad: Optional[Callable[[Doc], object]] = None,
                   recut: Optional[Callable[[Doc], Sequence[Span]]] = None, n_threads: int = 1
                   ) -> List[Tuple[List[int], numpy.ndarray]]:
        """The Cython path: items are whole non-empty Docs with their
        bunsetsu spans (covering the Doc, in order); each Doc is parsed
        sentence by sentence (one sentence unless it has sentence annotation
        or a sentence ender before its end: then `bunsetsu_sentences`, as for
        the python path). Returns per item (its Doc-level bunsetsu heads, -1
        for each sentence's root; the (n_tokens, 2) uint64 HEAD / DEP array
        of its token tree for `Doc.from_array`, `labels` = the string ids of
        the intra-bunsetsu, root and dependency labels). Spans that do not
        cover their Doc are a ValueError (``on_bad(doc)`` is called first, to
        raise a better one). ``recut(doc)`` re-cuts the spans of a Doc whose
        tokens may put a sentence end inside a bunsetsu (`TokenFeatureTable.read`).
        ``n_threads``: threads of the cascade (`kernels.cascade.cascade_heads`)."""
        if self.classifier is None:
            raise ValueError("the parser has no classifier: initialize / train it first")
        table = self._table
        if table is None or table.vocab is not self.vocab or len(table) > MAX_TOKEN_TYPES:
            table = self._table = TokenFeatureTable(self.groups, self.vocab)
        start = time.perf_counter()
        batch = table.read(items, on_bad, recut)
        feats, offsets, sentences = batch.arrays()
        ids = self.vocab.ids
        distance = [ids.get(s, -1) if "distance" in self.groups else -1 for s in DISTANCE_FEATURES]
        read = time.perf_counter()
        if self.algorithm == "tournament":
            heads, n_questions = tournament_heads(self.classifier, feats, offsets, sentences, distance,
                                                  len(self.vocab), n_threads=n_threads)
            n_calls = n_questions
        else:
            heads, n_questions, n_calls = cascade_heads(self.classifier, feats, offsets, sentences, distance,
                                                        n_threads=n_threads)
        cascade = time.perf_counter()
        trees = batch.tree(heads, *labels)
        stages = self.stage_seconds
        stages["read"] += read - start
        stages["cascade"] += cascade - read
        stages["tree"] += time.perf_counter() - cascade
        self.n_decisions += n_questions
        self.n_classifier_calls += n_calls
        return trees

    def _classify(self, rows: List[List[int]]) -> numpy.ndarray:
        csr = _rows(rows)
        start = time.perf_counter()
        scores = self.classifier.decision_batch(csr)
        self.decision_seconds += time.perf_counter() - start
        self.n_decisions += len(rows)
        return scores

    def gold_decisions(self, doc: Doc, spans: Sequence[Span], heads: Sequence[int]
                       ) -> List[Tuple[List[int], bool]]:
        """Feature ids and gold labels of the oracle decisions (for tests)."""
        return [(self._row(f), y) for f, y in self.oracle_features(doc, spans, heads)]

    # ------------------------------------------------------------ serialization
    # An untrained part (no support vectors, no classifier) is stored as b"".

    def features_to_bytes(self) -> bytes:
        """The feature vocabulary: its strings, in id order (a versioned payload)."""
        return dump_payload(FEATURES_FORMAT, FEATURES_VERSION, list(self.vocab.strings))

    def features_from_bytes(self, data: bytes) -> "BunsetsuParser":
        """The vocabulary of `features_to_bytes`, or the bare msgpack list
        of strings that versions up to 8135a26 wrote."""
        _, strings = load_payload(data, FEATURES_FORMAT, [FEATURES_VERSION], legacy=_is_string_list)
        if not _is_string_list(strings):
            raise ValueError("the bunsetsu feature data is not a list of strings")
        self.vocab = FeatureVocab(strings)
        return self

    def support_vectors_to_bytes(self) -> bytes:
        """The trained SVM (`SupportVectors.to_bytes`), b"" if untrained."""
        sv = self.support_vectors
        return sv.to_bytes() if sv is not None else b""

    def support_vectors_from_bytes(self, data: bytes) -> "BunsetsuParser":
        """Load the support vectors (after the features); `MismatchedPartsError`
        if they are over another vocabulary."""
        sv = SupportVectors.from_bytes(data) if data else None
        if sv is not None:
            check_support_vectors([sv], self.n_inputs)
        self.support_vectors = sv
        return self

    def classifier_to_bytes(self) -> bytes:
        """The classifier in its own format (PKB, PKI or PKE), b"" if none."""
        clf = self.classifier
        return clf.to_bytes() if clf is not None else b""

    def classifier_from_bytes(self, data: bytes, kind: Optional[str] = None,
                              degree: Optional[int] = None) -> "BunsetsuParser":
        """Load the classifier; load the features first. ValueError for
        corrupt data; `MismatchedPartsError` for parts of different models
        (`kernel_forms.load_checked_classifier`)."""
        self.classifier = load_checked_classifier(data, self.n_inputs, kind, degree)
        return self
