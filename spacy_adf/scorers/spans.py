"""Span P/R/F with the result of spaCy's `Scorer.score_spans(labeled=True,
allow_overlap=False)`, faster: when both Docs have the same tokens and the
predicted spans do not overlap, spaCy's alignment (`get_aligned_spans_x2y`,
which walks Token objects) is the identity and is skipped."""
from typing import Any, Callable, Dict, Iterable, Optional, Set, Tuple

from spacy.attrs import ORTH
from spacy.scorer import PRFScore
from spacy.training import Example


def same_tokens(pred, gold) -> bool:
    """True if two Docs have identical tokens (no alignment needed)."""
    return len(pred) == len(gold) and pred.to_array(ORTH).tobytes() == gold.to_array(ORTH).tobytes()


def triples(spans) -> Set[Tuple[str, int, int]]:
    """{(label, start, last token)} of spans, as spaCy's scorer compares them."""
    return {(s.label_, s.start, s.end - 1) for s in spans}


def _non_overlapping(triples: Set[Tuple[str, int, int]]) -> bool:
    end = -1
    for start, last in sorted((t[1], t[2]) for t in triples):
        if start < end:
            return False
        end = last + 1
    return True


def _by_label(triples) -> Dict[str, set]:
    out: Dict[str, set] = {}
    for t in triples:
        out.setdefault(t[0], set()).add(t)
    return out


def score_spans(
    examples: Iterable[Example],
    attr: str,
    *,
    getter: Callable = getattr,
    has_annotation: Optional[Callable] = None,
) -> Dict[str, Any]:
    def aligned_sets():
        for eg in examples:
            pred_doc, gold_doc = eg.predicted, eg.reference
            if has_annotation is not None and not has_annotation(gold_doc):
                continue
            gold = triples(getter(gold_doc, attr))
            pred_spans = list(getter(pred_doc, attr)) if has_annotation is None or has_annotation(pred_doc) else []
            pred = triples(pred_spans)
            if not identity_aligned(pred, len(pred_spans), pred_doc, gold_doc):
                pred = triples(eg.get_aligned_spans_x2y(pred_spans, False))
            yield pred, gold

    return score_span_sets(aligned_sets(), attr)


def identity_aligned(pred: Set[Tuple[str, int, int]], n_spans: int, pred_doc, gold_doc) -> bool:
    """Whether spaCy's alignment leaves these predicted spans as they are (a duplicate span
    counts as overlapping: spaCy's alignment drops it)."""
    return not pred or (len(pred) == n_spans and _non_overlapping(pred) and same_tokens(pred_doc, gold_doc))


def score_span_sets(aligned: Iterable[Tuple[set, set]], attr: str) -> Dict[str, Any]:
    """spaCy's span scores from each example's (aligned predicted, gold) triples."""
    score = PRFScore()
    per_type: Dict[str, PRFScore] = {}
    empty: set = set()
    for pred, gold in aligned:
        pred_of, gold_of = _by_label(pred), _by_label(gold)
        for label in pred_of.keys() | gold_of.keys():
            if label not in per_type:
                per_type[label] = PRFScore()
            per_type[label].score_set(pred_of.get(label, empty), gold_of.get(label, empty))
        score.score_set(pred, gold)
    if len(score) == 0:
        return {f"{attr}_p": None, f"{attr}_r": None, f"{attr}_f": None, f"{attr}_per_type": None}
    return {f"{attr}_p": score.precision, f"{attr}_r": score.recall, f"{attr}_f": score.fscore,
            f"{attr}_per_type": {k: v.to_dict() for k, v in per_type.items()}}
