"""Tiny hand-made training sets for component tests."""
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

NER_SENTS = [
    (["Alice", "visited", "Paris", "."], [(0, 1, "PER"), (2, 3, "LOC")]),
    (["Bob", "and", "Alice", "met", "in", "Rome"], [(0, 1, "PER"), (2, 3, "PER"), (5, 6, "LOC")]),
    (["The", "city", "of", "New", "York", "is", "big"], [(3, 5, "LOC")]),
    (["Carol", "Smith", "left", "Berlin"], [(0, 2, "PER"), (3, 4, "LOC")]),
    (["nothing", "here"], []),
]

CHUNK_SENTS = [
    (["the", "big", "dog", "barked"], ["DT", "JJ", "NN", "VBD"], [(0, 3, "NP")]),
    (["a", "cat", "saw", "the", "dog"], ["DT", "NN", "VBD", "DT", "NN"], [(0, 2, "NP"), (3, 5, "NP")]),
    (["dogs", "run"], ["NNS", "VBP"], [(0, 1, "NP")]),
]


def ner_examples(nlp):
    out = []
    for words, ents in NER_SENTS:
        ref = Doc(nlp.vocab, words=words)
        ref.ents = [Span(ref, s, e, label=l) for s, e, l in ents]
        out.append(Example(Doc(nlp.vocab, words=words), ref))
    return out


def chunk_examples(nlp, key="chunks"):
    out = []
    for words, tags, spans in CHUNK_SENTS:
        ref = Doc(nlp.vocab, words=words, tags=tags)
        ref.spans[key] = [Span(ref, s, e, label=l) for s, e, l in spans]
        out.append(Example(Doc(nlp.vocab, words=words, tags=tags), ref))
    return out


def make_ner_nlp(**config):
    nlp = spacy.blank("en")
    cfg = {"target": "ents"}
    cfg.update(config)
    nlp.add_pipe("adf_tagger", name="ner_crf", config=cfg)
    return nlp
