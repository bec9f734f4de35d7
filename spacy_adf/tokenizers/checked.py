"""`spacy_adf.CheckedTokenizer.v1`: spaCy's rule-based tokenizer with its file in a checksummed
frame (docs/components.md, "Tokenizers and rule components")."""
from typing import Callable

from spacy.tokenizer import Tokenizer
from spacy.util import registry

from ..serialization.framed import unwrap, wrap

PART = "tokenizer"
REGISTERED_NAME = "spacy_adf.CheckedTokenizer.v1"


class CheckedTokenizer(Tokenizer):
    """spaCy's `Tokenizer`; its bytes (and so its file) are framed and checked."""

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        return wrap(PART, super().to_bytes(exclude=exclude))

    def from_bytes(self, bytes_data, *, exclude=tuple()) -> "CheckedTokenizer":
        try:
            payload = unwrap(PART, bytes_data)
        except ValueError as e:
            raise ValueError(f"[tokenizer] {e}: the tokenizer file is damaged or was not written by "
                             f"{REGISTERED_NAME}; re-download or re-save the pipeline") from None
        return super().from_bytes(bytes(payload), exclude=exclude)


def checked_tokenizer(tokenizer: Tokenizer) -> CheckedTokenizer:
    """A `CheckedTokenizer` with `tokenizer`'s vocab, rules and patterns."""
    return CheckedTokenizer(tokenizer.vocab, rules=tokenizer.rules, prefix_search=tokenizer.prefix_search,
                            suffix_search=tokenizer.suffix_search, infix_finditer=tokenizer.infix_finditer,
                            token_match=tokenizer.token_match, url_match=tokenizer.url_match,
                            faster_heuristics=tokenizer.faster_heuristics)


@registry.tokenizers(REGISTERED_NAME)
def create_checked_tokenizer() -> Callable:
    """spaCy's default tokenizer of the language, checked on load."""
    default = registry.tokenizers.get("spacy.Tokenizer.v1")()

    def make(nlp) -> CheckedTokenizer:
        return checked_tokenizer(default(nlp))

    return make
