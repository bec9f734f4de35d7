"""`ptb_quote_tags`: the Penn Treebank tags of quotes and brackets (docs/components.md,
"Tokenizers and rule components")."""
from typing import Iterable, List, Tuple

import numpy
from spacy.attrs import ORTH, SPACY
from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc

from .handled_calls import HandledCalls

STRAIGHT = '"'
OPENING_QUOTES = ("\u201c",)
CLOSING_QUOTES = ("\u201d",)
OPENING_BRACKETS = ("(", "[", "{")
CLOSING_BRACKETS = (")", "]", "}")


@Language.factory(
    "ptb_quote_tags",
    assigns=["token.tag"],
    default_config={"open_quote_tag": "``", "close_quote_tag": "''", "open_bracket_tag": "(",
                    "close_bracket_tag": ")"},
)
def make_ptb_quote_tags(nlp: Language, name: str, *, open_quote_tag: str, close_quote_tag: str,
                        open_bracket_tag: str, close_bracket_tag: str) -> "PTBQuoteTags":
    """The four tags to write (the Penn Treebank's by default)."""
    return PTBQuoteTags(nlp.vocab, name, open_quote_tag=open_quote_tag, close_quote_tag=close_quote_tag,
                        open_bracket_tag=open_bracket_tag, close_bracket_tag=close_bracket_tag)


class PTBQuoteTags(HandledCalls, Pipe):
    """No weights (so no ``model``): rules over the quote and bracket tokens."""

    def __init__(self, vocab, name: str = "ptb_quote_tags", *, open_quote_tag: str = "``",
                 close_quote_tag: str = "''", open_bracket_tag: str = "(", close_bracket_tag: str = ")"):
        tags = {"open_quote_tag": open_quote_tag, "close_quote_tag": close_quote_tag,
                "open_bracket_tag": open_bracket_tag, "close_bracket_tag": close_bracket_tag}
        for key, value in tags.items():
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"[{name}] {key} must be a non-empty tag string, not {value!r}")
        self.name = name
        self.vocab = vocab
        self.cfg = tags
        self._key = {}  # orth id -> the cfg key of its tag (None: a straight quote, by direction)
        for texts, key in ((OPENING_QUOTES, "open_quote_tag"), (CLOSING_QUOTES, "close_quote_tag"),
                           ((STRAIGHT,), None), (OPENING_BRACKETS, "open_bracket_tag"),
                           (CLOSING_BRACKETS, "close_bracket_tag")):
            for text in texts:
                self._key[vocab.strings.add(text)] = key
        self._orths = numpy.array(sorted(self._key), dtype=numpy.uint64)

    def predict(self, docs: Iterable[Doc]) -> List[List[Tuple[int, str]]]:
        """Per Doc, (token index, tag) of its quotes and brackets."""
        return [self._doc_tags(doc) for doc in docs]

    def _doc_tags(self, doc: Doc) -> List[Tuple[int, str]]:
        if len(doc) == 0:
            return []
        arr = doc.to_array([ORTH, SPACY])
        orth, space = arr[:, 0], arr[:, 1]
        out: List[Tuple[int, str]] = []
        quote_open = False  # the last straight quote opened
        for i in numpy.flatnonzero(numpy.isin(orth, self._orths)).tolist():
            key = self._key[int(orth[i])]
            if key is None:
                quote_open = _opens(space, i, quote_open)
                key = "open_quote_tag" if quote_open else "close_quote_tag"
            out.append((i, self.cfg[key]))
        return out

    def set_annotations(self, docs: Iterable[Doc], tags: List[List[Tuple[int, str]]]) -> None:
        for doc, doc_tags in zip(docs, tags):
            for i, tag in doc_tags:
                doc[i].tag_ = tag


def _opens(space: numpy.ndarray, i: int, quote_open: bool) -> bool:
    """Whether the straight quote at i opens a quotation (space: the trailing-space flags)."""
    against_prev = i > 0 and not space[i - 1]
    against_next = i + 1 < len(space) and not space[i]
    if against_next and not against_prev:
        return True
    if against_prev and not against_next:
        return False
    return not quote_open
