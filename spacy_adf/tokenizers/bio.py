"""`spacy_adf.BioTokenizer.v1`: spaCy's rule-based tokenizer with GENIA-like
word splitting for biomedical text (the JNLPBA tokenisation): no splits at
hyphens, slashes or "+", so entity names such as "IL-2", "C/EBP" and "CD8+"
stay one token; the brat reader (corpora/brat.py) cuts tokens at entity
boundaries where an entity ends inside a word."""
from typing import Callable, Dict

from spacy.util import registry

from .checked import CheckedTokenizer


# Split anywhere inside a word (GENIA never keeps these inside a token).
BIO_INFIXES = (r"\.\.+", "…", r"[()\[\]{};:=,]")


def bio_tokenizer_settings(nlp) -> Dict:
    """Keyword arguments for ``spacy.tokenizer.Tokenizer``: spaCy's defaults for
    the language, except that words are split only at brackets, ``; : = ,`` and
    ellipses (no splits at hyphens, slashes or ``+``), a final ``+`` stays on
    its word ("Ca2+", "CD8+"), a final period is split after a capital too
    ("protein R." -> "R", "."), and the single-letter abbreviation exceptions
    ("a." ... "z.") are dropped."""
    from spacy.util import compile_infix_regex, compile_prefix_regex, compile_suffix_regex

    defaults = nlp.Defaults
    rules = {k: v for k, v in (defaults.tokenizer_exceptions or {}).items()
             if not (len(k) == 2 and k[0].isalpha() and k[1] == ".")}
    suffixes = [x for x in (defaults.suffixes or []) if x != r"(?<=[0-9])\+"] + [r"(?<=[A-Z])\."]
    return dict(
        rules=rules,
        prefix_search=compile_prefix_regex(defaults.prefixes).search if defaults.prefixes else None,
        suffix_search=compile_suffix_regex(suffixes).search,
        infix_finditer=compile_infix_regex(BIO_INFIXES).finditer,
        token_match=defaults.token_match,
        url_match=defaults.url_match,
    )


@registry.tokenizers("spacy_adf.BioTokenizer.v1")
def create_bio_tokenizer() -> Callable:
    """spaCy's rule-based tokenizer with GENIA-like word splitting (see
    `bio_tokenizer_settings`): "IL-2-induced", "C/EBP", "NF-kappaB" stay one
    token, "Ro(SSA)" and "1;14" are split. Brackets and punctuation at word
    edges are split as in spaCy's defaults. Its file is checked on load
    (`tokenizers.checked`)."""

    def tokenizer_factory(nlp):
        return CheckedTokenizer(nlp.vocab, **bio_tokenizer_settings(nlp))

    return tokenizer_factory
