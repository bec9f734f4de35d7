"""`spacy_adf.CharTokenizer.v1`: one token per character, for Chinese and
Japanese word segmentation with a character-level CRF.

Every non-space character (code point) becomes a token; whitespace is split
as spaCy's tokenizer splits it: a single ASCII space after a character
becomes that token's trailing space, and the rest of a stretch of whitespace
(newlines, tabs, further spaces, ideographic spaces) becomes one whitespace
token. The text is kept exactly: ``doc.text == text``. Grapheme clusters are
split here too; the segmenter joins them again (`features.chars.unit_glue`).
"""
import re
from typing import List

from spacy.tokens import Doc
from spacy.util import registry
from spacy.vocab import Vocab

from ..features.chars import whitespace_gap

_SPACE = re.compile(r"\s")  # the characters str.isspace() accepts, and only those


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
    if not _SPACE.search(text):  # the common case: one word per character
        return list(text), [False] * len(text)
    words: List[str] = []
    spaces: List[bool] = []
    i, n = 0, len(text)
    while i < n:
        if text[i].isspace():
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            whitespace_gap(text[i:j], words, spaces)
            i = j
        else:
            words.append(text[i])
            spaces.append(False)
            i += 1
    return words, spaces


@registry.tokenizers("spacy_adf.CharTokenizer.v1")
def create_char_tokenizer():
    def make(nlp):
        return CharTokenizer(nlp.vocab)

    return make
