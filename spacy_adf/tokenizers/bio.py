"""`spacy_adf.BioTokenizer.v1`: spaCy's tokenizer with GENIA-like word splitting for biomedical
text (docs/components.md, "Tokenizers and rule components")."""
from typing import Callable

from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex, registry

from .checked import CheckedTokenizer


# Split anywhere inside a word (GENIA never keeps these inside a token).
BIO_INFIXES = (r"\.\.+", "…", r"[()\[\]{};:=,]")


@registry.tokenizers("spacy_adf.BioTokenizer.v1")
def create_bio_tokenizer() -> Callable:
    """A `CheckedTokenizer` with spaCy's defaults for the language and GENIA-like splitting."""

    def tokenizer_factory(nlp) -> CheckedTokenizer:
        defaults = nlp.Defaults
        rules = {k: v for k, v in (defaults.tokenizer_exceptions or {}).items()
                 if not (len(k) == 2 and k[0].isalpha() and k[1] == ".")}
        suffixes = [x for x in (defaults.suffixes or []) if x != r"(?<=[0-9])\+"] + [r"(?<=[A-Z])\."]
        return CheckedTokenizer(
            nlp.vocab,
            rules=rules,
            prefix_search=compile_prefix_regex(defaults.prefixes).search if defaults.prefixes else None,
            suffix_search=compile_suffix_regex(suffixes).search,
            infix_finditer=compile_infix_regex(BIO_INFIXES).finditer,
            token_match=defaults.token_match,
            url_match=defaults.url_match,
        )

    return tokenizer_factory
