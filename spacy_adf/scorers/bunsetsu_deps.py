"""Bunsetsu dependency scores: bunsetsu_dep_acc, bunsetsu_sent_acc and
bunsetsu_seg_f, by the gold tree's sentences, bunsetsu compared by their
characters (docs/components.md, "Bunsetsu scores")."""
from bisect import bisect_right
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.training import Example
from spacy.util import registry

from ..lang.ja.bunsetsu import BUNSETSU_KEY, bunsetsu_heads, head_sentences

Bounds = List[Tuple[int, int]]


def _group(doc, key: str, role: str) -> Tuple[Bounds, Optional[List[int]]]:
    if key not in doc.spans:
        raise ValueError(f"the {role} Doc has no doc.spans[{key!r}] (bunsetsu spans) to score")
    group = doc.spans[key]
    bounds = [(s.start_char, s.end_char) for s in group]
    heads = group.attrs.get("heads")
    if heads is None and len(doc) and doc.has_annotation("DEP"):
        heads = bunsetsu_heads(doc, key)
    return bounds, (list(heads) if heads is not None else None)


def doc_counts(gold_bounds: Bounds, gold_heads: Sequence[int], pred_bounds: Bounds,
               pred_heads: Optional[Sequence[int]]) -> Tuple[int, int, int, int]:
    """(correct, scored, sentences right, sentences) for one Doc by the gold sentences, bounds
    in characters (docs/components.md, "Bunsetsu scores")."""
    if not gold_bounds:  # one empty sentence: right if nothing was predicted either
        return 0, 0, int(not pred_bounds), 1
    sentences = head_sentences(gold_heads)
    # each predicted bunsetsu belongs to the gold sentence in which it starts
    starts = [gold_bounds[a][0] for a, _ in sentences]
    sent_of = [max(bisect_right(starts, start) - 1, 0) for start, _ in pred_bounds]
    crossed = set()
    if pred_heads is not None:
        for p, ph in enumerate(pred_heads):
            if ph >= 0 and sent_of[p] != sent_of[ph]:
                crossed.update((sent_of[p], sent_of[ph]))
    pred_in: List[Bounds] = [[] for _ in sentences]
    for p, b in enumerate(pred_bounds):
        pred_in[sent_of[p]].append(b)
    by_end = {end: k for k, (_, end) in enumerate(pred_bounds)}
    correct = scored = right = 0
    for k, (a, e) in enumerate(sentences):
        sent_scored = e - a - 1
        sent_correct = 0
        if pred_heads is not None:
            for i in range(a, e - 1):
                p = by_end.get(gold_bounds[i][1])
                gh = gold_heads[i]
                if p is None or gh < 0:
                    continue
                ph = pred_heads[p]
                if ph >= 0 and pred_bounds[ph][1] == gold_bounds[gh][1]:
                    sent_correct += 1
        # without predicted heads, sent_correct is 0 and nothing is crossed
        right += sent_correct == sent_scored and pred_in[k] == gold_bounds[a:e] and k not in crossed
        correct += sent_correct
        scored += sent_scored
    return correct, scored, right, len(sentences)


def score_bunsetsu_deps(examples: Iterable[Example], spans_key: str = BUNSETSU_KEY) -> Dict[str, float]:
    """bunsetsu_dep_acc, bunsetsu_sent_acc and bunsetsu_seg_f (docs/components.md)."""
    correct = scored = right = n = 0
    tp = n_bounds = 0
    for eg in examples:
        gold_bounds, gold_heads = _group(eg.reference, spans_key, "reference")
        if gold_heads is None:
            raise ValueError(f"the reference Doc has no bunsetsu heads in doc.spans[{spans_key!r}].attrs['heads']")
        pred = eg.predicted
        pred_bounds, pred_heads = _group(pred, spans_key, "predicted") if spans_key in pred.spans else ([], None)
        c, s, ok, m = doc_counts(gold_bounds, gold_heads, pred_bounds, pred_heads)
        correct += c
        scored += s
        right += ok
        n += m
        tp += len(set(gold_bounds) & set(pred_bounds))
        n_bounds += len(gold_bounds) + len(pred_bounds)
    seg_f = 2 * tp / n_bounds if n_bounds else 0.0
    return {
        "bunsetsu_dep_acc": correct / scored if scored else 0.0,
        "bunsetsu_sent_acc": right / n if n else 0.0,
        "bunsetsu_seg_f": seg_f,
    }


@registry.scorers("spacy_adf.bunsetsu_dep_scorer.v1")
def make_bunsetsu_dep_scorer(spans_key: str = BUNSETSU_KEY):
    """`score_bunsetsu_deps` as a component scorer; a ``spans_key`` given at call time wins."""
    def scorer(examples: Iterable[Example], **kwargs) -> Dict[str, float]:
        return score_bunsetsu_deps(examples, spans_key=kwargs.get("spans_key", spans_key))

    return scorer
