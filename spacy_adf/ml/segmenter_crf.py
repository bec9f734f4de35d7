"""`spacy_adf.SegmenterCRF.v1`: the character CRF of adf_segmenter.

The thinc Model carries a CharSegmenter: the feature options and, once
initialized, the featurizer (with its lexicon), the feature table and the
CRF. Like spacy_adf.CRF.v1 it is trained by its component with the exact CRF
gradient, not by backprop.
"""
from spacy.util import registry
from thinc.api import Model

from ..models.char_segmenter import CharSegmenter
from . import PLAIN_MODEL


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
    """min_word, max_word: lengths of lexicon words the dictionary features match.
    word_features: also use the matched words themselves as features (not only
        their lengths).
    lexicon_folds: while training, a word seen in only one of this many folds
        of the corpus is hidden from that fold's sentences, so the dictionary
        features learn how much an unseen word's lexicon match is worth; 1 or 0
        shows every training word to every sentence.
    min_freq, state_features, edge_features: as in spacy_adf.CRF.v1.
    char_trigrams: also the character trigrams c[-2..0], c[-1..1], c[0..2] and
        the skip pairs c[-2]c[0], c[0]c[2].
    """
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
    segmenter = CharSegmenter(options)
    return Model("spacy_adf_segmenter_crf", _forward, attrs={PLAIN_MODEL: segmenter})


def _forward(model: Model, docs, is_train: bool):
    raise NotImplementedError(
        "spacy_adf.SegmenterCRF.v1 is run and trained by its component (adf_segmenter)"
    )
