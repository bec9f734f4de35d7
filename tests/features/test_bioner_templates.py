"""Orthography classes and the Bio-NER template preset."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.util import registry

from spacy_adf.features.presets import bioner_templates
from spacy_adf.features.templates import TemplateSet, ortho_class


@pytest.mark.parametrize(
    "word,cls",
    [
        ("alpha", "GREEK"), ("Kappa", "GREEK"),
        ("II", "ROMAN"), ("IV", "ROMAN"), ("XIV", "ROMAN"),
        ("1995", "DIGITS"), ("0.05", "NUMBER"), ("1,000", "NUMBER"), ("25%", "NUMBER"),
        (",", "PUNCT"), ("(", "PUNCT"), ("+/-", "PUNCT"),
        ("B", "UPPER1"), ("a", "LOWER1"),
        ("cells", "LOWER"), ("Jurkat", "INITCAP"), ("NF", "ALLCAPS"),
        ("TCRs", "MIXED"), ("mRNA", "MIXED"),
        ("IL2", "ALLCAPS+D+E"), ("p53", "LOWER+D+E"), ("IL-2", "ALLCAPS+D+H+E"),
        ("C/EBP", "ALLCAPS+S"), ("Ca2+", "INITCAP+D+P"), ("PU.1", "ALLCAPS+D+P+E"),
        ("TNF-alpha", "MIXED+H+G"), ("NF-kappaB", "MIXED+H"), ("-induced", "LOWER+H"),
        ("3-4", "NOLETTER+D+H+E"), ("", "EMPTY"),
    ],
)
def test_ortho_class(word, cls):
    assert ortho_class(word) == cls


def test_ortho_column_matches_function_and_is_cached():
    nlp = spacy.blank("en")
    words = ["IL-2", "activates", "NF-kappaB", "in", "Jurkat", "cells", "IL-2"]
    doc = Doc(nlp.vocab, words=words)
    tset = TemplateSet(["ortho[0]", "ortho[-1]|ortho[0]"])
    cols = tset.columns_for(doc)
    assert cols.shape == (7, 1)
    assert cols[0, 0] == cols[6, 0] != 0
    assert cols[4, 0] != cols[5, 0]  # INITCAP vs LOWER
    other = TemplateSet(["ortho[0]"]).columns_for(Doc(nlp.vocab, words=["IL-3"]))
    assert other[0, 0] == cols[0, 0]  # same class, same value
    hashes = tset.hashes(doc)
    assert hashes.shape == (7, 2) and (hashes != 0).all()


def test_bioner_preset_builds_and_extracts():
    templates = registry.misc.get("spacy_adf.templates.bioner.v1")()
    assert templates == bioner_templates()
    assert len(templates) == 16 and "w[-1]|w[0]" in templates and "ortho[1]|ortho[2]" in templates
    assert not any(t.startswith("t[") for t in templates)
    with_pos = bioner_templates(pos=True)
    assert len(with_pos) == 28 and "t[-1]|t[0]|t[1]" in with_pos
    rich = bioner_templates(affixes=True)
    assert "suffix3[0]" in rich and len(set(rich)) == len(rich)
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["Activation", "of", "NF-kappa", "B", "in", "T", "cells"])
    tset = TemplateSet(rich)
    assert tset.required_annotations == []
    h = tset.hashes(doc)
    assert h.shape == (7, len(rich)) and h.dtype == numpy.uint64
    assert (h[:, rich.index("w[0]")] != 0).all()
    # the POS templates need tags
    pos_set = TemplateSet(with_pos)
    assert pos_set.required_annotations == ["TAG"]
    with pytest.raises(ValueError):
        pos_set.check_doc(doc)
    tagged = Doc(nlp.vocab, words=["Activation", "of", "B"], tags=["NN", "IN", "NN"])
    pos_set.check_doc(tagged)
    assert pos_set.hashes(tagged).shape == (3, 28)


def test_adf_tagger_trains_with_bioner_templates():
    from spacy.training import Example

    nlp = spacy.blank("en")
    ner = nlp.add_pipe("adf_tagger", config={
        "target": "ents",
        "model": {"@architectures": "spacy_adf.CRF.v1",
                  "templates": {"@misc": "spacy_adf.templates.bioner.v1"}},
    })
    sents = [
        (["IL-2", "gene", "expression", "in", "T", "cells"], [(0, 2, "DNA"), (4, 6, "cell_type")]),
        (["NF-kappaB", "binds", "the", "IL-2", "gene"], [(0, 1, "protein"), (3, 5, "DNA")]),
    ]
    examples = []
    for words, ents in sents:
        ref = Doc(nlp.vocab, words=words)
        ref.set_ents([spacy.tokens.Span(ref, s, e, label=l) for s, e, l in ents], default="outside")
        examples.append(Example(Doc(nlp.vocab, words=words), ref))
    nlp.initialize(lambda: examples)
    assert set(ner.labels) == {"DNA", "cell_type", "protein"}
    from spacy_adf.optimizers.adf import ADF

    opt = ADF(0.5, sigma=None, L2=0.0, window=50)
    for _ in range(30):
        for eg in examples:
            nlp.update([eg], sgd=opt)
    doc = nlp(Doc(nlp.vocab, words=sents[1][0]))
    assert [(e.text, e.label_) for e in doc.ents] == [("NF-kappaB", "protein"), ("IL-2 gene", "DNA")]


@pytest.mark.parametrize("template,message", [
    ("w[99999999999]", "out of range"), ("w[-1001]", "out of range"), ("w[0", "cannot parse"),
    ("nosuchcolumn[0]", "nosuchcolumn"), ("", "non-empty"),
])
def test_bad_templates_get_clear_errors(template, message):
    from spacy_adf.features.templates import TemplateSet

    with pytest.raises(ValueError, match=message):
        TemplateSet([template])
