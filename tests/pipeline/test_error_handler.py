"""Every component's __call__ and pipe send errors to spaCy's error handler
(`nlp.set_error_handler`), as spaCy's TrainablePipe does: the handler gets
the component's name, the component, the failing Docs and the exception,
and pipe goes on with the next batch."""
import pytest
import spacy
from spacy.tokens import Doc

from tests.helpers.trained import COMPONENT_OF, load_trained

POISON = "poison"


class Raised(Exception):
    pass


def _poison_predict(component):
    """Make the component's processing of a batch (`process_batch`, which
    predicts) raise for a Doc whose text is POISON (an input the model cannot
    handle), as a failing model would."""
    process_batch = component.process_batch

    def process_or_raise(docs):
        docs = list(docs)
        if any(doc.text.strip() == POISON for doc in docs):
            raise Raised(f"{component.name} cannot process this Doc")
        return process_batch(docs)

    component.process_batch = process_or_raise


def _good_texts(kind):
    if kind in ("segmenter", "pke_segmenter"):
        return ["我们在北京", "今天天气很好"]
    return ["the big dog", "a cat"]


def _doc(nlp, kind, text):
    """A Doc as the component's pipeline feeds it (tags for the chunkers,
    bunsetsu for the parser: the fixtures have no upstream components)."""
    doc = nlp.make_doc(text)
    if kind in ("tagger", "pke_tagger"):
        words = [t.text for t in doc]
        doc = Doc(nlp.vocab, words=words, tags=["DT" if i == 0 else "NN" for i in range(len(words))])
    if kind == "dependency":
        from spacy.tokens import Span
        doc = Doc(nlp.vocab, words=[t.text for t in doc], pos=["NOUN"] * len(doc),
                  morphs=["SrcPos=名詞|SrcSubPos=普通名詞"] * len(doc))
        doc.spans["bunsetsu"] = [Span(doc, i, i + 1) for i in range(len(doc))]
    return doc


def _handler(seen):
    def handler(name, component, docs, error):
        seen.append((name, component, [doc.text for doc in docs], error))
    return handler


@pytest.mark.parametrize("kind", sorted(COMPONENT_OF))
def test_errors_reach_the_handler_and_the_pipe_goes_on(kind):
    nlp, component = load_trained(kind)
    _poison_predict(component)
    good = [_doc(nlp, kind, t) for t in _good_texts(kind)]
    bad = _doc(nlp, kind, POISON)
    with pytest.raises(Raised):  # spaCy's default handler raises
        component(bad)
    seen = []
    nlp.set_error_handler(_handler(seen))
    assert component(bad) is None
    assert len(seen) == 1 and seen[0][0] == component.name and seen[0][1] is component
    assert [t.strip() for t in seen[0][2]] == [POISON] and isinstance(seen[0][3], Raised)
    out = list(component.pipe([good[0], bad, good[1]], batch_size=1))
    assert [doc.text for doc in out] == [doc.text for doc in good]
    assert len(seen) == 2 and [t.strip() for t in seen[1][2]] == [POISON]
    assert component(good[0]) is not None and len(seen) == 2


@pytest.mark.parametrize("kind", ["segmenter", "pke_segmenter", "textcat"])
def test_nlp_pipe_goes_on_past_a_failing_text(kind):
    nlp, component = load_trained(kind)
    _poison_predict(component)
    seen = []
    nlp.set_error_handler(_handler(seen))
    texts = _good_texts(kind)
    out = list(nlp.pipe([texts[0], POISON, texts[1]], batch_size=1))
    assert [doc.text for doc in out] == texts
    assert [s[2] for s in seen] == [[POISON]]


def test_natural_errors_of_the_kernel_components_reach_the_handler():
    """Docs the components refuse by themselves: no POS for pke_tagger, no
    bunsetsu for pke_dependency (their messages say how to fix it)."""
    for kind, message in (("pke_tagger", "no POS tags"), ("dependency", "has no doc.spans")):
        nlp, component = load_trained(kind)
        seen = []
        component.set_error_handler(_handler(seen))
        bad = nlp.make_doc("the dog")  # neither tags nor bunsetsu
        out = list(component.pipe([bad, _doc(nlp, kind, "a cat")], batch_size=1))
        assert [doc.text.strip() for doc in out] == ["a cat"]
        assert len(seen) == 1 and message in str(seen[0][3]) and f"[{component.name}]" in str(seen[0][3])


def test_ja_tags_from_morph_routes_errors():
    nlp = spacy.blank("xx")
    component = nlp.add_pipe("ja_tags_from_morph")
    _poison_predict(component)
    seen = []
    nlp.set_error_handler(_handler(seen))
    good = Doc(nlp.vocab, words=["本", "を"], morphs=["SrcPos=名詞|SrcSubPos=普通名詞", "SrcPos=助詞|SrcSubPos=格助詞"])
    bad = Doc(nlp.vocab, words=[POISON])
    out = list(component.pipe([bad, good], batch_size=1))
    assert [doc.text for doc in out] == [good.text] and [t.tag_ for t in out[0]] == ["名詞-普通名詞", "助詞-格助詞"]
    assert component(bad) is None and len(seen) == 2 and seen[0][0] == "ja_tags_from_morph"
