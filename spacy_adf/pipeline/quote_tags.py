"""`ptb_quote_tags`: the Penn Treebank tags of running-text quotes and
brackets, after a POS tagger trained on treebank tokens.

The treebank writes quotes by direction (`` and '') and brackets as
-LRB- / -RRB-, so a tagger trained on it has no evidence for the direction
of a straight quote ``"`` nor for a bracket written as itself; the chunkers
after it read the tags. This component tags

- a straight quote by where it stands: opening when it is written against
  the next word only, closing when written against the previous word only,
  and otherwise (spaces on both sides, as in text whose tokens were joined
  by spaces, or against both words) as the other half of the last straight
  quote in the Doc: closing when a quote is open, else opening;
- typographic quotes by their shape (“ opening, ” closing);
- brackets ( [ { and ) ] } with the treebank's ( and ) tags.

Other tokens keep their tags. (spaCy's attribute_ruler, used before,
cannot pair quotes: it tagged every spaced straight quote as opening.)
"""
from typing import Iterable, List, Tuple

import numpy
from spacy.attrs import ORTH
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
    """No weights (so no ``model``): rules over the quote and bracket tokens.
    __call__ and pipe send errors to the error handler (`HandledCalls`)."""

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
        self._kind = {}  # orth id -> what the token is
        for texts, kind in ((OPENING_QUOTES, "open"), (CLOSING_QUOTES, "close"), ((STRAIGHT,), "straight"),
                            (OPENING_BRACKETS, "open_bracket"), (CLOSING_BRACKETS, "close_bracket")):
            for text in texts:
                self._kind[vocab.strings.add(text)] = kind
        self._orths = numpy.array(sorted(self._kind), dtype=numpy.uint64)

    def predict(self, docs: Iterable[Doc]) -> List[List[Tuple[int, str]]]:
        """Per Doc, (token index, tag) of its quotes and brackets."""
        return [self._doc_tags(doc) for doc in docs]

    def _doc_tags(self, doc: Doc) -> List[Tuple[int, str]]:
        if len(doc) == 0:
            return []
        orth = doc.to_array(ORTH)
        out: List[Tuple[int, str]] = []
        quote_open = False  # the last straight quote opened
        for i in numpy.flatnonzero(numpy.isin(orth, self._orths)).tolist():
            kind = self._kind[int(orth[i])]
            if kind == "straight":
                opening = self._opens(doc, i, quote_open)
                quote_open = opening
                kind = "open" if opening else "close"
            out.append((i, self.cfg[f"{kind}_quote_tag" if kind in ("open", "close") else f"{kind}_tag"]))
        return out

    @staticmethod
    def _opens(doc: Doc, i: int, quote_open: bool) -> bool:
        """Whether the straight quote doc[i] opens a quotation."""
        against_prev = i > 0 and not doc[i - 1].whitespace_
        against_next = i + 1 < len(doc) and not doc[i].whitespace_
        if against_next and not against_prev:
            return True
        if against_prev and not against_next:
            return False
        return not quote_open

    def set_annotations(self, docs: Iterable[Doc], tags: List[List[Tuple[int, str]]]) -> None:
        for doc, doc_tags in zip(docs, tags):
            for i, tag in doc_tags:
                doc[i].tag_ = tag
