"""The segmenter's optional character trigram templates (SegmenterCRF.v1
char_trigrams): appended after the others, so a model without them keeps
its columns; they follow the characters they name; they survive pickling,
bytes and the C path."""
import pickle

import numpy
import spacy

from spacy_adf.features.chars import CharFeaturizer, text_codes, texts_to_units
from tests.helpers.seg_data import char_nlp, template_names
from tests.models.test_char_segmenter_decode import ODD, random_texts, train_small

TRIGRAM_NAMES = ["c[-2]c[-1]c[0]", "c[-1]c[0]c[1]", "c[0]c[1]c[2]", "c[-2]c[0]", "c[0]c[2]"]


def _featurizers():
    plain, tri = CharFeaturizer(2, 6, True), CharFeaturizer(2, 6, True, True)
    for f in (plain, tri):
        f.add_words(["中国", "人民", "银行"])
    return plain, tri


def test_trigram_columns_come_after_the_others():
    plain, tri = _featurizers()
    assert tri.n_templates == plain.n_templates + 5
    assert template_names(tri) == template_names(plain) + TRIGRAM_NAMES
    codes = text_codes("中国人民银行和中国人民")
    a, b = plain.hashes(codes), tri.hashes(codes)
    assert numpy.array_equal(a, b[:, :plain.n_templates])  # the old columns are unchanged
    assert (b[:, plain.n_templates:] != 0).all()  # padding counts as a character


def test_trigram_columns_follow_their_characters():
    _, tri = _featurizers()
    text = "中国人民银行和中国人民"
    h = tri.hashes(text_codes(text))
    col = {name: template_names(tri).index(name) for name in TRIGRAM_NAMES}
    # "国人民" is centred on position 2 and on position 9 ("中国人民" twice)
    assert h[2, col["c[-1]c[0]c[1]"]] == h[9, col["c[-1]c[0]c[1]"]]
    assert h[3, col["c[-2]c[-1]c[0]"]] == h[10, col["c[-2]c[-1]c[0]"]]
    assert h[2, col["c[-2]c[0]"]] == h[9, col["c[-2]c[0]"]]
    assert h[2, col["c[-1]c[0]c[1]"]] != h[3, col["c[-1]c[0]c[1]"]]
    # the same characters under different templates give different hashes
    assert h[2, col["c[-1]c[0]c[1]"]] != h[3, col["c[-2]c[-1]c[0]"]]


def test_pickle_keeps_the_option():
    _, tri = _featurizers()
    back = pickle.loads(pickle.dumps(tri))
    assert back.char_trigrams and back.n_templates == tri.n_templates
    codes = text_codes("中国人民银行")
    assert numpy.array_equal(back.hashes(codes), tri.hashes(codes))


def test_trigram_segmenter_c_path_and_round_trip():
    nlp, seg = train_small(char_trigrams=True)
    model = seg.plain_model
    assert model.featurizer.char_trigrams
    texts = random_texts(200, seed=11) + ODD
    codes, _, bounds, _ = texts_to_units(texts)
    assert numpy.array_equal(model.segment(codes, bounds), model.segment_reference(codes, bounds))
    before = [[t.text for t in doc] for doc in nlp.pipe(texts)]
    loaded = spacy.blank("zh").from_config(nlp.config)
    loaded.from_bytes(nlp.to_bytes())
    assert loaded.get_pipe("adf_segmenter").plain_model.featurizer.char_trigrams
    assert [[t.text for t in doc] for doc in loaded.pipe(texts)] == before


def test_default_segmenter_has_no_trigrams():
    nlp = char_nlp("zh")
    seg = nlp.add_pipe("adf_segmenter", config={"model": {"@architectures": "spacy_adf.SegmenterCRF.v1"}})
    assert not seg.plain_model.featurizer.char_trigrams
    assert "char_trigrams" not in seg.plain_model.options
