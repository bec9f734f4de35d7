"""`spacy_adf.MaxEntTextcat.v1`: the thinc Model of `adf_textcat`, carrying a MaxEntText
(docs/components.md, "Text classification")."""
from typing import List

from spacy.util import registry
from thinc.api import Model

from ..features.ngrams import NgramFeaturizer
from ..models.maxent_text import MaxEntText
from . import carrier


@registry.architectures("spacy_adf.MaxEntTextcat.v1")
def build_maxent_textcat(
    ngram_sizes: List[int] = [1, 2],
    lowercase: bool = True,
    value: str = "count",
    min_count: int = 1,
) -> Model:
    text_model = MaxEntText(NgramFeaturizer(ngram_sizes, lowercase, value, min_count))
    return carrier("spacy_adf_maxent", text_model, "adf_textcat", _probabilities)


def _probabilities(text_model: MaxEntText, docs):
    return text_model.predict_proba(list(docs))
