"""The CRF segmenter's one-call C path (`models/char_segmenter_decode.pyx`) against its
numpy reference (`CharSegmenter.segment_reference`): the same word starts for
both schemes and both unit rules, one text or a batch, odd input included."""
import random

import numpy
import pytest

from spacy_adf.features.chars import texts_to_units
from spacy_adf.models.char_segmenter_decode import SegmentScratch, segment_starts
from spacy_adf.optimizers.adf import ADF
from tests.helpers.seg_data import WORDS, char_nlp, make_sentences, seg_examples
from tests.pipeline.test_segmenter import SEG_MODEL, train_segmenter

ODD = ["", " ", "\n\n", "a b\u3000c\n", "👍🏽x👨\u200d👩\u200d👧", "abc123 中文ﾃﾞｽ",
       "\U0001F1EF\U0001F1F5日本", "x" * 3, "中" * 700, "中国 人民\t银行", "é\u0301中国"]


def random_texts(n, seed):
    rng = random.Random(seed)
    pieces = WORDS + [" ", "\n", "abc", "12", "。", "😀", "\u0301", "ﾃﾞ"]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 15))) for _ in range(n)]


def train_small(scheme="BMES", **model_options):
    """A segmenter trained 4 epochs on 200 made-up sentences: (nlp, component)."""
    nlp = char_nlp("zh")
    seg = nlp.add_pipe("adf_segmenter", config={"model": dict(SEG_MODEL, **model_options), "scheme": scheme})
    examples = seg_examples(nlp, make_sentences(200, seed=3))
    nlp.initialize(lambda: examples)
    opt = ADF(learn_rate=0.1, sigma=5.0)
    for _ in range(4):
        for i in range(0, len(examples), 16):
            nlp.update(examples[i:i + 16], sgd=opt)
    return nlp, seg


@pytest.fixture(scope="module")
def models():
    return {scheme: train_small(scheme)[1].plain_model for scheme in ("BMES", "BI", "BB2B3MES")}


@pytest.mark.parametrize("scheme", ["BMES", "BI", "BB2B3MES"])
@pytest.mark.parametrize("rules", ["graphemes", "codepoints"])
def test_c_path_equals_reference(models, scheme, rules):
    model = models[scheme]
    model.cfg["unit_rules"] = rules
    try:
        texts = random_texts(300, seed=7) + ODD
        batches = [texts, ODD] + [[t] for t in texts]
        for batch in batches:
            codes, _, bounds, _ = texts_to_units(batch)
            fast = model.segment(codes, bounds)
            assert fast.dtype == bool
            assert numpy.array_equal(fast, model.segment_reference(codes, bounds)), batch
    finally:
        model.cfg["unit_rules"] = "graphemes"


def test_c_path_releases_huge_buffers(models):
    model = models["BMES"]
    text = "中国人民银行" * 20000  # 120,000 units: past the buffers kept between calls
    codes, _, bounds, _ = texts_to_units([text])
    assert numpy.array_equal(model.segment(codes, bounds), model.segment_reference(codes, bounds))
    assert model._scratch.nbytes == 0
    codes, _, bounds, _ = texts_to_units(["中国人民"])
    model.segment(codes, bounds)
    assert 0 < model._scratch.nbytes < 10_000_000


def test_c_path_checks_its_input(models):
    model = models["BMES"]
    crf = model.crf
    args = (model.featurizer, crf.table, crf.params, crf.ctx, SegmentScratch())
    codes, _, bounds, _ = texts_to_units(["中国 人民"])
    with pytest.raises(ValueError, match="bounds must run"):
        segment_starts(*args, codes, bounds[:-1], 4, True)
    with pytest.raises(ValueError, match="non-decreasing"):
        segment_starts(*args, codes, numpy.array([0, 3, 2, len(codes)]), 4, True)
    with pytest.raises(ValueError, match="labels"):
        segment_starts(*args, codes, bounds, 2, True)  # a BMES model read as BI
    with pytest.raises(ValueError, match="labels"):
        segment_starts(*args, codes, bounds, 6, True)  # a BMES model read as six tags
    with pytest.raises(ValueError, match="n_tags"):
        segment_starts(*args, codes, bounds, 3, True)


def test_forced_user_words_take_the_reference_path():
    nlp, seg = train_segmenter(make_sentences(200, seed=5), epochs=3)
    model = seg.plain_model
    model.add_words(["人民银行"])
    codes, _, bounds, _ = texts_to_units(["中国人民银行很好"])
    starts = model.segment(codes, bounds)
    assert numpy.array_equal(starts, model.segment_reference(codes, bounds))
    assert starts[2] and not starts[3] and not starts[4] and not starts[5]
