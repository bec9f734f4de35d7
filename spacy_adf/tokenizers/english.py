"""`spacy_adf.PTBEnglishTokenizer.v1`: spaCy's English tokenizer with the Penn Treebank's rules
(docs/components.md, "Tokenizers and rule components")."""
from typing import Callable

from spacy.lang.char_classes import ALPHA, HYPHENS
from spacy.symbols import NORM, ORTH
from spacy.tokenizer import Tokenizer
from spacy.util import compile_infix_regex, registry

from .checked import create_checked_tokenizer

# spaCy's infix rules that split "rate-sensitive" and "1982-84"
HYPHEN_INFIX = r"(?<=[{a}0-9])(?:{h})(?=[{a}])".format(a=ALPHA, h=HYPHENS)
NUMBER_OPERATOR_INFIX = r"(?<=[0-9])[+\-\*^](?=[0-9-])"
# the same without the hyphen: "3+4" and "2^8" still split, "1982-84" does not
NUMBER_OPERATOR_NO_HYPHEN = r"(?<=[0-9])[+\*^](?=[0-9])"

# a contraction standing apart from its word, as the treebank writes it
CONTRACTIONS = ["'s", "'re", "'ve", "'m", "'d", "'ll", "n't"]

# abbreviations the treebank keeps with their period that spaCy splits off
# (titles and ranks, company suffixes, a few common ones)
ABBREVIATIONS = [
    "No.", "Nos.", "Col.", "Maj.", "Capt.", "Lt.", "Sgt.", "Cmdr.", "Adm.", "Brig.", "Cpl.",
    "Sen.", "Sens.", "Rep.", "Reps.", "Gov.", "Gen.", "Supt.", "Prof.", "Sr.", "Jr.", "Rev.", "Fr.",
    "Msgr.", "Hon.", "Atty.", "Messrs.", "Mmes.", "Cos.", "Bros.", "Bhd.", "Bancorp.", "Inc.", "INC.",
    "Corp.", "CORP.", "Co.", "CO.", "Ltd.", "LTD.", "Ky.", "Nev.", "Mass.", "Calif.", "Conn.", "Del.",
    "etc.", "ft.", "vs.", "approx.", "est.", "Dept.", "Univ.",
]

# spaCy contraction exceptions without an apostrophe whose key is an English
# word as well: the treebank never splits these
WORDS_NOT_CONTRACTIONS = {"id", "wed", "ill", "hell", "shell", "its", "were", "well", "cant", "wont", "whore"}

# clipped years, kept whole: '00 .. '99 and '00s .. '90s
CLIPPED_YEARS = [f"'{n:02d}" for n in range(100)] + [f"'{n}0s" for n in range(10)]


def ptb_english_tokenizer(nlp) -> None:
    """Make `nlp`'s (English) tokenizer tokenize as the treebank (see module)."""
    _treebank_rules(nlp.tokenizer, nlp.Defaults.infixes, nlp.lang)


def _treebank_rules(tokenizer: Tokenizer, default_infixes, lang: str) -> None:
    infixes = list(default_infixes)
    if HYPHEN_INFIX not in infixes or NUMBER_OPERATOR_INFIX not in infixes:
        raise ValueError(f"the {lang!r} tokenizer has no hyphen infix rules to change; "
                         "ptb_english_tokenizer expects spaCy's English defaults")
    infixes.remove(HYPHEN_INFIX)
    infixes[infixes.index(NUMBER_OPERATOR_INFIX)] = NUMBER_OPERATOR_NO_HYPHEN
    tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
    rules = {k: v for k, v in tokenizer.rules.items() if k.lower() not in WORDS_NOT_CONTRACTIONS}
    for text in CONTRACTIONS:
        for form in {text, text.upper(), text.capitalize()}:
            rules[form] = [{ORTH: form}]
            curly = form.replace("'", "\u2019")
            rules[curly] = [{ORTH: curly, NORM: form.lower()}]
    for text in CLIPPED_YEARS + ABBREVIATIONS:
        rules[text] = [{ORTH: text}]
    tokenizer.rules = rules


@registry.tokenizers("spacy_adf.PTBEnglishTokenizer.v1")
def create_ptb_english_tokenizer() -> Callable:
    """spaCy's English tokenizer with the treebank's conventions, its file checked on load."""
    from spacy.lang.en import English

    default = create_checked_tokenizer()

    def make(nlp) -> Tokenizer:
        tokenizer = default(nlp)  # spaCy's tokenizer from the language's defaults
        _treebank_rules(tokenizer, English.Defaults.infixes, "en")
        return tokenizer

    return make
