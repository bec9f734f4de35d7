"""adf_tagger as a spaCy component: training, targets, annotations, errors."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc, Token
from spacy.training import Example

from spacy_adf.optimizers.adf import ADF

from tests.helpers.tiny_data import NER_SENTS, chunk_examples, make_ner_nlp, ner_examples


def _train(nlp, examples, n_epochs=30, optimizer=None):
    opt = optimizer or ADF(0.5, sigma=None, L2=0.0, window=50)
    losses = []
    for _ in range(n_epochs):
        epoch = {}
        for eg in examples:
            nlp.update([eg], sgd=opt, losses=epoch)
        losses.append(sum(epoch.values()))
    return opt, losses


def test_overfits_tiny_ner_to_zero_loss():
    nlp = make_ner_nlp()
    examples = ner_examples(nlp)
    nlp.initialize(lambda: examples)
    _, losses = _train(nlp, examples, n_epochs=60)
    assert losses[-1] < 0.05 * losses[0]
    assert losses[-1] < 0.01
    for words, ents in NER_SENTS:
        doc = nlp(Doc(nlp.vocab, words=words))
        assert [(e.start, e.end, e.label_) for e in doc.ents] == ents
    scores = nlp.evaluate(examples)
    assert scores["ents_f"] == pytest.approx(1.0)


def test_span_group_target_and_marginals():
    nlp = spacy.blank("en")
    tagger = nlp.add_pipe(
        "adf_tagger",
        config={
            "target": "spans:chunks",
            "store_marginals": True,
            "model": {"templates": ["w[0]", "t[0]", "t[-1]|t[0]", "t[1]"]},
        },
    )
    examples = chunk_examples(nlp)
    nlp.initialize(lambda: examples)
    assert tagger.labels == ("NP",)
    assert tagger.tag_names == ["O", "B-NP", "I-NP"]
    _train(nlp, examples, n_epochs=40)
    doc = nlp(Doc(nlp.vocab, words=["the", "big", "dog", "barked"], tags=["DT", "JJ", "NN", "VBD"]))
    assert [(s.start, s.end, s.label_) for s in doc.spans["chunks"]] == [(0, 3, "NP")]
    marg = doc._.adf_marginals["adf_tagger"]
    assert marg.shape == (4, 3)
    numpy.testing.assert_allclose(marg.sum(axis=1), 1.0, atol=1e-5)
    scores = doc.spans["chunks"].attrs["scores"]
    assert len(scores) == 1 and 0.5 < scores[0] <= 1.0
    result = nlp.evaluate(examples)
    assert result["spans_chunks_f"] == pytest.approx(1.0)


def test_tag_target_and_custom_extension_target():
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="pos_crf", config={"target": "tag", "model": {"templates": ["w[0]", "suffix2[0]", "w[-1]"]}})
    examples = []
    for words, tags, _ in [(w, t, s) for w, t, s in [
        (["the", "dog", "runs"], ["DT", "NN", "VBZ"], None),
        (["a", "cat", "sleeps"], ["DT", "NN", "VBZ"], None),
    ]]:
        examples.append(Example(Doc(nlp.vocab, words=words), Doc(nlp.vocab, words=words, tags=tags)))
    nlp.initialize(lambda: examples)
    _train(nlp, examples, n_epochs=30)
    doc = nlp(Doc(nlp.vocab, words=["the", "cat", "runs"]))
    assert [t.tag_ for t in doc] == ["DT", "NN", "VBZ"]
    assert nlp.evaluate(examples)["tag_acc"] == pytest.approx(1.0)

    if not Token.has_extension("chunk_tag"):
        Token.set_extension("chunk_tag", default=None)
    nlp2 = spacy.blank("en")
    nlp2.add_pipe("adf_tagger", config={"target": "_.chunk_tag", "model": {"templates": ["w[0]"]}})
    egs = []
    for words, labels in [(["x", "y"], ["A", "B"]), (["y", "x"], ["B", "A"])]:
        ref = Doc(nlp2.vocab, words=words)
        for tok, lab in zip(ref, labels):
            tok._.chunk_tag = lab
        egs.append(Example(Doc(nlp2.vocab, words=words), ref))
    nlp2.initialize(lambda: egs)
    _train(nlp2, egs, n_epochs=20)
    doc = nlp2(Doc(nlp2.vocab, words=["x", "y", "x"]))
    assert [t._.chunk_tag for t in doc] == ["A", "B", "A"]


def test_missing_tag_annotation_is_a_clear_error():
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", config={"target": "spans:chunks", "model": {"templates": ["w[0]", "t[0]"]}})
    examples = chunk_examples(nlp)
    nlp.initialize(lambda: examples)
    with pytest.raises(ValueError, match="TAG annotation"):
        nlp("the dog barked")


def test_unseen_label_in_update_is_a_clear_error():
    nlp = make_ner_nlp()
    examples = ner_examples(nlp)
    nlp.initialize(lambda: examples[:1])  # only PER and LOC ... from the first sentence
    ref = Doc(nlp.vocab, words=["Acme", "rose"])
    ref.ents = [spacy.tokens.Span(ref, 0, 1, label="ORG")]
    with pytest.raises(ValueError, match="not seen at initialize"):
        nlp.update([Example(Doc(nlp.vocab, words=["Acme", "rose"]), ref)], sgd=ADF(0.1))


def test_empty_whitespace_and_huge_docs():
    nlp = make_ner_nlp()
    examples = ner_examples(nlp)
    nlp.initialize(lambda: examples)
    _train(nlp, examples, n_epochs=5)
    assert len(nlp("")) == 0 and nlp("").ents == ()
    doc = nlp(Doc(nlp.vocab, words=["Alice", " ", "\n", "Paris"], spaces=[False] * 4))
    assert all(len(e) >= 1 for e in doc.ents)
    words = (["Alice", "visited", "Paris", "."] * 25_000)
    nlp.max_length = 10 ** 7
    big = nlp(Doc(nlp.vocab, words=words))
    assert len(big) == 100_000
    assert [e.label_ for e in big.ents[:2]] == ["PER", "LOC"]
    # training on an empty example is a no-op, not an error
    nlp.update([Example(Doc(nlp.vocab, words=[]), Doc(nlp.vocab, words=[]))], sgd=ADF(0.1))


def test_not_initialized_and_bad_config_errors():
    nlp = make_ner_nlp()
    with pytest.raises(ValueError, match="not initialized"):
        nlp("Alice")
    with pytest.raises(ValueError, match="unknown target"):
        spacy.blank("en").add_pipe("adf_tagger", config={"target": "entities"})
    with pytest.raises(ValueError, match="unknown attribute"):
        spacy.blank("en").add_pipe("adf_tagger", config={"model": {"templates": ["word[0]"]}})
    with pytest.raises(ValueError, match="cannot parse"):
        spacy.blank("en").add_pipe("adf_tagger", config={"model": {"templates": ["w(0)"]}})
    with pytest.raises(ValueError, match="edge_features"):
        spacy.blank("en").add_pipe("adf_tagger", config={"model": {"edge_features": "some"}})
    with pytest.raises(ValueError, match="no labels"):
        nlp2 = make_ner_nlp()
        egs = ner_examples(nlp2)[-1:]
        nlp2.initialize(lambda: egs)


def test_adam_dense_fallback_trains_adf_tagger():
    from thinc.api import Adam

    nlp = make_ner_nlp()
    examples = ner_examples(nlp)
    nlp.initialize(lambda: examples)
    _, losses = _train(nlp, examples, n_epochs=30, optimizer=Adam(0.05))
    assert losses[-1] < 0.1 * losses[0]


def test_averaged_weights_used_for_evaluation():
    nlp = make_ner_nlp()
    examples = ner_examples(nlp)
    nlp.initialize(lambda: examples)
    opt = ADF(0.1, window=5, use_averages=True)
    _train(nlp, examples, n_epochs=10, optimizer=opt)
    tagger = nlp.get_pipe("ner_crf")
    before = tagger.plain_model.params.weights.copy()
    state = opt.averages[tagger.trainer.params_key]
    avg = state.averaged_weights()
    assert not numpy.allclose(avg, before)
    with nlp.use_params(opt.averages):
        numpy.testing.assert_array_equal(tagger.plain_model.params.weights, avg)
        averaged_doc = nlp(Doc(nlp.vocab, words=["Alice", "visited", "Paris"]))
    assert averaged_doc.ents
    numpy.testing.assert_array_equal(tagger.plain_model.params.weights, before)


def test_training_is_deterministic():
    def run():
        nlp = make_ner_nlp()
        examples = ner_examples(nlp)
        nlp.initialize(lambda: examples)
        _train(nlp, examples, n_epochs=5)
        return nlp.get_pipe("ner_crf").plain_model.params.weights.copy()

    numpy.testing.assert_array_equal(run(), run())


def test_custom_extractor_in_templates():
    from spacy_adf.registry import extractors

    @extractors("test_is_title")
    def is_title(doc):
        return ["T" if t.is_title else None for t in doc]

    nlp = make_ner_nlp(model={"templates": ["test_is_title[0]", "w[0]"]})
    examples = ner_examples(nlp)
    nlp.initialize(lambda: examples)
    _train(nlp, examples, n_epochs=30)
    doc = nlp(Doc(nlp.vocab, words=["Zed", "visited", "Quux"]))
    assert all(e.label_ in ("PER", "LOC") for e in doc.ents) and len(doc.ents) >= 1


def test_reinitialize_with_explicit_labels():
    nlp = make_ner_nlp()
    examples = ner_examples(nlp)
    nlp.initialize(lambda: examples)
    tagger = nlp.get_pipe("ner_crf")
    tagger.initialize(lambda: examples, labels=["PER", "LOC", "ORG"])
    assert tagger.labels == ("PER", "LOC", "ORG")
    assert len(tagger.tag_names) == 7
    with pytest.raises(ValueError, match="after initialization"):
        tagger.add_label("MISC")
    with pytest.raises(ValueError, match="non-empty strings"):
        tagger.initialize(lambda: examples, labels=["PER", ""])


def test_feature_cache_sees_changed_input_annotation():
    """The per-example feature cache is exact: changing a predicted Doc's
    tags (or words' norms) between passes gives fresh features."""
    from tests.helpers.tiny_data import chunk_examples

    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="chunker",
                 config={"target": "spans:chunks",
                         "model": {"@architectures": "spacy_adf.CRF.v1",
                                   "templates": ["t[0]", "norm[0]"]}})
    examples = chunk_examples(nlp)
    nlp.initialize(lambda: examples)
    pipe = nlp.get_pipe("chunker")
    eg = examples[0]
    first = pipe.training_samples(eg)
    assert pipe.training_samples(eg) is first  # cached
    eg.predicted[1].tag_ = "NN"
    changed = pipe.training_samples(eg)
    assert changed is not first and not numpy.array_equal(changed[0][1], first[0][1])
    eg.predicted[2].norm_ = "hound"
    assert not numpy.array_equal(pipe.training_samples(eg)[0][1], changed[0][1])


def test_initialize_runs_upstream_annotators_for_missing_tags():
    """An upstream (even frozen, i.e. disabled during initialize) component
    supplies the tags the templates need, as annotating_components do in
    spacy train."""
    from spacy.language import Language

    @Language.component("spacy_adf_test_fake_pos")
    def fake_pos(doc):
        for tok in doc:
            tok.tag_ = "NNP" if tok.text[:1].isupper() else "NN"
        return doc

    nlp = spacy.blank("en")
    nlp.add_pipe("spacy_adf_test_fake_pos", name="pos")
    nlp.add_pipe("adf_tagger", name="ner_crf",
                 config={"target": "ents",
                         "model": {"@architectures": "spacy_adf.CRF.v1",
                                   "templates": ["w[0]", "t[0]", "t[-1]"]}})
    examples = ner_examples(nlp)  # predicted Docs without tags
    assert not examples[0].predicted.has_annotation("TAG")
    with nlp.select_pipes(disable=["pos"]):
        nlp.initialize(lambda: examples)
    assert examples[0].predicted.has_annotation("TAG")
    doc = nlp("Alice visited Rome")
    assert doc[0].tag_ == "NNP" and len(doc.ents) >= 0
    # without the upstream component the missing annotation is a clear error
    bare = spacy.blank("en")
    bare.add_pipe("adf_tagger", name="ner_crf",
                  config={"target": "ents",
                          "model": {"@architectures": "spacy_adf.CRF.v1", "templates": ["t[0]"]}})
    with pytest.raises(ValueError, match="TAG|tag"):
        bare.initialize(lambda: ner_examples(bare))
