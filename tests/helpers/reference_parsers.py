"""The Python reference of `pke_dependency`'s parse: the test oracle of the
Cython path (`features/bunsetsu_fast.pyx`, `kernels/cascade.pyx`,
`kernels/tournament.pyx`), which must give the same trees, and the slow path
the dependency benchmarks time it against.

The features are the component's training strings (`BunsetsuFeaturizer`),
made vocabulary ids once per segment (`segment_ids`) and concatenated per
decision (`pair_ids`, `game_ids`): the sets the Cython path builds from its
token table. The algorithms are written out as the papers give them:
cascaded chunking in rounds (`cascaded_parse`, on the training oracle's
`ParseState`) and the step-ladder tournament (`tournament_parse`, on the
oracle's `candidates`)."""
import time
from contextlib import contextmanager
from typing import Callable, List, Optional, Sequence, Tuple
from unittest import mock

import numpy
from spacy.tokens import Doc, Span

from spacy_adf.features.bunsetsu import COORDINATION_FEATURES, BunsetsuFeaturizer, FeatureVocab, Segment, coordination
from spacy_adf.lang.ja.bunsetsu import bunsetsu_sentences
from spacy_adf.models.bunsetsu_parser import DISTANCE_FEATURES, BunsetsuParser
from spacy_adf.models.cascaded_chunking import ParseState
from spacy_adf.models.tournament import candidates

# decide(state, pairs) -> one bool per (modifier, candidate head) pair, True = D
Decide = Callable[[ParseState, List[Tuple[int, int]]], Sequence[bool]]
# play(heads, i, nearer, farther) -> True when the farther candidate wins;
# `heads` holds the heads decided so far (those of the segments right of i)
Play = Callable[[List[int], int, int, int], bool]


# ---------------------------------------------------------------- algorithms


def answer(state: ParseState, decisions: Sequence[bool]) -> None:
    """Apply the classifier's decisions for `state.questions()`, plus the
    forced D of the segment before the last."""
    n_pairs = max(len(state.remaining) - 2, 0)
    if len(decisions) != n_pairs:
        raise ValueError(f"the classifier gave {len(decisions)} decisions for {n_pairs} pairs")
    if state.apply([bool(t) for t in decisions] + [True]) == 0:  # impossible: the leftmost D leaves
        raise RuntimeError("cascaded chunking made no progress")


def cascaded_parse(n: int, decide: Decide) -> List[int]:
    """Heads (-1 for the root) of n segments by cascaded chunking; `decide`
    is called once per round with the pairs to classify (never with an
    empty list)."""
    if n < 0:
        raise ValueError("the number of segments must be >= 0")
    state = ParseState(n)
    while len(state.remaining) > 1:
        pairs = state.questions()
        answer(state, list(decide(state, pairs)) if pairs else [])
    return state.heads


def oracle_parse(heads: Sequence[int]) -> List[int]:
    """The tree cascaded chunking builds when the gold heads answer every
    question (equals `heads` for a head-final projective tree)."""
    gold = list(heads)
    return cascaded_parse(len(gold), lambda state, pairs: [gold[i] == j for i, j in pairs])


def tournament_parse(n: int, play: Play) -> List[int]:
    """Heads (-1 for the root) of n segments by the step-ladder tournament,
    right to left; `play` is asked once per game."""
    if n < 0:
        raise ValueError("the number of segments must be >= 0")
    heads = [-1] * n
    if n >= 2:
        heads[n - 2] = n - 1
    for i in range(n - 3, -1, -1):
        ladder = candidates(heads, i)
        winner = ladder[0]
        for c in ladder[1:]:
            if play(heads, i, winner, c):
                winner = c
        heads[i] = winner
    return heads


# ---------------------------------------------------------------- feature ids


class SegmentIds:
    """A segment's features as vocabulary ids: the pair features become
    list concatenations (unknown strings dropped)."""

    __slots__ = ("mod", "head", "between", "da", "db", "word")

    def __init__(self, mod, head, between, da, db, word):
        self.mod, self.head, self.between, self.da, self.db, self.word = mod, head, between, da, db, word


class SentenceIds(list):
    """A sentence's `SegmentIds`, with the ids of the coordination strings."""

    def __init__(self, segs, coordination_ids):
        super().__init__(segs)
        self.coordination_ids = coordination_ids


def segment_ids(featurizer: BunsetsuFeaturizer, segs: List[Segment], vocab: FeatureVocab) -> SentenceIds:
    ids = vocab.ids
    g = featurizer.groups

    def known(strings):
        return [ids[s] for s in strings if s in ids]

    out = []
    for s in segs:
        between = []
        if "between" in g:
            if s.particle is not None:
                between.append("b.p=" + s.particle)
            between += ["b.pu=" + p for p in s.puncts]
            if s.brackets:
                between.append("b.br")
        dyn = "dynamic" in g
        out.append(SegmentIds(known(s.mod), known(s.head), known(between),
                              known(["da.fw=" + s.func, "da.fs=" + s.func_pos]) if dyn else [],
                              known(["db.fw=" + s.func, "db.fs=" + s.func_pos]) if dyn else [], s.word))
    return SentenceIds(out, {c: ids[c] for c in COORDINATION_FEATURES if c in ids})


def pair_ids(featurizer: BunsetsuFeaturizer, segs: List[SegmentIds], distance: List[int], i: int, j: int,
             children: Optional[List[List[int]]]) -> List[int]:
    """The ids of `BunsetsuFeaturizer.pair(...)` (same set, maybe repeated
    and unsorted: the kernel classifiers sort and deduplicate).
    `distance`: the ids of dist=1, dist=2-5, dist=6+ (-1 if unknown)."""
    g = featurizer.groups
    feats = segs[i].mod + _head_side_ids(g, segs, distance, i, j, i)
    if "dynamic" in g and children is not None:
        for c in children[i]:
            feats += segs[c].da
        for c in children[j]:
            feats += segs[c].db
    return feats


def game_ids(featurizer: BunsetsuFeaturizer, segs: List[SegmentIds], distance: List[int], i: int,
             nearer: int, farther: int, n_vocab: int) -> List[int]:
    """The ids of `BunsetsuFeaturizer.game(...)`: the first list's ids, then
    the second's plus `n_vocab` (the classifier has 2 * n_vocab inputs)."""
    near = pair_ids(featurizer, segs, distance, i, nearer, None)
    far = _head_side_ids(featurizer.groups, segs, distance, i, farther, nearer)
    return near + [f + n_vocab for f in far]


def _head_side_ids(g, segs: List[SegmentIds], distance: List[int], i: int, j: int, after: int) -> List[int]:
    """j as head, its distance from modifier i, and the between ids of the
    segments strictly between `after` and j."""
    feats = list(segs[j].head)
    if "distance" in g:
        d = j - i
        f = distance[0 if d == 1 else 1 if d <= 5 else 2]
        if f >= 0:
            feats.append(f)
    if "between" in g:
        for k in range(after + 1, j):
            feats += segs[k].between
    if "coordination" in g:
        feats += [segs.coordination_ids[c] for c in coordination(segs, i, j) if c in segs.coordination_ids]
    return feats


# ---------------------------------------------------------------- the parser


class ReferenceParser:
    """A trained `BunsetsuParser`'s vocabulary and classifier, parsing on
    the Python path; ``n_decisions`` counts the questions asked and
    ``decision_seconds`` times the classifier calls."""

    def __init__(self, parser: BunsetsuParser):
        self.parser = parser
        self.decision_seconds = 0.0
        self.n_decisions = 0

    def parse_many(self, items: Sequence[Tuple[Doc, Sequence[Span]]]) -> List[List[int]]:
        """Heads of several sentences, each a (Doc, its bunsetsu spans) item
        (the heads index into the item's spans, and position features see
        the item's first and last bunsetsu). Cascaded chunking parses them
        side by side: each round asks the classifier about the pending pairs
        of all items in one batch call; the tournament parses one sentence
        after the other, one call per game."""
        parser = self.parser
        if parser.classifier is None:
            raise ValueError("the parser has no classifier: initialize / train it first")
        if parser.algorithm == "tournament":
            return [self.tournament_margins(doc, spans)[0] for doc, spans in items]
        results: List[Optional[List[int]]] = [None] * len(items)
        active = []
        for k, (doc, spans) in enumerate(items):
            n = len(spans)
            if n <= 2:  # nothing to ask: 0 or 1 segment, or a pair
                results[k] = [-1] if n == 1 else [1, -1] if n == 2 else []
            else:
                segs = segment_ids(parser.featurizer, parser.featurizer.segments(doc, spans), parser.vocab)
                active.append((k, ParseState(n), segs))
        fz, ids = parser.featurizer, parser.vocab.ids
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
                answer(state, (scores[pos:pos + m] > 0).tolist())
                pos += m
                if len(state.remaining) <= 1:
                    results[k] = state.heads
                else:
                    still.append((k, state, segs))
            active = still
        return results

    def tournament_margins(self, doc: Doc, spans: Sequence[Span]) -> Tuple[List[int], List[float]]:
        """The tournament parse of one sentence and the classifier's margin
        of every game it played, in playing order (the farther candidate
        wins a game whose margin is > 0)."""
        n = len(spans)
        if n <= 2:
            return ([-1] if n == 1 else [1, -1] if n == 2 else []), []
        parser = self.parser
        segs = segment_ids(parser.featurizer, parser.featurizer.segments(doc, spans), parser.vocab)
        ids = parser.vocab.ids
        distance = [ids.get(s, -1) for s in DISTANCE_FEATURES]
        n_vocab = len(parser.vocab)
        margins: List[float] = []

        def play(heads, i, nearer, farther):
            row = game_ids(parser.featurizer, segs, distance, i, nearer, farther, n_vocab)
            margins.append(float(self._classify([row])[0]))
            return margins[-1] > 0

        return tournament_parse(n, play), margins

    def _classify(self, rows: List[List[int]]) -> numpy.ndarray:
        indptr = numpy.zeros(len(rows) + 1, dtype=numpy.int64)
        indptr[1:] = numpy.cumsum([len(r) for r in rows])
        indices = numpy.fromiter((f for r in rows for f in r), dtype=numpy.int32, count=int(indptr[-1]))
        start = time.perf_counter()
        scores = self.parser.classifier.decision_batch((indptr, indices))
        self.decision_seconds += time.perf_counter() - start
        self.n_decisions += len(rows)
        return scores

    def predict(self, pipe, docs) -> List[List[int]]:
        """What ``pipe.predict(docs)`` gives (`pipe`: the pke_dependency
        component of this parser), parsed here: each Doc re-cut and split
        into sentences as the component does, every sentence of the batch
        in one `parse_many` call."""
        docs = list(docs)
        for doc in docs:
            if len(doc) > 1:
                pipe._recut(doc)
        items, origin = [], []  # one item per sentence; origin: (Doc index, first bunsetsu)
        for d, doc in enumerate(docs):
            if pipe._nothing_to_parse(doc):
                continue
            spans = pipe._bunsetsu(doc)
            sentences = bunsetsu_sentences(doc, spans)
            if len(sentences) > 1:
                spans = list(spans)
                items.extend((doc, spans[s:e]) for s, e in sentences)
            else:
                items.append((doc, spans))
            origin.extend((d, s) for s, _ in sentences)
        heads: List[List[int]] = [[] for _ in docs]
        for (d, start), sent_heads in zip(origin, self.parse_many(items)):
            heads[d].extend(h + start if h >= 0 else -1 for h in sent_heads)
        return heads


@contextmanager
def reference_path(pipe):
    """While the block runs, the pke_dependency component `pipe` predicts on
    the Python reference (its ``predict`` swapped, so ``pipe(doc)``,
    ``pipe.pipe`` and ``nlp.pipe`` take it too); yields the
    `ReferenceParser` (its counts)."""
    reference = ReferenceParser(pipe.plain_model)
    with mock.patch.object(pipe, "predict", lambda docs: reference.predict(pipe, docs)):
        yield reference
