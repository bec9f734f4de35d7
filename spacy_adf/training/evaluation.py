"""`Language.evaluate` with the scores it gives, less the work it repeats.

spaCy's evaluate copies every dev Example (`Example(eg.x.copy(), eg.y)`:
each Example walks both Docs to cache their token texts), tokenizes every
reference text again only to time the tokenizer, runs the pipeline and then
sets each annotated Doc back on its Example (a third walk). On CoNLL-2000's
2,012 test sentences with a fast tagger that is more than half of the
evaluation: the pipeline itself is the smaller part.

`lean_evaluate(nlp)` gives the same results from one copy of each
predicted Doc and no re-tokenization. A pipeline of one component whose
``prediction_scorer`` scores predict()'s output (adf_tagger's span groups)
needs not even that: its dev Docs are predicted as they are and scored from
the predicted tags, with no copy, no annotation and no Span objects. When every part of the pipeline that
scores can take them (spaCy's Tokenizer; a component's ``pair_scorer``, e.g.
adf_tagger's span scores) it scores (annotated, reference) `DocPair`s and
builds no Example at all; otherwise one `Example(annotated, reference)` per
sentence goes to spaCy's `Scorer`. The one difference: ``speed`` is the
words per second of the pipeline alone (spaCy's counts the timing
tokenization too). `spacy_adf.lean_evaluate.v1` (an ``[initialize.after_init]``
callback, see `spacy_adf.training.callbacks`) installs it on the nlp object
that ``spacy train`` trains; a loaded pipeline keeps spaCy's evaluate.
"""
from contextlib import contextmanager
import gc
from timeit import default_timer as timer
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy
from spacy.language import Language
from spacy.scorer import Scorer
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc
from spacy.training import Example, validate_examples
from thinc.util import convert_recursive

from .contract import PairScoring, PredictionScoring, Scoring
from .lean_method import is_lean, mark_lean

EVALUATE_NAME = "Language.evaluate"


def plain_floats(results: Dict[str, Any]) -> Dict[str, Any]:
    """`results` with numpy floats turned into Python floats, nested dicts
    included, as spaCy's evaluate and update return them (they go to JSON)."""
    return convert_recursive(lambda v: isinstance(v, numpy.floating), float, dict(results))


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


def pair_scores(nlp: Language, pairs: List[DocPair], cfg: Dict[str, Any],
                per_component: bool) -> Optional[Dict[str, Any]]:
    """`Scorer(nlp=nlp, **cfg).score(...)` of the pairs' Examples, if every
    part with a score method can score pairs (a component's
    ``pair_scorer(**cfg)``; spaCy's own Tokenizer, which skips references
    with unknown spaces, gets Examples of the others only); else None."""
    scorers: List[Tuple[str, Callable[[], Dict[str, Any]]]] = []
    ok, tokenizer_score = tokenizer_scorer(nlp, pairs, cfg)
    if not ok:
        return None
    if tokenizer_score is not None:
        scorers.append(("tokenizer", tokenizer_score))
    for name, proc in nlp.pipeline:
        if not isinstance(proc, Scoring):
            continue
        score = proc.pair_scorer(**cfg) if isinstance(proc, PairScoring) else None
        if score is None:
            return None
        scorers.append((name, lambda score=score: score(pairs)))
    return merged_scores(scorers, per_component)


def merged_scores(parts: List[Tuple[str, Callable[[], Dict[str, Any]]]], per_component: bool) -> Dict[str, Any]:
    """The parts' scores as spaCy's Scorer returns them: one dict, or one
    per part's name with per_component."""
    results: Dict[str, Any] = {}
    for name, score in parts:
        if per_component:
            results[name] = score()
        else:
            results.update(score())
    return results


def tokenizer_scorer(nlp: Language, pairs: List[DocPair], cfg: Dict[str, Any]):
    """(can score, scorer or None) for the tokenizer's part of the scores:
    spaCy's Tokenizer scores Examples of the references with known spaces;
    another tokenizer with a score method needs spaCy's Scorer."""
    tokenizer = nlp.tokenizer
    if not isinstance(tokenizer, Scoring):
        return True, None
    if type(tokenizer) is not Tokenizer:
        return False, None
    return True, lambda: tokenizer.score([p.example for p in pairs if not p.reference.has_unknown_spaces], **cfg)


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
    ok, tokenizer_score = tokenizer_scorer(nlp, [DocPair(d, r) for d, r in zip(docs, references)], cfg)
    if not ok:
        return None
    start = timer()
    preds: list = []
    for i in range(0, len(docs), batch_size):
        preds.extend(proc.predict(docs[i:i + batch_size]))
    seconds = timer() - start
    parts = [("tokenizer", tokenizer_score)] if tokenizer_score is not None else []
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


def lean_evaluate(nlp: Language) -> Callable[..., Dict[str, Any]]:
    """An evaluate function for `nlp` with `Language.evaluate`'s signature and
    scores (see the module docstring)."""

    def evaluate(
        examples: Iterable[Example],
        *,
        batch_size: Optional[int] = None,
        scorer: Optional[Scorer] = None,
        component_cfg: Optional[Dict[str, Dict[str, Any]]] = None,
        scorer_cfg: Optional[Dict[str, Any]] = None,
        per_component: bool = False,
    ) -> Dict[str, Any]:
        with collector_paused():
            examples = list(examples)
            validate_examples(examples, EVALUATE_NAME)
            size = nlp.batch_size if batch_size is None else batch_size
            cfg = dict(scorer_cfg or {})
            own_scores = scorer is None and cfg.get("nlp", nlp) is nlp
            if own_scores:
                for key in ("nlp", "default_lang", "default_pipeline"):  # Scorer's own, not its cfg
                    cfg.pop(key, None)
            found = None
            if own_scores and not component_cfg:
                found = scores_from_predictions(nlp, examples, size, cfg, per_component)
            if found is None:
                start = timer()
                # copies: the components annotate Docs the dev corpus may hand out again
                docs = list(nlp.pipe((eg.predicted.copy() for eg in examples), batch_size=size,
                                     component_cfg=component_cfg or {}))
                seconds = timer() - start
                results = None
                if own_scores:
                    results = pair_scores(nlp, [DocPair(doc, eg.reference) for doc, eg in zip(docs, examples)],
                                          cfg, per_component)
                if results is None:
                    if scorer is None:
                        scorer = Scorer(**{"nlp": nlp, **(scorer_cfg or {})})
                    scored = [Example(doc, eg.reference) for doc, eg in zip(docs, examples)]
                    results = scorer.score(scored, per_component=per_component)
                found = results, seconds, sum(len(doc) for doc in docs)
            results, seconds, n_words = found
            results["speed"] = n_words / seconds if seconds > 0 else 0.0
            return plain_floats(results)

    evaluate.__doc__ = lean_evaluate.__doc__
    mark_lean(evaluate)  # marks the installed function (tests, repeated installs)
    return evaluate


def install_lean_evaluate(nlp: Language) -> Language:
    """Set `lean_evaluate(nlp)` as `nlp.evaluate` (an instance attribute:
    the class, other nlp objects and saved pipelines are untouched)."""
    if not is_lean(nlp.__dict__.get("evaluate")):
        nlp.evaluate = lean_evaluate(nlp)
    return nlp
