"""spacy_adf.lean_evaluate.v1 gives Language.evaluate's scores by each of its paths
(training/evaluation.py)."""
import pytest
import spacy
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry

from spacy_adf.optimizers.adf import ADF
from spacy_adf.training import evaluation
from spacy_adf.training.spacy_internals import install_lean_evaluate, lean_evaluate

from tests.helpers.tiny_data import CHUNK_SENTS, NER_SENTS, make_ner_nlp


def _trained(nlp, examples, epochs=2):
    nlp.initialize(lambda: examples)
    opt = ADF(0.3, sigma=None, L2=0.0, window=20)
    for _ in range(epochs):  # a few passes: imperfect predictions, non-trivial scores
        for eg in examples:
            nlp.update([eg], sgd=opt)
    return nlp


def _chunk_examples(nlp, known_spaces=False, split_first=False):
    out = []
    for words, tags, spans in CHUNK_SENTS * 3:
        spaces = [True] * (len(words) - 1) + [False] if known_spaces else None
        ref = Doc(nlp.vocab, words=words, spaces=spaces, tags=tags)
        ref.spans["chunks"] = [Span(ref, s, e, label=l) for s, e, l in spans]
        pw, pt, ps = words, tags, spaces
        if split_first and len(words[0]) > 1:  # a predicted tokenization that differs
            pw = [words[0][:1], words[0][1:]] + words[1:]
            pt = [tags[0], tags[0]] + tags[1:]
            ps = [False] + ([True] * (len(words) - 1) + [False] if known_spaces else [True] * len(words))
        out.append(Example(Doc(nlp.vocab, words=pw, spaces=ps, tags=pt), ref))
    return out


def _chunk_nlp():
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="chunker",
                 config={"target": "spans:chunks", "model": {"templates": ["w[0]", "t[0]", "t[-1]|t[0]"]}})
    return nlp


def _same(nlp, examples, **kwargs):
    plain = Language.evaluate(nlp, examples, **kwargs)
    lean = lean_evaluate(nlp)(examples, **kwargs)
    assert plain.pop("speed") > 0 and lean.pop("speed") > 0
    assert lean == plain
    return lean


def _count_paths(monkeypatch, name="pair_scores"):
    """Calls of evaluation.<name>: True where it gave the scores."""
    calls = []
    original = getattr(evaluation, name)

    def counting(*args, **kwargs):
        result = original(*args, **kwargs)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(evaluation, name, counting)
    return calls


def _count_pair_paths(monkeypatch):
    return _count_paths(monkeypatch, "pair_scores")


@Language.component("test_lean_evaluate_noop")
def _noop(doc):
    return doc


@pytest.mark.parametrize("known_spaces", [False, True])
@pytest.mark.parametrize("split_first", [False, True])
def test_span_scores_equal_spacys_from_predictions(monkeypatch, known_spaces, split_first):
    calls = _count_paths(monkeypatch, "scores_from_predictions")
    annotated = []
    chunker_cls = type(_chunk_nlp().get_pipe("chunker"))
    original = chunker_cls.set_annotations
    monkeypatch.setattr(chunker_cls, "set_annotations",
                        lambda self, docs, preds: annotated.append(1) or original(self, docs, preds))
    nlp = _chunk_nlp()
    _trained(nlp, _chunk_examples(nlp))
    examples = _chunk_examples(nlp, known_spaces, split_first)
    annotated.clear()
    lean = lean_evaluate(nlp)(examples)
    assert calls == [True]  # scored from predict()'s output
    if not split_first:
        assert not annotated  # no Doc annotated (a differing tokenization annotates a copy)
    scores = _same(nlp, examples)
    assert {k: v for k, v in lean.items() if k != "speed"} == scores
    assert 0.0 < scores["spans_chunks_f"]
    if known_spaces:
        assert scores["token_acc"] is not None  # the tokenizer's score is there too
    per = _same(nlp, examples, per_component=True)
    assert set(per) == {"tokenizer", "chunker"}


@pytest.mark.parametrize("known_spaces", [False, True])
@pytest.mark.parametrize("split_first", [False, True])
def test_span_scores_equal_spacys_without_examples(monkeypatch, known_spaces, split_first):
    calls = _count_pair_paths(monkeypatch)
    nlp = _chunk_nlp()
    _trained(nlp, _chunk_examples(nlp))
    nlp.add_pipe("test_lean_evaluate_noop")  # two components: no prediction path, Doc pairs
    examples = _chunk_examples(nlp, known_spaces, split_first)
    scores = _same(nlp, examples)
    assert 0.0 < scores["spans_chunks_f"]
    if known_spaces:
        assert scores["token_acc"] is not None  # the tokenizer's score is there too
    assert calls == [True]  # scored from Doc pairs
    per = _same(nlp, examples, per_component=True)
    assert set(per) == {"tokenizer", "chunker"}


def test_entity_scores_equal_spacys():
    nlp = make_ner_nlp()
    examples = []
    for words, ents in NER_SENTS * 2:
        ref = Doc(nlp.vocab, words=words)
        ref.ents = [Span(ref, s, e, label=l) for s, e, l in ents]
        examples.append(Example(Doc(nlp.vocab, words=words), ref))
    _trained(nlp, examples, epochs=1)
    _same(nlp, examples)
    _same(nlp, examples, batch_size=2)


def test_other_components_and_scorer_options_take_spacys_scorer(monkeypatch):
    calls = _count_pair_paths(monkeypatch)
    nlp = _chunk_nlp()
    _trained(nlp, _chunk_examples(nlp))
    examples = _chunk_examples(nlp, known_spaces=True)
    _same(nlp, examples, scorer_cfg={"labeled": False})  # options the fast span scorer lacks
    nlp.add_pipe("sentencizer")  # a component with its own score method
    _same(nlp, examples)
    assert calls == [False, False]


def test_examples_are_not_changed_and_can_be_evaluated_again():
    nlp = _chunk_nlp()
    _trained(nlp, _chunk_examples(nlp))
    examples = _chunk_examples(nlp)
    before = [(eg.predicted.to_bytes(), eg.reference.to_bytes()) for eg in examples]
    first = lean_evaluate(nlp)(examples)
    assert [(eg.predicted.to_bytes(), eg.reference.to_bytes()) for eg in examples] == before
    second = lean_evaluate(nlp)(examples)
    first.pop("speed"), second.pop("speed")
    assert first == second


def test_callback_installs_it_on_that_nlp_only_and_chains_in_order():
    nlp, other = spacy.blank("en"), spacy.blank("en")
    order = []

    def first(n):
        order.append("first")
        return n

    def second(n):
        order.append("second")
        return None  # a callback that returns nothing keeps the nlp object

    chain = registry.callbacks.get("spacy_adf.chain_callbacks.v1")(
        first, registry.callbacks.get("spacy_adf.lean_evaluate.v1")(), second)
    assert chain(nlp) is nlp
    assert order == ["first", "second"]
    assert getattr(nlp.evaluate, "lean", False)
    assert not getattr(other.evaluate, "lean", False)
    installed = nlp.evaluate
    assert install_lean_evaluate(nlp).evaluate is installed  # installing twice keeps one
    with pytest.raises(ValueError, match="not a callback"):
        registry.callbacks.get("spacy_adf.chain_callbacks.v1")(first, "gc")


def test_chain_resolves_from_a_config_section():
    from thinc.api import Config

    cfg = Config().from_str("""
[after_init]
@callbacks = "spacy_adf.chain_callbacks.v1"

[after_init.*.evaluate]
@callbacks = "spacy_adf.lean_evaluate.v1"

[after_init.*.gc]
@callbacks = "spacy_adf.return_freed_memory.v1"
""")
    nlp = spacy.blank("en")
    assert registry.resolve(cfg)["after_init"](nlp) is nlp
    assert getattr(nlp.evaluate, "lean", False)
