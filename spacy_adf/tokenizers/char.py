"""`spacy_adf.CharTokenizer.v1`: one token per character (whitespace as spaCy splits it), for
word segmentation (docs/components.md, "Tokenizers and rule components")."""
import re
from typing import List

from spacy.tokens import Doc
from spacy.util import registry
from spacy.vocab import Vocab

from ..features.chars import whitespace_gap

_SPACES = re.compile(r"\s+")  # runs of the characters str.isspace() accepts, and only those


class CharTokenizer:
    def __init__(self, vocab: Vocab):
        self.vocab = vocab

    def __call__(self, text: str) -> Doc:
        words, spaces = char_split(text)
        return Doc(self.vocab, words=words, spaces=spaces)

    def pipe(self, texts, batch_size: int = 1000):
        for text in texts:
            yield self(text)

    # Nothing to save: the tokenizer has no state beyond the vocab.
    def to_bytes(self, **kwargs) -> bytes:
        return b""

    def from_bytes(self, data: bytes, **kwargs) -> "CharTokenizer":
        return self

    def to_disk(self, path, **kwargs) -> None:
        return None

    def from_disk(self, path, **kwargs) -> "CharTokenizer":
        return self


def char_split(text: str):
    """(words, spaces) with one word per character; see the module docstring."""
    words: List[str] = []
    spaces: List[bool] = []
    end = 0
    for run in _SPACES.finditer(text):
        words.extend(text[end:run.start()])
        spaces.extend([False] * (run.start() - end))
        whitespace_gap(run.group(), words, spaces)
        end = run.end()
    words.extend(text[end:])
    spaces.extend([False] * (len(text) - end))
    return words, spaces


@registry.tokenizers("spacy_adf.CharTokenizer.v1")
def create_char_tokenizer():
    def make(nlp):
        return CharTokenizer(nlp.vocab)

    return make
