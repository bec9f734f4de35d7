"""Scores of adf_tagger, by target: ents_p/r/f, spans_<key>_p/r/f,
tag_acc / pos_acc, or <extension>_acc."""
from typing import Any, Dict, Iterable

from spacy.scorer import Scorer
from spacy.training import Example
from spacy.util import registry


def tagger_score(examples: Iterable[Example], *, target=None, **kwargs) -> Dict[str, Any]:
    """Scores of adf_tagger's target (the component passes it); without one, spaCy's entity P/R/F."""
    if target is None:
        return Scorer.score_spans(examples, "ents", **kwargs)
    return target.score(examples, **kwargs)


@registry.scorers("spacy_adf.tagger_scorer.v1")
def make_tagger_scorer():
    return tagger_score
