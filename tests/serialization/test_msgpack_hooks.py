"""The cached msgpack hook lookups answer as srsly's own do, follow new and
replaced hooks, and leave Doc serialization byte for byte the same."""
import catalogue
import spacy
import srsly
from spacy.tokens import Doc, Span
from srsly import msgpack

from spacy_adf.serialization.msgpack_hooks import (
    REGISTERED_NAME, cache_msgpack_hooks, make_cached_msgpack_hooks)


def uncache_msgpack_hooks() -> None:
    """Undo cache_msgpack_hooks."""
    for registry in (msgpack.msgpack_encoders, msgpack.msgpack_decoders):
        vars(registry).pop("get_all", None)


def _doc():
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["Shares", "of", "the", "company", "rose"], tags=["NNS", "IN", "DT", "NN", "VBD"])
    doc.spans["chunks"] = [Span(doc, 0, 1, "NP"), Span(doc, 2, 4, "NP")]
    return nlp, doc


def test_cached_lookups_answer_the_same_and_follow_changes():
    before = {r: r.get_all() for r in (msgpack.msgpack_encoders, msgpack.msgpack_decoders)}
    nlp, doc = _doc()
    plain_bytes = doc.to_bytes()
    cache_msgpack_hooks()
    try:
        cache_msgpack_hooks()  # twice: no change
        for registry, hooks in before.items():
            assert registry.get_all() == hooks
        assert doc.to_bytes() == plain_bytes
        again = Doc(nlp.vocab).from_bytes(plain_bytes)
        assert [(s.start, s.end, s.label_) for s in again.spans["chunks"]] == [(0, 1, "NP"), (2, 4, "NP")]

        def tagged(obj, chain=None):
            return chain(obj) if chain is not None else obj

        msgpack.msgpack_encoders.register("spacy_adf_test", func=tagged)  # a new hook is seen
        assert msgpack.msgpack_encoders.get_all()["spacy_adf_test"] is tagged

        def replaced(obj, chain=None):
            return chain(obj) if chain is not None else obj

        msgpack.msgpack_encoders.register("spacy_adf_test", func=replaced)  # a replaced one too
        assert msgpack.msgpack_encoders.get_all()["spacy_adf_test"] is replaced
        assert srsly.msgpack_loads(srsly.msgpack_dumps({"a": 1})) == {"a": 1}
    finally:
        catalogue.REGISTRY.pop(tuple(msgpack.msgpack_encoders.namespace) + ("spacy_adf_test",), None)
        uncache_msgpack_hooks()
    assert msgpack.msgpack_encoders.get_all() == before[msgpack.msgpack_encoders]


def test_pipeline_callback_is_registered():
    assert spacy.registry.callbacks.get(REGISTERED_NAME) is make_cached_msgpack_hooks
    nlp = spacy.blank("en", config={"nlp": {"after_pipeline_creation": {"@callbacks": REGISTERED_NAME}}})
    try:
        assert "get_all" in vars(msgpack.msgpack_decoders)
        nlp.add_pipe("sentencizer")
    finally:
        uncache_msgpack_hooks()
