"""Tests for benchmarks.bioner_speed's helpers (no data needed)."""
import json

import pytest
import spacy
from spacy.tokens import Doc

from benchmarks import bioner_speed as bench
from spacy_adf.features.templates import TemplateSet


def test_crfsuite_attributes_of_adf_templates():
    nlp = spacy.blank("en")
    tset = TemplateSet(["w[-1]|w[0]", "ortho[0]", "suffix3[0]", "t[0]|t[1]", "lower[1]", "prefix1[-2]"])
    feats = bench.CrfsuiteFeatures(tset)
    doc = Doc(nlp.vocab, words=["IL-2", "Gene"], tags=["NN", ""])
    # t[0]|t[1] is off at both tokens: the second has no tag (adf's hash is 0 there)
    expected = [
        ["w[-1]|w[0]=__BOS-1__|IL-2", "ortho[0]=ALLCAPS+D+H+E", "suffix3[0]=L-2",
         "lower[1]=gene", "prefix1[-2]=__BOS-2__"],
        ["w[-1]|w[0]=IL-2|Gene", "ortho[0]=INITCAP", "suffix3[0]=ene",
         "lower[1]=__EOS+1__", "prefix1[-2]=__BOS-1__"],
    ]
    assert feats.sentence(doc) == expected
    assert feats.sentence(doc) == expected  # from the word cache


def test_shipped_templates_are_the_bioner_preset():
    from spacy_adf.features.presets import bioner_templates

    assert bench.shipped_templates() == bioner_templates(pos=True, affixes=True, context=True)


def test_adf_pass_seconds_from_a_timing_log(tmp_path):
    log = tmp_path / "log.jsonl"
    records = [{"epoch": 0, "step": 0, "train_seconds": 0.0}, {"epoch": 1, "step": 100, "train_seconds": 30.0},
               {"epoch": 2, "step": 300, "train_seconds": 70.0}]
    log.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    out = bench.adf_pass_seconds(log, n_train=1000, batch_size=10)
    assert out["steps_per_pass"] == 100
    assert out["seconds_per_pass"] == pytest.approx(20.0)
