"""The lean evaluation's scores (`spacy_internals.lean_evaluate`), equal to spaCy's `Scorer`'s
for the same annotated Docs (docs/architecture.md, "Where spacy-adf reaches into spaCy")."""
from contextlib import contextmanager
import gc
from timeit import default_timer as timer
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from spacy.language import Language
from spacy.scorer import Scorer
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc
from spacy.training import Example

from .contract import PairScoring, PredictionScoring, Scoring

Part = Tuple[str, Callable[[], Dict[str, Any]]]  # a part of the pipeline's scores: (name, scores())


class DocPair:
    """An annotated Doc and its reference, what the span scorers read of an
    Example; the Example (whose constructor walks both Docs' tokens) is
    built only if a scorer needs the alignment."""

    __slots__ = ("predicted", "reference", "_example")

    def __init__(self, predicted: Doc, reference: Doc) -> None:
        self.predicted = predicted
        self.reference = reference
        self._example: Optional[Example] = None

    @property
    def example(self) -> Example:
        if self._example is None:
            self._example = Example(self.predicted, self.reference)
        return self._example

    def get_aligned_spans_x2y(self, spans, allow_overlap: bool = False):
        return self.example.get_aligned_spans_x2y(spans, allow_overlap)


def own_scorer_cfg(nlp: Language, scorer: Optional[Scorer],
                   scorer_cfg: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The options spaCy's `Scorer(nlp=nlp, **scorer_cfg)` hands the
    pipeline's scorers (scorer_cfg less the Scorer's own arguments); None
    when the scores are not that Scorer's (a scorer, or another nlp)."""
    cfg = dict(scorer_cfg or {})
    if scorer is not None or cfg.get("nlp", nlp) is not nlp:
        return None
    for key in ("nlp", "default_lang", "default_pipeline"):
        cfg.pop(key, None)
    return cfg


def pair_scores(nlp: Language, docs: List[Doc], references: List[Doc], cfg: Dict[str, Any],
                per_component: bool) -> Optional[Dict[str, Any]]:
    """`Scorer(nlp=nlp, **cfg).score(...)` of the annotated `docs`, if every
    part with a score method can score `DocPair`s (spaCy's Tokenizer gets
    Examples of the references with known spaces); else None."""
    pairs = [DocPair(doc, reference) for doc, reference in zip(docs, references)]
    scorers = tokenizer_part(nlp, pairs, cfg)
    if scorers is None:
        return None
    for name, proc in nlp.pipeline:
        if not isinstance(proc, Scoring):
            continue
        score = proc.pair_scorer(**cfg) if isinstance(proc, PairScoring) else None
        if score is None:
            return None
        scorers.append((name, lambda score=score: score(pairs)))
    return merged_scores(scorers, per_component)


def merged_scores(parts: List[Part], per_component: bool) -> Dict[str, Any]:
    """The parts' scores as spaCy's Scorer returns them: one dict, or one
    per part's name with per_component."""
    results: Dict[str, Any] = {}
    for name, score in parts:
        if per_component:
            results[name] = score()
        else:
            results.update(score())
    return results


def tokenizer_part(nlp: Language, pairs: List[DocPair], cfg: Dict[str, Any]) -> Optional[List[Part]]:
    """The tokenizer's part of the scores ([] if it has no score method), or None where it
    needs spaCy's Scorer: spaCy's Tokenizer scores Examples of the references with known spaces."""
    tokenizer = nlp.tokenizer
    if not isinstance(tokenizer, Scoring):
        return []
    if type(tokenizer) is not Tokenizer:
        return None
    return [("tokenizer", lambda: tokenizer.score([p.example for p in pairs if not p.reference.has_unknown_spaces],
                                                  **cfg))]


def scores_from_predictions(nlp: Language, examples: List[Example], batch_size: int, cfg: Dict[str, Any],
                            per_component: bool) -> Optional[Tuple[Dict[str, Any], float, int]]:
    """(scores, seconds, words) for a pipeline of one component whose
    ``prediction_scorer(**cfg)`` scores predict()'s output: the dev Docs
    are predicted as they are (predict() writes nothing) and never copied or
    annotated; None for any other pipeline."""
    if len(nlp.pipeline) != 1:
        return None
    name, proc = nlp.pipeline[0]
    score = proc.prediction_scorer(**cfg) if isinstance(proc, PredictionScoring) else None
    if score is None:
        return None
    docs = [eg.predicted for eg in examples]
    references = [eg.reference for eg in examples]
    parts = tokenizer_part(nlp, [DocPair(d, r) for d, r in zip(docs, references)], cfg)
    if parts is None:
        return None
    start = timer()
    preds: list = []
    for i in range(0, len(docs), batch_size):
        preds.extend(proc.predict(docs[i:i + batch_size]))
    seconds = timer() - start
    parts.append((name, lambda: score(docs, preds, references)))
    return merged_scores(parts, per_component), seconds, sum(len(doc) for doc in docs)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block: everything an
    evaluation makes lives until it returns, so collections in between only
    scan it (and the training state made since `freeze_gc`) again and again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
