"""Bunsetsu dependency scores, as Japanese dependency papers report them.

- ``bunsetsu_dep_acc``: the fraction of gold bunsetsu, leaving out each
  sentence's last one (its head, the root, is given), whose head is right.
  With predicted bunsetsu a gold bunsetsu counts as right only if a predicted
  bunsetsu has exactly its tokens and that one's head has exactly the tokens
  of the gold head.
- ``bunsetsu_sent_acc``: the fraction of sentences (Docs) with every head
  right and, with predicted bunsetsu, the same segmentation. A one-bunsetsu
  sentence is right by definition (it is counted; the paper's tables do).
- ``bunsetsu_seg_f``: bunsetsu boundary F1 (100 with gold bunsetsu).
Gold heads come from ``doc.spans[KEY].attrs["heads"]`` of the reference Doc,
predicted heads from the same attribute of the predicted Doc (set by
`pke_dependency`), or from its token tree if the attribute is missing.
"""
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from spacy.training import Example
from spacy.util import registry

from ..lang.ja.bunsetsu import BUNSETSU_KEY, bunsetsu_heads

Bounds = List[Tuple[int, int]]


def _group(doc, key: str, role: str) -> Tuple[Bounds, Optional[List[int]]]:
    if key not in doc.spans:
        raise ValueError(f"the {role} Doc has no doc.spans[{key!r}] (bunsetsu spans) to score")
    group = doc.spans[key]
    bounds = [(s.start, s.end) for s in group]
    heads = group.attrs.get("heads")
    if heads is None and len(doc) and doc.has_annotation("DEP"):
        heads = bunsetsu_heads(doc, key)
    return bounds, (list(heads) if heads is not None else None)


def sentence_counts(gold_bounds: Bounds, gold_heads: Sequence[int], pred_bounds: Bounds,
                    pred_heads: Optional[Sequence[int]]) -> Tuple[int, int, bool]:
    """(correct, scored, sentence right) for one sentence."""
    scored = max(len(gold_bounds) - 1, 0)
    if pred_heads is None:
        return 0, scored, scored == 0 and gold_bounds == pred_bounds
    index = {b: k for k, b in enumerate(pred_bounds)}
    correct = 0
    for k in range(scored):
        p = index.get(gold_bounds[k])
        gh = gold_heads[k]
        if p is None or gh < 0:
            continue
        ph = pred_heads[p]
        if ph >= 0 and pred_bounds[ph] == gold_bounds[gh]:
            correct += 1
    return correct, scored, correct == scored and gold_bounds == pred_bounds


def score_bunsetsu_deps(examples: Iterable[Example], spans_key: str = BUNSETSU_KEY) -> Dict[str, float]:
    """bunsetsu_dep_acc, bunsetsu_sent_acc and bunsetsu_seg_f (module docstring)."""
    correct = scored = right = n = 0
    tp = n_gold = n_pred = 0
    for eg in examples:
        gold_bounds, gold_heads = _group(eg.reference, spans_key, "reference")
        if gold_heads is None:
            raise ValueError(f"the reference Doc has no bunsetsu heads in doc.spans[{spans_key!r}].attrs['heads']")
        pred = eg.predicted
        if spans_key in pred.spans:
            pred_bounds, pred_heads = _group(pred, spans_key, "predicted")
        else:
            pred_bounds, pred_heads = [], None
        c, s, ok = sentence_counts(gold_bounds, gold_heads, pred_bounds, pred_heads)
        correct += c
        scored += s
        right += ok
        n += 1
        tp += len(set(gold_bounds) & set(pred_bounds))
        n_gold += len(gold_bounds)
        n_pred += len(pred_bounds)
    seg_f = 2 * tp / (n_gold + n_pred) if n_gold + n_pred else 0.0
    return {
        "bunsetsu_dep_acc": correct / scored if scored else 0.0,
        "bunsetsu_sent_acc": right / n if n else 0.0,
        "bunsetsu_seg_f": seg_f,
    }


@registry.scorers("spacy_adf.bunsetsu_dep_scorer.v1")
def make_bunsetsu_dep_scorer(spans_key: str = BUNSETSU_KEY):
    """`score_bunsetsu_deps` as a component scorer. A ``spans_key`` given at
    call time wins over this one: `pke_dependency` passes its own, so the
    scores always read the span group the component parsed."""
    def scorer(examples: Iterable[Example], **kwargs) -> Dict[str, float]:
        return score_bunsetsu_deps(examples, spans_key=kwargs.get("spans_key", spans_key))

    return scorer
