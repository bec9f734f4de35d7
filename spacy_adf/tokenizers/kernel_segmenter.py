"""`spacy_adf.KernelSegmenter.v1`: a tokenizer that segments text into words with a trained
pke_segmenter model (docs/components.md, "Kernel taggers").
"""
from spacy.util import registry
from spacy.vocab import Vocab

from ..pipeline.kernel_segmenter import KernelSegmenter
from .word_tokenizer import SegmentingTokenizer


class KernelSegmenterTokenizer(SegmentingTokenizer):
    registered_name = "spacy_adf.KernelSegmenter.v1"
    file_format = "spacy_adf.KernelSegmenter"
    component_factory = "pke_segmenter"
    component_class = KernelSegmenter
    component_files = ("cfg", "features", "classifier")  # of a saved pke_segmenter folder

    def __init__(self, vocab: Vocab):
        super().__init__(vocab, KernelSegmenter(vocab, name="pke_segmenter_tokenizer"))

    def from_segmenter(self, segmenter: KernelSegmenter) -> "KernelSegmenterTokenizer":
        """Take over (a copy of) a trained pke_segmenter component's model."""
        if not isinstance(segmenter, KernelSegmenter):
            raise ValueError(f"{self.registered_name}: expected a pke_segmenter component, "
                             f"got {type(segmenter).__name__}")
        if not segmenter.is_trained:
            raise ValueError(f"{self.registered_name}: the pke_segmenter is not trained")
        self.component.from_bytes(segmenter.to_bytes())
        return self


@registry.tokenizers(KernelSegmenterTokenizer.registered_name)
def create_kernel_segmenter_tokenizer():
    return KernelSegmenterTokenizer.of_nlp
