"""adf_tagger as a bunsetsu chunker: unlabelled covering spans (target
"spans:bunsetsu", covering=True) on tiny hand-made Japanese Docs."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from spacy_adf.pipeline.targets import covering_spans, make_target
from spacy_adf.features.templates import TemplateSet
from spacy_adf.lang.ja.bunsetsu import set_bunsetsu_tree
from spacy_adf.optimizers.adf import ADF

# tag code -> (tag_, pos_, morph), JUMAN style as the KNP reader writes them
TAGS = {
    "N": ("名詞-普通名詞", "NOUN", "SrcPos=名詞|SrcSubPos=普通名詞"),
    "T": ("名詞-時相名詞", "NOUN", "SrcPos=名詞|SrcSubPos=時相名詞"),
    "P": ("助詞-格助詞", "ADP", "SrcPos=助詞|SrcSubPos=格助詞"),
    "V": ("動詞", "VERB", "ConjForm=基本形|ConjType=子音動詞マ行|SrcPos=動詞"),
    "VR": ("動詞", "VERB", "ConjForm=基本連用形|ConjType=母音動詞|SrcPos=動詞"),
    "S": ("接尾辞-動詞性接尾辞", "AUX", "ConjForm=タ形|ConjType=動詞性接尾辞ます型|SrcPos=接尾辞|SrcSubPos=動詞性接尾辞"),
    "X": ("特殊-句点", "PUNCT", "SrcPos=特殊|SrcSubPos=句点"),
    "I": ("感動詞", "INTJ", "SrcPos=感動詞"),
}

# "word/TAG" tokens, "|" between bunsetsu
SENTS = [
    "私/N は/P | 本/N を/P | 読む/V 。/X",
    "猫/N が/P | 魚/N を/P | 食べ/VR ました/S 。/X",
    "昨日/T | 友達/N と/P | 映画/N を/P | 見/VR ました/S 。/X",
    "学生/N が/P | 大学/N 図書館/N で/P | 本/N を/P | 読む/V",
    "雨/N が/P | 降る/V",
    "はい/I",
]

TEMPLATES = ["w[-1]", "w[0]", "t[-1]", "t[0]", "t[-1]|t[0]", "pos[0]",
             "morph_SrcPos[-1]|morph_SrcPos[0]", "morph_ConjForm[-1]"]


def make_doc(vocab, sent, with_bunsetsu):
    words, tags, pos, morphs, starts = [], [], [], [], []
    for part in sent.split("|"):
        starts.append(len(words))
        for item in part.split():
            word, code = item.split("/")
            tag, upos, morph = TAGS[code]
            words.append(word)
            tags.append(tag)
            pos.append(upos)
            morphs.append(morph)
    doc = Doc(vocab, words=words, spaces=[False] * len(words), tags=tags, pos=pos, morphs=morphs)
    if with_bunsetsu:
        ends = starts[1:] + [len(words)]
        doc.spans["bunsetsu"] = [Span(doc, s, e) for s, e in zip(starts, ends)]
    return doc


def bounds(doc):
    return [(s.start, s.end, s.label_) for s in doc.spans["bunsetsu"]]


def is_cover(doc):
    end = 0
    for span in doc.spans["bunsetsu"]:
        if span.start != end or span.end <= span.start:
            return False
        end = span.end
    return end == len(doc)


def make_nlp(scheme="BIO", covering=True):
    nlp = spacy.blank("xx")
    nlp.add_pipe("adf_tagger", name="bunsetsu_chunker", config={
        "target": "spans:bunsetsu", "scheme": scheme, "covering": covering,
        "model": {"templates": TEMPLATES}})
    return nlp


def examples(nlp, sents=SENTS):
    return [Example(make_doc(nlp.vocab, s, False), make_doc(nlp.vocab, s, True)) for s in sents]


def train(nlp, egs, epochs=30):
    opt = ADF(0.5, sigma=None, L2=0.0, window=50)
    nlp.initialize(lambda: egs)
    for _ in range(epochs):
        for eg in egs:
            nlp.update([eg], sgd=opt)
    return nlp


@pytest.fixture(scope="module", params=["BIO", "BILUO"])
def trained(request):
    nlp = make_nlp(request.param)
    return train(nlp, examples(nlp))


def test_learns_tiny_set_to_zero_errors_with_covering_output(trained):
    chunker = trained.get_pipe("bunsetsu_chunker")
    assert chunker.labels == ("",)
    assert "O" not in chunker.tag_names  # covering: the CRF cannot leave a token out
    for eg in examples(trained):
        doc = trained(eg.predicted)
        assert bounds(doc) == bounds(eg.reference)
    scores = trained.evaluate(examples(trained))
    assert scores["spans_bunsetsu_f"] == pytest.approx(1.0)


def test_output_covers_unseen_docs_and_feeds_the_tree(trained):
    unseen = ["犬/N は/P | 魚/N 本/N を/P | 見/VR ました/S", "。/X", "読む/V 読む/V 読む/V"]
    for sent in unseen:
        doc = trained(make_doc(trained.vocab, sent, False))
        assert is_cover(doc)
        assert all(s.label_ == "" for s in doc.spans["bunsetsu"])
        n = len(doc.spans["bunsetsu"])
        set_bunsetsu_tree(doc, list(range(1, n)) + [-1])  # the parser's cover check passes
    empty = trained(Doc(trained.vocab, words=[]))
    assert "bunsetsu" in empty.spans and len(empty.spans["bunsetsu"]) == 0  # an empty group, not none


@pytest.mark.parametrize("tags,expected", [
    (["B", "I", "B", "I"], [(0, 2), (2, 4)]),
    (["I", "I", "B"], [(0, 2), (2, 3)]),            # stray I at the start opens a span
    (["O", "O", "B", "I"], [(0, 2), (2, 4)]),        # leading O: a span of its own
    (["O", "I", "B"], [(0, 2), (2, 3)]),
    (["B", "O", "I", "B", "O"], [(0, 3), (3, 5)]),   # O and I after O continue the span
    (["O"], [(0, 1)]),
    (["U", "O", "B", "L", "U", "I"], [(0, 2), (2, 4), (4, 6)]),  # BILUO: B and U open spans
    (["B", "L", "L", "I"], [(0, 4)]),                 # ... L does not close one by itself
])
def test_covering_rule_for_O_and_stray_I(tags, expected):
    nlp = spacy.blank("xx")
    doc = Doc(nlp.vocab, words=[str(i) for i in range(len(tags))])
    make_target("spans:bunsetsu", "BILUO", covering=True).set(doc, tags, None)
    assert [(s.start, s.end) for s in doc.spans["bunsetsu"]] == expected
    assert is_cover(doc) and {s.label_ for s in doc.spans["bunsetsu"]} == {""}


def test_covering_rule_with_labels_and_without_covering():
    nlp = spacy.blank("xx")
    doc = Doc(nlp.vocab, words=list("abcde"))
    make_target("spans:c", "BIO", covering=True).set(doc, ["O", "B-X", "O", "I-Y", "I-Y"], None)
    assert [(s.start, s.end, s.label_) for s in doc.spans["c"]] == [(0, 1, "X"), (1, 3, "X"), (3, 5, "Y")]
    make_target("spans:c", "BIO", covering=True).set(doc, ["O", "I-Y", "B-X", "O", "I-X"], None)
    assert [(s.start, s.end, s.label_) for s in doc.spans["c"]] == [(0, 2, "Y"), (2, 5, "X")]
    # without covering the same tags keep their gaps (unchanged behaviour)
    make_target("spans:c", "BIO").set(doc, ["O", "B-X", "O", "I-Y", "I-Y"], None)
    assert [(s.start, s.end, s.label_) for s in doc.spans["c"]] == [(1, 2, "X"), (3, 5, "Y")]
    make_target("spans:c", "BIO").set(doc, ["O", "B", "I", "O", "B"], None)
    assert [(s.start, s.end, s.label_) for s in doc.spans["c"]] == [(1, 3, ""), (4, 5, "")]
    assert covering_spans([]) == []


def test_unlabelled_spans_without_covering_keep_O():
    nlp = spacy.blank("xx")
    nlp.add_pipe("adf_tagger", config={"target": "spans:bunsetsu", "model": {"templates": TEMPLATES}})
    egs = examples(nlp)
    for eg in egs[:2]:  # leave a gap: the first token of each Doc is in no span
        group = eg.reference.spans["bunsetsu"]
        eg.reference.spans["bunsetsu"] = [Span(eg.reference, 1, group[0].end)] + list(group)[1:]
    train(nlp, egs)
    tagger = nlp.get_pipe("adf_tagger")
    assert tagger.tag_names == ["O", "B", "I"]
    assert tagger.target.gold(egs[0])[:3] == ["O", "B", "B"]
    doc = nlp(egs[0].predicted)
    assert bounds(doc) == bounds(egs[0].reference)


def test_covering_target_rejects_a_gold_group_with_gaps():
    nlp = make_nlp()
    eg = examples(nlp)[0]
    eg.reference.spans["bunsetsu"] = [Span(eg.reference, 0, 2), Span(eg.reference, 3, 6)]
    with pytest.raises(ValueError, match="does not cover"):
        nlp.initialize(lambda: [eg])
    for spec in ("tag", "ents"):
        with pytest.raises(ValueError, match="covering applies to span groups"):
            make_target(spec, covering=True)


def test_serialization_round_trip_gives_identical_spans(trained, tmp_path):
    docs = [make_doc(trained.vocab, s, False) for s in SENTS + ["犬/N は/P 魚/N 読む/V"]]
    before = [bounds(trained(d.copy())) for d in docs]
    trained.to_disk(tmp_path / "nlp")
    loaded = spacy.load(tmp_path / "nlp")
    chunker = loaded.get_pipe("bunsetsu_chunker")
    assert chunker.cfg["covering"] is True
    assert [bounds(loaded(Doc(loaded.vocab).from_bytes(d.to_bytes()))) for d in docs] == before
    other = make_nlp(trained.get_pipe("bunsetsu_chunker").cfg["scheme"])
    other.get_pipe("bunsetsu_chunker").from_bytes(trained.get_pipe("bunsetsu_chunker").to_bytes())
    assert [bounds(other(d.copy())) for d in docs] == before
    with pytest.raises(ValueError, match="covering"):
        make_nlp(covering=False).get_pipe("bunsetsu_chunker").from_disk(tmp_path / "nlp" / "bunsetsu_chunker")


def test_morph_templates():
    nlp = spacy.blank("xx")
    doc = make_doc(nlp.vocab, SENTS[1], False)
    tset = TemplateSet(["morph_ConjForm[0]", "morph_SrcPos[0]|w[0]"])
    cols = tset.columns_for(doc)
    conj = cols[:, tset.columns.index("morph_ConjForm")]
    assert (conj != 0).tolist() == [t.morph.get("ConjForm") != [] for t in doc]
    assert conj[4] != conj[5]  # 基本連用形 vs タ形
    assert tset.required_annotations == ["MORPH"]
    with pytest.raises(ValueError, match="MORPH"):
        tset.check_doc(Doc(nlp.vocab, words=["a"]))
    numpy.testing.assert_array_equal(tset.columns_for(doc), cols)  # cached values agree


def test_bunsetsu_preset_and_config_resolve():
    from pathlib import Path

    from spacy.util import load_config, load_model_from_config, registry

    templates = registry.resolve({"t": {"@misc": "spacy_adf.templates.bunsetsu.v1"}})["t"]
    TemplateSet(templates)
    assert any(t.startswith("morph_") for t in templates)
    cfg = load_config(Path(__file__).resolve().parents[2] / "configs" / "bunsetsu_ja_kwdlc.cfg")
    nlp = load_model_from_config(cfg, auto_fill=True)
    chunker = nlp.get_pipe("bunsetsu_chunker")
    assert chunker.target.covering and chunker.target.key == "bunsetsu"
