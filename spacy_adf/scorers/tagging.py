"""Scores of adf_tagger, by target: ents_p/r/f, spans_<key>_p/r/f,
tag_acc / pos_acc, or <extension>_acc."""
from typing import Any, Dict, Iterable

from spacy.training import Example
from spacy.util import registry


def tagger_score(examples: Iterable[Example], *, target=None, **kwargs) -> Dict[str, Any]:
    if target is None:
        from ..pipeline.targets import make_target

        target = make_target("ents")
    return target.score(examples, **kwargs)


@registry.scorers("spacy_adf.tagger_scorer.v1")
def make_tagger_scorer():
    return tagger_score
