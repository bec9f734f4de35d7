"""Score weights that follow a component's settings.

spaCy reads a component's default score weights from its factory, one dict
for every instance. adf_tagger reports different scores by target (ents_f,
spans_KEY_f, tag_acc, ...), so its factory calls `set_score_weights`, which
gives that instance its own copy of the factory metadata with the right
weights. spaCy stores the metadata right after the factory returns, so the
copy is put in place by the store itself (a dict that swaps it in).
"""
import dataclasses
from typing import Dict, Optional

from spacy.language import Language


class _PipeMeta(dict):
    """Language._pipe_meta that gives named instances their own score weights."""

    def __init__(self, data, weights: Dict[str, Dict[str, Optional[float]]]):
        super().__init__(data)
        self.weights = weights

    def __setitem__(self, name, meta):
        weights = self.weights.pop(name, None)
        if weights is not None:
            meta = dataclasses.replace(meta, default_score_weights=weights, scores=list(weights))
        super().__setitem__(name, meta)

    def __reduce__(self):
        # a pickled pipeline keeps the metadata already swapped in
        return (dict, (dict(self),))


def set_score_weights(nlp: Language, name: str, weights: Dict[str, Optional[float]]) -> None:
    """Make the component `name` being created now report `weights`."""
    store = nlp._pipe_meta
    if not isinstance(store, _PipeMeta):
        store = nlp._pipe_meta = _PipeMeta(store, {})
    store.weights[name] = dict(weights)
