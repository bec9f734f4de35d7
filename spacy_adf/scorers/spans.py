"""Span P/R/F with the result of spaCy's `Scorer.score_spans`, faster.

spaCy aligns every predicted span to the reference tokens through
`Example.get_aligned_spans_x2y`, which walks Python Token objects; for a
tagger evaluated on pre-tokenised data that is most of the evaluation time.
When an example's predicted and reference Docs have the same tokens (equal
ORTH arrays) and the predicted spans do not overlap, that alignment is the
identity, so the spans are compared as (label, start, end) directly. Any
other example takes spaCy's own alignment, so the scores are always the ones
`Scorer.score_spans(labeled=True, allow_overlap=False)` gives
(tests/scorers/test_spans.py checks this).
"""
from typing import Any, Callable, Dict, Iterable, Optional

import numpy
from spacy.attrs import ORTH
from spacy.scorer import PRFScore
from spacy.training import Example


def same_tokens(pred, gold) -> bool:
    """True if two Docs have identical tokens (no alignment needed)."""
    return len(pred) == len(gold) and bool(numpy.array_equal(pred.to_array(ORTH), gold.to_array(ORTH)))


def _non_overlapping(spans) -> bool:
    end = -1
    for start, stop in sorted((s.start, s.end) for s in spans):
        if start < end:
            return False
        end = stop
    return True


def score_spans(
    examples: Iterable[Example],
    attr: str,
    *,
    getter: Callable = getattr,
    has_annotation: Optional[Callable] = None,
) -> Dict[str, Any]:
    score = PRFScore()
    per_type: Dict[str, PRFScore] = {}
    for eg in examples:
        pred_doc, gold_doc = eg.predicted, eg.reference
        if has_annotation is not None and not has_annotation(gold_doc):
            continue
        gold_list = list(getter(gold_doc, attr))
        pred_annotated = has_annotation is None or has_annotation(pred_doc)
        pred_list = list(getter(pred_doc, attr)) if pred_annotated else []
        labels = {s.label_ for s in gold_list} | {s.label_ for s in pred_list}
        for label in labels:
            per_type.setdefault(label, PRFScore())
        gold = {(s.label_, s.start, s.end - 1) for s in gold_list}
        if pred_list and not (same_tokens(pred_doc, gold_doc) and _non_overlapping(pred_list)):
            pred_list = eg.get_aligned_spans_x2y(pred_list, False)
        pred = {(s.label_, s.start, s.end - 1) for s in pred_list}
        for label in labels:
            per_type[label].score_set({p for p in pred if p[0] == label},
                                      {g for g in gold if g[0] == label})
        score.score_set(pred, gold)
    out: Dict[str, Any] = {f"{attr}_p": None, f"{attr}_r": None, f"{attr}_f": None,
                           f"{attr}_per_type": None}
    if len(score) > 0:
        out[f"{attr}_p"] = score.precision
        out[f"{attr}_r"] = score.recall
        out[f"{attr}_f"] = score.fscore
        out[f"{attr}_per_type"] = {k: v.to_dict() for k, v in per_type.items()}
    return out
