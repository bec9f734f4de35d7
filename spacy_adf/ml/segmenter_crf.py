"""`spacy_adf.SegmenterCRF.v1`: the thinc Model of adf_segmenter, carrying a CharSegmenter
(docs/components.md, "Word segmentation")."""
from spacy.util import registry
from thinc.api import Model

from ..models.char_segmenter import CharSegmenter
from . import carrier


@registry.architectures("spacy_adf.SegmenterCRF.v1")
def build_segmenter_model(
    min_word: int = 2,
    max_word: int = 6,
    word_features: bool = True,
    lexicon_folds: int = 10,
    min_freq: int = 1,
    state_features: str = "all",
    edge_features: str = "observed",
    char_trigrams: bool = False,
) -> Model:
    options = {
        "min_word": min_word,
        "max_word": max_word,
        "word_features": bool(word_features),
        "lexicon_folds": lexicon_folds,
        "min_freq": min_freq,
        "state_features": state_features,
        "edge_features": edge_features,
    }
    if char_trigrams:  # only when on: a model without them has the same options (and digest) either way
        options["char_trigrams"] = True
    return carrier("spacy_adf_segmenter_crf", CharSegmenter(options), "adf_segmenter")
