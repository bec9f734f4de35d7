"""`spacy_adf.CRF.v1` and `spacy_adf.CRF.v2`: the thinc Model of
`adf_tagger`. It carries a SequenceCRF (templates; once initialized, the
feature table and weights). v2 adds the word-vector features (``vectors``,
made by `spacy_adf.vector_features.v1`); without them it builds what v1
builds.

The model is not differentiable through thinc: the component trains it with
the exact CRF gradient. `model.predict(docs)` returns the Viterbi label ids
of each Doc.
"""
from typing import List, Optional

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model

from ..features.vector_features import WordVectorFeatures
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
    return build_crf_model_v2(templates, min_freq, state_features, edge_features, edge_templates)


@registry.architectures("spacy_adf.CRF.v2")
def build_crf_model_v2(
    templates: List[str],
    min_freq: int = 1,
    state_features: str = "all",
    edge_features: str = "observed",
    edge_templates: Optional[List[str]] = None,
    vectors: Optional[WordVectorFeatures] = None,
) -> Model:
    """spacy_adf.CRF.v1's settings, and vectors: the word vectors of the
    pipeline (nlp.vocab.vectors) as real-valued features
    (spacy_adf.vector_features.v1: offsets, scale), or null for none."""
    crf = SequenceCRF(templates, min_freq=min_freq, state_features=state_features,
                      edge_features=edge_features, edge_templates=edge_templates, vectors=vectors)
    return Model("spacy_adf_crf", _forward, attrs={PLAIN_MODEL: crf})


def _forward(model: Model, docs: List[Doc], is_train: bool):
    if is_train:
        raise NotImplementedError(
            "spacy_adf.CRF models are trained by their component (adf_tagger), not by backprop"
        )
    return [labels for labels, _ in model.attrs[PLAIN_MODEL].predict(docs)], None
