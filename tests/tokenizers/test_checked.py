"""The tokenizers spacy-adf registers or assembles save spaCy's tokenizer file
inside a checked frame: the same tokens after a round trip (disk, bytes,
pickle), and a clear error for a changed byte, a truncated file or spaCy's
plain file."""
import pickle

import pytest
import spacy
from spacy.tokenizer import Tokenizer

from spacy_adf.tokenizers.checked import CheckedTokenizer
from spacy_adf.packaging.assemble import assemble

TEXT = "He 'd say the well-known U.S. firm's '86 results (IL-2-induced, CD8+) doubled."


def _registered(name):
    return spacy.blank("en", config={"nlp": {"tokenizer": {"@tokenizers": name}}})


@pytest.fixture(params=["spacy_adf.CheckedTokenizer.v1", "spacy_adf.PTBEnglishTokenizer.v1",
                        "spacy_adf.BioTokenizer.v1", "assembled"])
def nlp(request):
    if request.param == "assembled":
        return assemble("blank:en", [], keep_hyphenated=True, ptb_tokens=True)
    return _registered(request.param)


def _words(nlp):
    return [t.text for t in nlp(TEXT)]


def test_round_trips_keep_the_tokens(nlp, tmp_path):
    assert isinstance(nlp.tokenizer, CheckedTokenizer)
    want = _words(nlp)
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert isinstance(loaded.tokenizer, CheckedTokenizer)
    assert _words(loaded) == want
    again = spacy.blank("en", config=nlp.config).from_bytes(nlp.to_bytes())
    assert _words(again) == want
    assert [t.text for t in pickle.loads(pickle.dumps(loaded.tokenizer))(TEXT)] == want


def test_the_assembled_tokenizer_keeps_its_customised_rules():
    plain = spacy.blank("en")
    nlp = assemble("blank:en", [], ptb_tokens=True)
    assert nlp.config["nlp"]["tokenizer"] == {"@tokenizers": "spacy_adf.CheckedTokenizer.v1"}
    assert [t.text for t in nlp("well-known")] == ["well-known"]
    assert [t.text for t in plain("well-known")] == ["well", "-", "known"]


@pytest.mark.parametrize("damage", ["flip", "truncate", "plain"])
def test_a_damaged_tokenizer_file_is_refused(damage, tmp_path):
    nlp = _registered("spacy_adf.BioTokenizer.v1")
    nlp.to_disk(tmp_path / "p")
    path = tmp_path / "p" / "tokenizer"
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 1
    elif damage == "truncate":
        del data[-10:]
    else:  # spaCy's own, unframed file
        data = bytearray(Tokenizer.to_bytes(nlp.tokenizer))
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"\[tokenizer\] .*re-download or re-save the pipeline"):
        spacy.load(tmp_path / "p")
