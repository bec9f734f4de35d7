"""training/spacy_internals.py beside spaCy's own methods: the lean update
trains to the weights and losses Language.update gives from the same state
on the same batches, called as spacy train's loop calls it or with an
optimizer; the lean evaluate gives Language.evaluate's scores on the same
batch (each scoring path: tests/training/test_lean_evaluate.py); the
wrappers of the timing logger come off again."""
import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry

from spacy_adf.optimizers.adf import ADF
from spacy_adf.training import spacy_internals
from spacy_adf.training.spacy_internals import (Wrappers, copy_needed, install_lean_update, is_lean,
                                                lean_evaluate, lean_update)

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


def _train(nlp, update, batches=3, as_the_loop=False, **kwargs):
    """Weights and per-batch losses; as_the_loop: update(sgd=False), then
    finish_update of every trainable component, as spacy train's loop."""
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    opt = ADF(0.3, sigma=5.0, window=4)
    before = [eg.predicted.to_bytes() for eg in examples]
    all_losses = []
    for _ in range(batches):
        for i in range(0, len(examples), 2):
            losses = {}
            if as_the_loop:
                update(examples[i:i + 2], sgd=False, losses=losses, **kwargs)
                for _, proc in nlp.pipeline:
                    if proc.is_trainable:
                        proc.finish_update(opt)
            else:
                update(examples[i:i + 2], sgd=opt, losses=losses, **kwargs)
            all_losses.append(losses)
    assert [eg.predicted.to_bytes() for eg in examples] == before  # the caller's Examples unchanged
    return nlp.get_pipe("chunker").to_bytes(), all_losses


@pytest.mark.parametrize("as_the_loop", [False, True])
def test_update_gives_spacys_weights_and_losses(monkeypatch, as_the_loop):
    copies = []
    copy_examples = spacy.language._copy_examples
    monkeypatch.setattr(spacy.language, "_copy_examples", lambda egs: copies.append(1) or copy_examples(egs))
    nlp_a, nlp_b = _nlp(), _nlp()
    weights_a, losses_a = _train(nlp_a, lambda *a, **k: Language.update(nlp_a, *a, **k), as_the_loop=as_the_loop)
    n_spacy = len(copies)
    weights_b, losses_b = _train(nlp_b, lean_update(nlp_b), as_the_loop=as_the_loop)
    assert n_spacy > 0 and len(copies) == n_spacy  # the lean update copied nothing
    assert weights_a == weights_b
    assert losses_a == losses_b


def test_update_copies_when_something_else_learns_or_annotates(monkeypatch):
    nlp = _nlp(with_spacy_tagger=True)
    assert copy_needed(nlp, exclude=[], annotates=[])
    assert not copy_needed(nlp, exclude=["tagger"], annotates=[])
    assert copy_needed(nlp, exclude=["tagger"], annotates=["chunker"])
    calls = []
    update = lean_update(nlp)
    monkeypatch.setattr(spacy_internals, "copy_needed", lambda *a: calls.append(a) or True)
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    update(examples[:2], sgd=ADF(0.1), exclude=["tagger"])  # through spaCy's own update
    assert len(calls) == 1


def test_update_without_an_optimizer_is_spacys():
    nlp = _nlp()
    update = lean_update(nlp)
    assert update([]) == {}
    with pytest.raises(ValueError):
        update([], "sgd")
    calls = []
    nlp.update = lambda examples, _, **kwargs: calls.append(kwargs["sgd"]) or {}
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    lean_update(nlp)(examples[:2], losses={})  # spaCy's update picks its default optimizer
    assert calls == [None]


def test_update_callback_installs_once_on_that_nlp():
    nlp, other = _nlp(), _nlp()
    assert registry.callbacks.get("spacy_adf.lean_update.v1")()(nlp) is nlp
    installed = nlp.update
    assert is_lean(installed) and not is_lean(other.__dict__.get("update"))
    assert install_lean_update(nlp).update is installed


def test_evaluate_gives_spacys_scores_on_the_same_batch():
    nlp = _nlp()
    examples = _examples(nlp)
    _train(nlp, nlp.update)
    plain = Language.evaluate(nlp, examples)
    lean = lean_evaluate(nlp)(examples)
    assert plain.pop("speed") > 0 and lean.pop("speed") > 0
    assert lean == plain and 0.0 < plain["spans_chunks_f"]


def test_wrappers_time_the_calls_and_come_off():
    nlp = _nlp()
    own_evaluate = nlp.evaluate = lambda examples, **kw: {"x": 1.0}  # an instance attribute already
    calls = []
    wrappers = Wrappers()
    wrappers.wrap(nlp, "update", before=lambda: calls.append("before"))
    wrappers.wrap(nlp, "evaluate", after=lambda: calls.append("after"))
    wrappers.wrap(object(), "__str__")  # no instance __dict__: left as it is
    assert nlp.update([]) == {} and nlp.evaluate([]) == {"x": 1.0}
    assert calls == ["before", "after"]
    wrappers.restore()
    assert "update" not in nlp.__dict__ and nlp.evaluate is own_evaluate
