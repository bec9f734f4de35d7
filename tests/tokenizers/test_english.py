"""spacy_adf.tokenizers.english: the treebank's tokens where spaCy's English
rules differ, spaCy's everywhere else, kept by a saved pipeline."""
import spacy
from spacy.util import registry

from spacy_adf.tokenizers.english import ptb_english_tokenizer


def _tokens(nlp, text):
    return [t.text for t in nlp.make_doc(text)]


def test_treebank_tokens_where_spacy_differs():
    nlp = spacy.blank("en")
    ptb_english_tokenizer(nlp)
    cases = {
        "a rate-sensitive stock": ["a", "rate-sensitive", "stock"],
        "in 1982-84 , 35-44 %": ["in", "1982-84", ",", "35-44", "%"],
        "call 1-800-453-9000 now": ["call", "1-800-453-9000", "now"],
        "I 've said we 'd go": ["I", "'ve", "said", "we", "'d", "go"],
        "in the '80s and '86": ["in", "the", "'80s", "and", "'86"],
        "Col. Smith and No. 2": ["Col.", "Smith", "and", "No.", "2"],
        "Id wed": ["Id", "wed"],
    }
    for text, want in cases.items():
        assert _tokens(nlp, text) == want, text


def test_spacy_conventions_elsewhere():
    nlp, plain = spacy.blank("en"), spacy.blank("en")
    ptb_english_tokenizer(nlp)
    for text in ["Don't stop, it's 3+4 (or $5.50)!", "He said \"no.\"", "U.S. firms' shares rose 5%."]:
        assert _tokens(nlp, text) == _tokens(plain, text), text


def test_rules_survive_a_save_and_the_registered_form_agrees(tmp_path):
    nlp = spacy.blank("en")
    ptb_english_tokenizer(nlp)
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    registered = spacy.blank("en")
    registered.tokenizer = registry.tokenizers.get("spacy_adf.PTBEnglishTokenizer.v1")()(registered)
    text = "Sens. Dole 's rate-sensitive plan in 1989-90 : I 'm sure , Id say."
    assert _tokens(loaded, text) == _tokens(nlp, text) == _tokens(registered, text)
    assert "1989-90" in _tokens(loaded, text)
