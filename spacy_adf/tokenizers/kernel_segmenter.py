"""`spacy_adf.KernelSegmenter.v1`: a tokenizer that segments text into words with a trained
pke_segmenter model (docs/components.md, "Kernel taggers").
"""
from spacy.util import registry
from spacy.vocab import Vocab

from ..pipeline.kernel_segmenter import KernelSegmenter
from .word_tokenizer import SegmentingTokenizer


# a table of the component's names, as SegmenterTokenizer's: SegmentingTokenizer does the work
class KernelSegmenterTokenizer(SegmentingTokenizer):
    registered_name = "spacy_adf.KernelSegmenter.v1"
    file_format = "spacy_adf.KernelSegmenter"
    component_factory = "pke_segmenter"
    component_class = KernelSegmenter
    component_files = ("cfg", "features", "classifier")  # of a saved pke_segmenter folder

    def __init__(self, vocab: Vocab):
        super().__init__(vocab, KernelSegmenter(vocab, name="pke_segmenter_tokenizer"))


@registry.tokenizers(KernelSegmenterTokenizer.registered_name)
def create_kernel_segmenter_tokenizer():
    return KernelSegmenterTokenizer.of_nlp
