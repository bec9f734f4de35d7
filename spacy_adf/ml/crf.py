"""`spacy_adf.CRF.v1`: the thinc Model of `adf_tagger`. It carries a
SequenceCRF (templates; once initialized, the feature table and weights).

The model is not differentiable through thinc: the component trains it with
the exact CRF gradient. `model.predict(docs)` returns the Viterbi label ids
of each Doc.
"""
from typing import List, Optional

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model

from ..models.sequence_crf import SequenceCRF
from . import PLAIN_MODEL


@registry.architectures("spacy_adf.CRF.v1")
def build_crf_model(
    templates: List[str],
    min_freq: int = 1,
    state_features: str = "all",
    edge_features: str = "observed",
    edge_templates: Optional[List[str]] = None,
) -> Model:
    """templates: feature templates (see spacy_adf.features.templates).
    min_freq: drop template values seen fewer times in training.
    state_features: "all" (every label for every feature) or "observed".
    edge_features: rich edge weights (feature x label pair): "observed"
    pairs, "all" pairs, or "none" (plain label transitions only).
    edge_templates: templates that get edge weights (null = all of them).
    """
    crf = SequenceCRF(templates, min_freq=min_freq, state_features=state_features,
                      edge_features=edge_features, edge_templates=edge_templates)
    return Model("spacy_adf_crf", _forward, attrs={PLAIN_MODEL: crf})


def _forward(model: Model, docs: List[Doc], is_train: bool):
    if is_train:
        raise NotImplementedError(
            "spacy_adf.CRF.v1 is trained by its component (adf_tagger), not by backprop"
        )
    return [labels for labels, _ in model.attrs[PLAIN_MODEL].predict(docs)], None
