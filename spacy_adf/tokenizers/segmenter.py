"""`spacy_adf.Segmenter.v1`: a tokenizer that segments text into words with a trained
adf_segmenter model (docs/components.md, "Word segmentation").
"""
from pathlib import Path
from typing import Optional, Union

from spacy.util import registry
from spacy.vocab import Vocab

from ..ml.segmenter_crf import build_segmenter_model
from ..models.char_segmenter import CharSegmenter
from ..pipeline.segmenter import ADFSegmenter
from ..scorers.segmentation import make_segmentation_scorer
from .word_tokenizer import SegmentingTokenizer


class SegmenterTokenizer(SegmentingTokenizer):
    registered_name = "spacy_adf.Segmenter.v1"
    file_format = "spacy_adf.Segmenter"
    component_factory = "adf_segmenter"
    component_class = ADFSegmenter
    component_files = ("cfg", "model")

    def __init__(self, vocab: Vocab):
        super().__init__(vocab, ADFSegmenter(vocab, build_segmenter_model(), name="segmenter_tokenizer",
                                             scorer=make_segmentation_scorer()))

    def initialize(self, get_examples=None, *, nlp=None, segmenter_model: Optional[Union[str, Path]] = None,
                   user_dict: Optional[Union[str, Path]] = None, pkuseg_model=None, pkuseg_user_dict=None) -> None:
        """SegmentingTokenizer.initialize, then the words of `user_dict` (one a line) as user words."""
        super().initialize(segmenter_model=segmenter_model)
        if user_dict is not None:
            self.component.load_user_dict(user_dict)

    def from_segmenter(self, segmenter) -> "SegmenterTokenizer":
        """Take over (a copy of) a trained adf_segmenter's model, or a CharSegmenter."""
        if not isinstance(segmenter, CharSegmenter):
            return super().from_segmenter(segmenter)
        segmenter.crf.require_built()
        self.component.from_bytes(segmenter.to_bytes())
        return self


@registry.tokenizers(SegmenterTokenizer.registered_name)
def create_segmenter_tokenizer():
    return SegmenterTokenizer.of_nlp
