"""`spacy_adf.MaxEntTextcat.v1`: the thinc Model of `adf_textcat`. It
carries a MaxEntText (feature settings; once initialized, the feature index
and the MaxEnt weights)."""
from typing import List

from spacy.tokens import Doc
from spacy.util import registry
from thinc.api import Model

from ..features.ngrams import NgramFeaturizer
from ..models.maxent_text import MaxEntText
from . import PLAIN_MODEL


@registry.architectures("spacy_adf.MaxEntTextcat.v1")
def build_maxent_textcat(
    ngram_sizes: List[int] = [1, 2],
    lowercase: bool = True,
    value: str = "count",
    min_count: int = 1,
) -> Model:
    """ngram_sizes: token n-gram sizes (tokens joined by "_").
    lowercase: lower-case tokens before forming n-grams.
    value: feature value: "count", "binary" (1) or "log1p" (log(1 + count)).
    min_count: keep features that occur in at least this many training Docs.
    Precomputed features in doc.user_data["spacy_adf.features"] are used
    instead of n-grams when present (value and min_count still apply).
    The model is trained by its component, not by backprop; model.predict(docs)
    returns P(label | doc) as a float64 (n_docs, n_labels) array.
    """
    text_model = MaxEntText(NgramFeaturizer(ngram_sizes, lowercase, value, min_count))
    return Model("spacy_adf_maxent", _forward, attrs={PLAIN_MODEL: text_model})


def _forward(model: Model, docs: List[Doc], is_train: bool):
    if is_train:
        raise NotImplementedError(
            "spacy_adf.MaxEntTextcat.v1 is trained by its component (adf_textcat), not by backprop"
        )
    return model.attrs[PLAIN_MODEL].predict_proba(list(docs)), None
