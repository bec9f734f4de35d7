"""Scores of adf_textcat (exclusive classes): spaCy's ``Scorer.score_cats``
plus ``cats_accuracy``, the share of examples whose top predicted label is
the gold one (docs/components.md, "Text classification")."""
from typing import Any, Dict, Iterable, Optional

from spacy.scorer import Scorer
from spacy.training import Example
from spacy.util import registry


def textcat_accuracy(examples: Iterable[Example], labels: Optional[Iterable[str]] = None) -> Optional[float]:
    keep = set(labels) if labels is not None else None
    right = total = 0
    for eg in examples:
        gold = {k: v for k, v in eg.reference.cats.items() if (keep is None or k in keep) and v is not None}
        if not gold or max(gold.values()) <= 0:
            continue
        gold_label = max(gold.items(), key=lambda kv: kv[1])[0]
        pred = {k: v for k, v in eg.predicted.cats.items() if keep is None or k in keep}
        total += 1
        if pred and max(pred.items(), key=lambda kv: kv[1])[0] == gold_label:
            right += 1
    return right / total if total else None


def textcat_score(examples: Iterable[Example], *, labels: Iterable[str] = (), **kwargs) -> Dict[str, Any]:
    examples = list(examples)
    labels = list(labels)
    kwargs.pop("multi_label", None)
    scores = Scorer.score_cats(examples, "cats", labels=labels, multi_label=False, **kwargs)
    scores["cats_accuracy"] = textcat_accuracy(examples, labels or None)
    return scores


@registry.scorers("spacy_adf.textcat_scorer.v1")
def make_textcat_scorer():
    return textcat_score
