"""Versioned payloads (serialization/payloads.py) and the files that use
them: the bunsetsu and kernel-tagger feature vocabularies and the segmenter
lexicon are written with a format name and version, and a file without
them is refused."""
import pytest
import srsly

from spacy_adf.serialization.framed import decode_arrays
from spacy_adf.serialization.payloads import dump_payload, load_payload
from tests.helpers.trained import load_trained


def test_roundtrip_and_checks():
    data = dump_payload("spacy_adf.test", 2, {"a": [1, 2]})
    assert decode_arrays(data)["format"] == "spacy_adf.test"
    assert load_payload(data, "spacy_adf.test", [1, 2]) == (2, {"a": [1, 2]})
    with pytest.raises(ValueError, match="version 2 is not supported"):
        load_payload(data, "spacy_adf.test", [1])
    with pytest.raises(ValueError, match="expected 'spacy_adf.other'"):
        load_payload(data, "spacy_adf.other", [2])
    with pytest.raises(ValueError, match="corrupt or not msgpack"):
        load_payload(b"\xc1garbage", "spacy_adf.test", [2])


def test_bare_msgpack_is_refused():
    with pytest.raises(ValueError, match="no format marker"):
        load_payload(srsly.msgpack_dumps(["x", "y"]), "spacy_adf.test", [1])


@pytest.mark.parametrize("kind,fmt", [
    ("dependency", "spacy_adf.bunsetsu_features"),
    ("pke_tagger", "spacy_adf.kernel_tagger.features"),
])
def test_kernel_features_are_versioned(kind, fmt):
    _, component = load_trained(kind)
    model = component.plain_model
    data = model.features_to_bytes()
    assert decode_arrays(data)["format"] == fmt
    before = (list(model.vocab.strings), model.classifier_to_bytes())
    model.features_from_bytes(data)
    assert list(model.vocab.strings) == before[0]
    model.classifier_from_bytes(before[1], kind=component.cfg["classifier"], degree=component.cfg["degree"])
    with pytest.raises(ValueError):
        model.features_from_bytes(dump_payload(fmt, 99, []))
    with pytest.raises(ValueError, match="no format marker"):
        model.features_from_bytes(srsly.msgpack_dumps(before[0]))


def test_segmenter_lexicon_is_versioned():
    _, segmenter = load_trained("segmenter")
    model = segmenter.plain_model
    dump, load = model._parts()["lexicon"]
    data = dump()
    assert decode_arrays(data)["format"] == "spacy_adf.segmenter_lexicon"
    words = set(model.train_words), set(model.user_words)
    load(data)
    assert (set(model.train_words), set(model.user_words)) == words
    with pytest.raises(ValueError, match="no format marker"):
        load(srsly.msgpack_dumps({"train": sorted(words[0]), "user": sorted(words[1])}))
