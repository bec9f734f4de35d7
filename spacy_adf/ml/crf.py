"""`spacy_adf.CRF.v1` and `.v2`: the thinc Model of `adf_tagger`, carrying a SequenceCRF
(docs/training.md, "`adf_tagger` settings")."""
from typing import List, Optional

from spacy.util import registry
from thinc.api import Model

from ..features.vector_features import WordVectorFeatures
from ..models.sequence_crf import SequenceCRF
from . import carrier


@registry.architectures("spacy_adf.CRF.v1")
def build_crf_model(
    templates: List[str],
    min_freq: int = 1,
    state_features: str = "all",
    edge_features: str = "observed",
    edge_templates: Optional[List[str]] = None,
) -> Model:
    # v2 without `vectors`: an explicit signature, so thinc's config validation refuses them
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
    crf = SequenceCRF(templates, min_freq=min_freq, state_features=state_features,
                      edge_features=edge_features, edge_templates=edge_templates, vectors=vectors)
    return carrier("spacy_adf_crf", crf, "adf_tagger", _viterbi_labels)


def _viterbi_labels(crf: SequenceCRF, docs) -> list:
    return [labels for labels, _ in crf.predict(docs)]
