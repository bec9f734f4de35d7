"""spacy_adf.background_steps.v1: a component's CRF steps on the background
thread train to the same weights and losses as in the calling thread, and
every read of the weights waits for them."""
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry

from spacy_adf.optimizers.adf import ADF
from spacy_adf.optimizers.perceptron import Perceptron
from spacy_adf.training.callbacks import use_background_steps

from tests.helpers.tiny_data import CHUNK_SENTS


def _nlp(textcat=False):
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="chunker",
                 config={"target": "spans:chunks", "model": {"templates": ["w[0]", "t[0]", "t[-1]|t[0]"]}})
    if textcat:
        nlp.add_pipe("adf_textcat")
    return nlp


def _examples(nlp, textcat=False):
    out = []
    for i, (words, tags, spans) in enumerate(CHUNK_SENTS * 3):
        ref = Doc(nlp.vocab, words=words, tags=tags)
        ref.spans["chunks"] = [Span(ref, s, e, label=l) for s, e, l in spans]
        if textcat:
            ref.cats = {"A": float(i % 2), "B": float(1 - i % 2)}
        out.append(Example(Doc(nlp.vocab, words=words, tags=tags), ref))
    return out


def _train(background, optimizer=lambda: ADF(0.3, sigma=5.0, window=4), textcat=False):
    nlp = _nlp(textcat)
    examples = _examples(nlp, textcat)
    nlp.initialize(lambda: examples)
    use_background_steps(nlp, background)
    opt = optimizer()
    all_losses, snapshots = [], []
    for epoch in range(3):
        for i in range(0, len(examples), 2):
            losses = {}
            nlp.update(examples[i:i + 2], sgd=opt, losses=losses)
            all_losses.append(losses)
        # an evaluation between epochs reads the weights mid-training
        snapshots.append([[(s.start, s.end, s.label_) for s in doc.spans["chunks"]]
                          for doc in nlp.pipe(eg.predicted.copy() for eg in examples)])
    weights = nlp.get_pipe("chunker").to_bytes()
    return weights, all_losses, snapshots


def test_same_weights_losses_and_predictions():
    for optimizer in (lambda: ADF(0.3, sigma=5.0, window=4), lambda: Perceptron()):
        weights_a, losses_a, snaps_a = _train(False, optimizer)
        weights_b, losses_b, snaps_b = _train(True, optimizer)
        assert weights_a == weights_b
        assert losses_a == losses_b and all("chunker" in loss for loss in losses_b)
        assert snaps_a == snaps_b


def test_with_a_second_sparse_component():
    weights_a, losses_a, _ = _train(False, textcat=True)
    weights_b, losses_b, _ = _train(True, textcat=True)
    assert weights_a == weights_b and losses_a == losses_b
    assert all({"chunker", "adf_textcat"} <= set(loss) for loss in losses_b)


def test_loss_arrives_when_the_weights_are_read():
    nlp = _nlp()
    examples = _examples(nlp)
    nlp.initialize(lambda: examples)
    use_background_steps(nlp)
    losses = {}
    nlp.update(examples[:2], sgd=ADF(0.3), losses=losses)
    chunker = nlp.get_pipe("chunker")
    chunker.plain_model.await_steps()
    assert losses["chunker"] > 0


def test_callback_sets_every_sparse_trainer():
    nlp = _nlp(textcat=True)
    assert registry.callbacks.get("spacy_adf.background_steps.v1")()(nlp) is nlp
    assert nlp.get_pipe("chunker").trainer.background
    assert nlp.get_pipe("adf_textcat").trainer.background
