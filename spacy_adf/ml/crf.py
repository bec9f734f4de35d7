"""`spacy_adf.CRF.v1`: the thinc Model that carries a CRF's templates and,
once initialized, its feature table and weights.

The model is not differentiable through thinc: the owning component trains it
with the exact CRF gradient (`CRFModel.accumulate_gradient`). `model.predict(docs)`
returns the Viterbi label ids of each Doc.
"""
from typing import List, Optional, Tuple

import numpy
from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model

from ..features.crf_layout import check_feature_modes, edge_mask
from ..features.templates import TemplateSet


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
    tset = TemplateSet(templates)
    check_feature_modes(state_features, edge_features, min_freq)
    mask = edge_mask(tset.templates, edge_templates)
    return Model(
        "spacy_adf_crf",
        _forward,
        attrs={
            "templates": tset,
            "edge_mask": mask,
            "min_freq": min_freq,
            "state_features": state_features,
            "edge_features": edge_features,
            "crf": None,
            "table": None,
        },
    )


def featurize(model: Model, docs: List[Doc], component: str = "adf_tagger"):
    """Known feature ids of a batch of Docs as (seq_starts, pos_ptr, attrs)."""
    tset: TemplateSet = model.attrs["templates"]
    table = model.attrs["table"]
    lengths = [len(doc) for doc in docs]
    seq_starts = numpy.zeros(len(docs) + 1, dtype=numpy.int64)
    seq_starts[1:] = numpy.cumsum(lengths)
    ptrs = [numpy.zeros(1, dtype=numpy.int64)]
    attrs = []
    offset = 0
    for doc in docs:
        if len(doc) == 0:
            continue
        tset.check_doc(doc, component)
        ptr, a = table.lookup(tset.hashes(doc))
        ptrs.append(ptr[1:] + offset)
        attrs.append(a)
        offset += len(a)
    pos_ptr = numpy.concatenate(ptrs)
    attrs = numpy.concatenate(attrs) if attrs else numpy.zeros(0, dtype=numpy.int32)
    return seq_starts, pos_ptr, attrs


def _forward(model: Model, docs: List[Doc], is_train: bool) -> Tuple[List[numpy.ndarray], None]:
    if is_train:
        raise NotImplementedError(
            "spacy_adf.CRF.v1 is trained by its component (adf_tagger), not by backprop"
        )
    crf = model.attrs["crf"]
    if crf is None:
        raise ValueError("the CRF model is not initialized: call nlp.initialize() first")
    ss, ptr, attrs = featurize(model, docs)
    labels = crf.viterbi(ss, ptr, attrs)
    return [labels[ss[i]:ss[i + 1]] for i in range(len(docs))], None
