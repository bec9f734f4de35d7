"""spacy_adf.lean_update.v1 trains to the weights Language.update gives."""
import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry

from spacy_adf.optimizers.adf import ADF
from spacy_adf.training import update as update_module
from spacy_adf.training.update import copy_needed, install_lean_update, lean_update

from tests.helpers.tiny_data import CHUNK_SENTS


def _nlp(with_spacy_tagger=False):
    nlp = spacy.blank("en")
    if with_spacy_tagger:
        nlp.add_pipe("tagger")
    nlp.add_pipe("adf_tagger", name="chunker",
                 config={"target": "spans:chunks", "model": {"templates": ["w[0]", "t[0]", "t[-1]|t[0]"]}})
    return nlp


def _examples(nlp):
    out = []
    for words, tags, spans in CHUNK_SENTS * 2:
        ref = Doc(nlp.vocab, words=words, tags=tags)
        ref.spans["chunks"] = [Span(ref, s, e, label=l) for s, e, l in spans]
        out.append(Example(Doc(nlp.vocab, words=words, tags=tags), ref))
    return out


def _train(nlp, update, batches=3, **kwargs):
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    opt = ADF(0.3, sigma=5.0, window=4)
    before = [eg.predicted.to_bytes() for eg in examples]
    all_losses = []
    for _ in range(batches):
        for i in range(0, len(examples), 2):
            losses = {}
            update(examples[i:i + 2], sgd=opt, losses=losses, **kwargs)
            all_losses.append(losses)
    assert [eg.predicted.to_bytes() for eg in examples] == before  # the caller's Examples unchanged
    return nlp.get_pipe("chunker").to_bytes(), all_losses


def test_same_weights_and_losses_as_spacys_update():
    nlp_a, nlp_b = _nlp(), _nlp()
    weights_a, losses_a = _train(nlp_a, lambda *a, **k: Language.update(nlp_a, *a, **k))
    weights_b, losses_b = _train(nlp_b, lean_update(nlp_b))
    assert weights_a == weights_b
    assert losses_a == losses_b


def test_copies_when_something_else_learns_or_annotates(monkeypatch):
    nlp = _nlp(with_spacy_tagger=True)
    assert copy_needed(nlp, exclude=[], annotates=[])
    assert not copy_needed(nlp, exclude=["tagger"], annotates=[])
    assert copy_needed(nlp, exclude=["tagger"], annotates=["chunker"])
    calls = []
    update = lean_update(nlp)
    monkeypatch.setattr(update_module, "copy_needed", lambda *a: calls.append(a) or True)
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    update(examples[:2], sgd=ADF(0.1), exclude=["tagger"])  # through spaCy's own update
    assert len(calls) == 1


def test_empty_batches_and_positional_mistakes():
    nlp = _nlp()
    update = lean_update(nlp)
    assert update([]) == {}
    with pytest.raises(ValueError):
        update([], "sgd")


def test_callback_installs_once_on_that_nlp():
    nlp, other = _nlp(), _nlp()
    assert registry.callbacks.get("spacy_adf.lean_update.v1")()(nlp) is nlp
    installed = nlp.update
    assert getattr(installed, "lean", False) and not getattr(other.update, "lean", False)
    assert install_lean_update(nlp).update is installed
