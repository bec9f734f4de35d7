"""Tests for the bunsetsu dependency readers (spacy_adf.corpora.bunsetsu,
.cabocha, .bunsetsu_conllu) and the Japanese rules they use (spacy_adf.lang.ja)."""
import random
from collections import Counter
from functools import partial

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.util import registry

from spacy_adf.corpora.bunsetsu import BunsetsuCorpus, bunsetsu_docs, sentence_to_doc
from spacy_adf.corpora.bunsetsu_conllu import conllu_bunsetsu_docs, ud_to_bunsetsu_heads
from spacy_adf.corpora.cabocha import read_cabocha
from spacy_adf.corpora.knp import read_knp
from spacy_adf.lang.ja.bunsetsu import (
    BUNSETSU_KEY,
    INTRA_LABEL,
    bunsetsu_head_tokens,
    bunsetsu_heads,
    check_bunsetsu_heads,
    repair_bunsetsu_heads,
    set_bunsetsu_tree,
)
from spacy_adf.lang.ja.pos import juman_upos, make_morph, make_tag, split_xpos, unidic_upos

knp_to_doc = partial(sentence_to_doc, scheme="juman")
cabocha_to_doc = partial(sentence_to_doc, scheme="unidic")


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("xx")


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf8")
    return path


def _m(surface, pos, subpos="*", conj_type="*", conj_form="*", lemma=None):
    """A JUMAN morpheme line (ids are not checked by the reader)."""
    return f"{surface} {surface} {lemma or surface} {pos} 1 {subpos} 1 {conj_type} 0 {conj_form} 0 NIL"


def _token_tree_ok(doc):
    """One root, every token reaches it, no crossing arcs."""
    roots = [t.i for t in doc if t.head.i == t.i]
    assert len(roots) == 1
    for t in doc:
        seen, cur = set(), t
        while cur.head.i != cur.i:
            assert cur.i not in seen
            seen.add(cur.i)
            cur = cur.head
    arcs = [tuple(sorted((t.i, t.head.i))) for t in doc if t.head.i != t.i]
    for a, b in arcs:
        for c, d in arcs:
            assert not (a < c < b < d), f"arcs {a}-{b} and {c}-{d} cross"
    return True


# --------------------------------------------------------------------------
# KNP
# --------------------------------------------------------------------------

KNP_OK = "\n".join(
    [
        "# S-ID:ok-1 KNP:4.2",
        "* 2D",
        "+ 2D",
        _m("ゲスト", "名詞", "普通名詞"),
        _m("は", "助詞", "副助詞"),
        "* 2D",
        "+ 2D",
        _m("「", "特殊", "括弧始"),
        _m("ドラゴン", "名詞", "普通名詞"),
        _m("」", "特殊", "括弧終"),
        _m("に", "助詞", "格助詞"),
        "* -1D",
        "+ -1D",
        _m("出演", "名詞", "サ変名詞"),
        _m("して", "動詞", "*", "サ変動詞", "タ系連用テ形", lemma="する"),
        _m("いる", "接尾辞", "動詞性接尾辞", "母音動詞", "基本形"),
        _m("。", "特殊", "句点"),
        "EOS",
        "# S-ID:ok-1-02 括弧始:（ 括弧終:） 括弧位置:3",
        "* -1D",
        "+ -1D",
        _m("シュラフタ", "名詞", "普通名詞"),
        "EOS",
        "",
    ]
)


def test_knp_to_doc_data_model(tmp_path, nlp):
    path = _write(tmp_path, "ok.knp", KNP_OK)
    first, second = read_knp(path)
    doc = knp_to_doc(nlp.vocab, first)
    assert [t.text for t in doc] == ["ゲスト", "は", "「", "ドラゴン", "」", "に", "出演", "して", "いる", "。"]
    assert doc.text == "ゲストは「ドラゴン」に出演している。"
    assert all(not t.whitespace_ for t in doc)
    assert doc.user_data["sent_id"] == "ok-1"
    assert [t.tag_ for t in doc][:3] == ["名詞-普通名詞", "助詞-副助詞", "特殊-括弧始"]
    assert doc[7].tag_ == "動詞"
    assert [t.pos_ for t in doc] == ["NOUN", "ADP", "PUNCT", "NOUN", "PUNCT", "ADP", "NOUN", "VERB", "AUX", "PUNCT"]
    assert doc[7].lemma_ == "する"
    assert doc[7].morph.to_dict() == {"SrcPos": "動詞", "ConjType": "サ変動詞", "ConjForm": "タ系連用テ形"}
    assert doc[0].morph.get("SrcPos") == ["名詞"] and doc[0].morph.get("SrcSubPos") == ["普通名詞"]
    group = doc.spans[BUNSETSU_KEY]
    assert [s.text for s in group] == ["ゲストは", "「ドラゴン」に", "出演している。"]
    assert group.attrs["heads"] == [2, 2, -1]
    assert group.attrs["dep_types"] == ["D", "D", "D"]
    assert "original_heads" not in group.attrs
    # head words: ゲスト, ドラゴン (brackets and particle skipped), 出演 (して is a verb: rightmost content)
    assert bunsetsu_head_tokens(group.doc, group) == [0, 3, 7]
    assert [(t.head.i, t.dep_) for t in doc] == [
        (7, "D"), (0, INTRA_LABEL), (3, INTRA_LABEL), (7, "D"), (3, INTRA_LABEL), (3, INTRA_LABEL),
        (7, INTRA_LABEL), (7, "ROOT"), (7, INTRA_LABEL), (7, INTRA_LABEL),
    ]
    assert len(list(doc.sents)) == 1 and _token_tree_ok(doc)
    assert bunsetsu_heads(doc) == [2, 2, -1]
    # the parenthetical sub-sentence: one bunsetsu, one token
    one = knp_to_doc(nlp.vocab, second)
    assert [t.text for t in one] == ["シュラフタ"] and one[0].dep_ == "ROOT" and one[0].head.i == 0
    assert one.spans[BUNSETSU_KEY].attrs["heads"] == [-1]
    assert bunsetsu_heads(one) == [-1] and len(list(one.sents)) == 1


def _knp_sentence(sid, heads, types=None):
    lines = [f"# S-ID:{sid}"]
    for i, h in enumerate(heads):
        t = types[i] if types else "D"
        lines += [f"* {h}{t}", f"+ {h}{t}", _m(f"語{i}", "名詞", "普通名詞"), _m("の", "助詞", "接続助詞")]
    return "\n".join(lines + ["EOS", ""])


def test_knp_crossing_and_non_head_final(tmp_path, nlp):
    text = (
        _knp_sentence("cross", [1, 3, 4, 4, -1], "DPPPD")
        + _knp_sentence("backward", [2, 0, -1])
        + _knp_sentence("loop", [0, -1])
        + _knp_sentence("tworoots", [-1, -1])
        + _knp_sentence("lastnotroot", [1, 5])
    )
    path = _write(tmp_path, "bad.knp", text)
    cross, backward, loop, tworoots, lastnotroot = read_knp(path, bad_heads="ignore")
    with pytest.raises(ValueError, match=r"sentence 'cross'.*arcs 1->3 and 2->4 cross"):
        knp_to_doc(nlp.vocab, cross)
    with pytest.raises(ValueError, match=r"sentence 'backward'.*bunsetsu 1 points left to bunsetsu 0"):
        knp_to_doc(nlp.vocab, backward)
    with pytest.raises(ValueError, match="bunsetsu 0 is its own head"):
        knp_to_doc(nlp.vocab, loop)
    with pytest.raises(ValueError, match="only the last bunsetsu"):
        knp_to_doc(nlp.vocab, tworoots)
    with pytest.raises(ValueError, match=r"last bunsetsu \(1\) has head 5, it must be the root"):
        knp_to_doc(nlp.vocab, lastnotroot)
    stats = Counter()
    assert knp_to_doc(nlp.vocab, cross, bad_heads="skip", stats=stats) is None
    assert stats == Counter(sentences=1, skipped=1)
    expected = {
        "cross": [1, 4, 4, 4, -1],  # 1->3 crosses 2->4: moved up to 4, which covers 3
        "backward": [2, 2, -1],
        "loop": [1, -1],
        "tworoots": [1, -1],
        "lastnotroot": [1, -1],
    }
    for sentence in (cross, backward, loop, tworoots, lastnotroot):
        doc = knp_to_doc(nlp.vocab, sentence, bad_heads="repair", stats=stats)
        group = doc.spans[BUNSETSU_KEY]
        assert group.attrs["heads"] == expected[sentence.sid] == bunsetsu_heads(doc)
        assert group.attrs["original_heads"] == [b.head for b in sentence.bunsetsu]
        assert _token_tree_ok(doc)
    assert stats["repaired"] == 5 and stats["docs"] == 5
    assert knp_to_doc(nlp.vocab, cross, bad_heads="repair").spans[BUNSETSU_KEY].attrs["dep_types"] == list("DPPPD")
    with pytest.raises(ValueError, match="bad_heads must be one of"):
        knp_to_doc(nlp.vocab, cross, bad_heads="ignore")
    # a JUMAN-only sentence (no bunsetsu lines)
    path = _write(tmp_path, "juman.knp", "# S-ID:j\n" + _m("猫", "名詞", "普通名詞") + "\nEOS\n")
    (juman,) = read_knp(path)
    with pytest.raises(ValueError, match="sentence 'j': no bunsetsu"):
        knp_to_doc(nlp.vocab, juman, bad_heads="repair")
    assert knp_to_doc(nlp.vocab, juman, bad_heads="skip") is None


# --------------------------------------------------------------------------
# Heads: check, repair, round trips
# --------------------------------------------------------------------------


def _random_tree(rng, n):
    """A random head-final projective tree over n bunsetsu."""
    heads = [-1] * n
    for i in range(n - 2, -1, -1):
        path, j = [], i + 1
        while j != -1:
            path.append(j)
            j = heads[j]
        heads[i] = rng.choice(path)
    return heads


def _doc_with_bunsetsu(vocab, sizes, pos_cycle=("名詞", "助詞")):
    words, morphs = [], []
    for b, size in enumerate(sizes):
        for k in range(size):
            words.append(f"w{b}_{k}")
            morphs.append(make_morph(pos_cycle[min(k, len(pos_cycle) - 1)]))
    doc = Doc(vocab, words=words, spaces=[False] * len(words), morphs=morphs)
    spans, start = [], 0
    for size in sizes:
        spans.append(doc[start:start + size])
        start += size
    doc.spans[BUNSETSU_KEY] = spans
    return doc


def test_random_round_trips(nlp):
    rng = random.Random(0)
    for _ in range(300):
        n = rng.randint(1, 12)
        heads = _random_tree(rng, n)
        assert check_bunsetsu_heads(heads) is None
        assert repair_bunsetsu_heads(heads) == heads
        doc = _doc_with_bunsetsu(nlp.vocab, [rng.randint(1, 4) for _ in range(n)])
        labels = [rng.choice("DPAI") for _ in range(n)]
        assert set_bunsetsu_tree(doc, heads, labels) == heads
        assert bunsetsu_heads(doc) == heads
        assert _token_tree_ok(doc) and len(list(doc.sents)) == 1
        # garbage heads: the repair is always a valid tree
        garbage = [rng.randint(-2, n + 1) for _ in range(n)]
        fixed = repair_bunsetsu_heads(garbage)
        assert check_bunsetsu_heads(fixed) is None
        # arcs that were valid and cross nothing to their right are kept
        if check_bunsetsu_heads(garbage) is None:
            assert fixed == garbage


def test_set_bunsetsu_tree_from_attrs_and_errors(nlp):
    doc = _doc_with_bunsetsu(nlp.vocab, [2, 1, 3])
    doc.spans[BUNSETSU_KEY].attrs["heads"] = [2, 2, -1]
    assert set_bunsetsu_tree(doc) == [2, 2, -1]
    assert [t.dep_ for t in doc] == ["dep", INTRA_LABEL, "dep", "ROOT", INTRA_LABEL, INTRA_LABEL]
    with pytest.raises(ValueError, match="2 heads for 3 bunsetsu"):
        set_bunsetsu_tree(doc, [2, -1])
    with pytest.raises(ValueError, match="labels for 3 bunsetsu"):
        set_bunsetsu_tree(doc, [2, 2, -1], ["D"])
    with pytest.raises(ValueError, match="sentence 'mine'.*cross|sentence 'mine'.*left"):
        set_bunsetsu_tree(doc, [2, 0, -1], name="mine")
    gap = Doc(nlp.vocab, words=["a", "b", "c"])
    gap.spans[BUNSETSU_KEY] = [gap[0:1], gap[2:3]]
    with pytest.raises(ValueError, match="must cover the Doc"):
        set_bunsetsu_tree(gap, [1, -1])
    with pytest.raises(ValueError, match="no doc.spans"):
        set_bunsetsu_tree(Doc(nlp.vocab, words=["a"]), [-1])
    with pytest.raises(ValueError, match="no dependency tree"):
        bunsetsu_heads(_doc_with_bunsetsu(nlp.vocab, [1, 1]))


def test_head_word_rule(nlp):
    def head(pos_list):
        doc = Doc(nlp.vocab, words=[f"w{i}" for i in range(len(pos_list))],
                  morphs=[make_morph(p) for p in pos_list])
        return bunsetsu_head_tokens(doc, [doc[:]])[0]

    assert head(["名詞", "助詞"]) == 0
    assert head(["接頭辞", "名詞", "接尾辞", "助詞", "特殊"]) == 1
    assert head(["名詞", "名詞", "判定詞", "特殊"]) == 1  # rightmost content word
    assert head(["特殊", "名詞", "特殊", "助詞"]) == 1  # 「猫」が
    assert head(["助詞", "助動詞", "特殊"]) == 1  # no content word: rightmost non-punctuation
    assert head(["特殊", "特殊"]) == 1  # only punctuation: the rightmost
    assert head(["名詞", "補助記号", "空白"]) == 0  # UniDic function POS
    # without SrcPos: the UD POS decides
    doc = Doc(nlp.vocab, words=["a", "b", "c"], pos=["NOUN", "ADP", "PUNCT"])
    assert bunsetsu_head_tokens(doc, [doc[:]])[0] == 0


def test_pos_tables_and_morph():
    assert juman_upos("名詞", "地名") == "PROPN" and juman_upos("名詞", "時相名詞") == "NOUN"
    assert juman_upos("指示詞", "連体詞形態指示詞") == "DET" and juman_upos("指示詞", "名詞形態指示詞") == "PRON"
    assert juman_upos("接尾辞", "動詞性接尾辞") == "AUX" and juman_upos("特殊", "空白") == "SPACE"
    assert juman_upos("未知", "*") == "X"
    assert unidic_upos("補助記号", "読点") == "PUNCT" and unidic_upos("連体詞", "*") == "DET"
    assert make_tag("動詞", "*") == "動詞" and make_tag("名詞", "普通名詞-一般") == "名詞-普通名詞"
    assert make_morph("動詞", "*", "子音動詞ワ行", "タ形") == "ConjForm=タ形|ConjType=子音動詞ワ行|SrcPos=動詞"
    with pytest.raises(ValueError, match="contains"):
        make_morph("a|b")
    assert split_xpos("名詞-普通名詞-一般") == ("名詞", "普通名詞-一般", "*")
    assert split_xpos("動詞-一般-五段-ワア行") == ("動詞", "一般", "五段-ワア行")
    assert split_xpos("助動詞-助動詞-タ") == ("助動詞", "*", "助動詞-タ")
    assert split_xpos("代名詞") == ("代名詞", "*", "*")
    assert split_xpos("名詞-固有名詞-人名-姓") == ("名詞", "固有名詞-人名-姓", "*")
    assert split_xpos("接尾辞-形容詞的-形容詞") == ("接尾辞", "形容詞的", "形容詞")


# --------------------------------------------------------------------------
# Persistence, displaCy, reader
# --------------------------------------------------------------------------


def test_attrs_survive_docbin_and_bytes(tmp_path, nlp):
    path = _write(tmp_path, "ok.knp", KNP_OK + _knp_sentence("cross", [1, 3, 4, 4, -1], "DPPPD"))
    docs = list(bunsetsu_docs(path, nlp.vocab, "knp", bad_heads="repair"))
    assert len(docs) == 3
    docbin = DocBin(store_user_data=True, docs=docs)
    docbin.to_disk(tmp_path / "x.spacy")
    vocab = spacy.blank("xx").vocab  # a fresh vocab: strings must travel too
    loaded = list(DocBin().from_disk(tmp_path / "x.spacy").get_docs(vocab))
    by_bytes = [Doc(vocab).from_bytes(d.to_bytes()) for d in docs]
    for original in docs:
        for copy in (loaded[docs.index(original)], by_bytes[docs.index(original)]):
            a, b = original.spans[BUNSETSU_KEY], copy.spans[BUNSETSU_KEY]
            assert dict(b.attrs) == dict(a.attrs)
            assert [(s.start, s.end) for s in b] == [(s.start, s.end) for s in a]
            assert [(t.tag_, t.pos_, t.lemma_, str(t.morph), t.head.i, t.dep_) for t in copy] == [
                (t.tag_, t.pos_, t.lemma_, str(t.morph), t.head.i, t.dep_) for t in original
            ]
            assert copy.user_data["sent_id"] == original.user_data["sent_id"]
            assert bunsetsu_heads(copy) == a.attrs["heads"]
    assert loaded[2].spans[BUNSETSU_KEY].attrs["original_heads"] == [1, 3, 4, 4, -1]


def test_displacy_renders(tmp_path, nlp):
    (doc, _) = bunsetsu_docs(_write(tmp_path, "ok.knp", KNP_OK), nlp.vocab, "knp")
    html = spacy.displacy.render(doc, style="dep")
    assert isinstance(html, str) and "ドラゴン" in html and ">D<" in html


def test_reader(tmp_path, nlp):
    path = _write(tmp_path, "r.knp", KNP_OK + _knp_sentence("cross", [1, 3, 4, 4, -1]))
    reader = registry.readers.get("spacy_adf.BunsetsuCorpus.v1")(path)
    examples = list(reader(nlp))
    assert len(examples) == 2  # "cross" skipped by default
    assert reader.stats == Counter(sentences=3, docs=2, skipped=1)
    ex = examples[0]
    ref, pred = ex.reference, ex.predicted
    assert [t.text for t in pred] == [t.text for t in ref] and pred.text == ref.text
    for attr in ("tag_", "pos_", "lemma_"):
        assert [getattr(t, attr) for t in pred] == [getattr(t, attr) for t in ref]
    assert [str(t.morph) for t in pred] == [str(t.morph) for t in ref]
    assert not pred.has_annotation("DEP") and ref.has_annotation("DEP")
    assert [(s.start, s.end) for s in pred.spans[BUNSETSU_KEY]] == [(s.start, s.end) for s in ref.spans[BUNSETSU_KEY]]
    assert "heads" not in pred.spans[BUNSETSU_KEY].attrs
    assert [t.head.i for t in ex.x] == list(range(len(pred)))  # no heads
    nospans = list(BunsetsuCorpus(path, predicted_bunsetsu=False)(nlp))
    assert BUNSETSU_KEY not in nospans[0].predicted.spans
    repaired = BunsetsuCorpus(path, bad_heads="repair")
    assert len(list(repaired(nlp))) == 3 and repaired.stats["repaired"] == 1
    with pytest.raises(ValueError, match="sentence 'cross'"):
        list(BunsetsuCorpus(path, bad_heads="raise")(nlp))
    assert len(list(BunsetsuCorpus(path, limit=1)(nlp))) == 1
    # from a training config
    from thinc.api import Config

    config = Config().from_str(
        f'[train]\n@readers = "spacy_adf.BunsetsuCorpus.v1"\npath = "{path}"\nbad_heads = "repair"\n'
    )
    assert len(list(registry.resolve(config)["train"](nlp))) == 3
    with pytest.raises(ValueError, match="format must be one of"):
        BunsetsuCorpus(path, format="xml")
    with pytest.raises(ValueError, match="no corpus path"):
        registry.readers.get("spacy_adf.BunsetsuCorpus.v1")(None)
    with pytest.raises(ValueError, match="does not exist"):
        BunsetsuCorpus(tmp_path / "missing.knp")


def test_reader_entry_point():
    import configparser
    from importlib import import_module
    from pathlib import Path

    from spacy_adf.corpora.bunsetsu import BunsetsuCorpus

    config = configparser.ConfigParser()
    config.read(Path(__file__).resolve().parents[2] / "setup.cfg", encoding="utf8")
    lines = config["options.entry_points"]["spacy_readers"].strip().splitlines()
    readers = dict(line.replace(" ", "").split("=") for line in lines)
    module, func = readers["spacy_adf.BunsetsuCorpus.v1"].split(":")
    assert getattr(import_module(module), func) is BunsetsuCorpus
    assert registry.readers.get("spacy_adf.BunsetsuCorpus.v1") is BunsetsuCorpus


# --------------------------------------------------------------------------
# CaboCha
# --------------------------------------------------------------------------


def _c(surface, feats):
    return f"{surface}\t{feats}\t\t*,*,*,,,,\t"


CABOCHA = "\n".join(
    [
        "#! DOC\t0",
        "#! DOCATTR\t<ID>0</ID><sent_id># sent_id = c-1</sent_id>",
        "* 0 2F 0/1 -0.8",
        _c("ただし", "接続詞,*,*,*,,,タダシ,但し,ただし,タダシ,ただし,,和"),
        _c("、", "補助記号,読点,*,*,,,,、,、,,、,,記号"),
        "* 1 2DX 1/2 0.1",
        _c("#", "補助記号,一般,*,*,,,,＃,#,,#,,記号"),
        _c("ED", "名詞,普通名詞,一般,*,,,イーディー,ＥＤ,ED,イーディー,ED,,記号"),
        _c("も", "助詞,係助詞,*,*,,,モ,も,も,モ,も,,和"),
        "* 2 -1D 0/2 0",
        _c("使わ", "動詞,一般,*,*,五段-ワア行,未然形-一般,ツカウ,使う,使わ,ツカワ,使う,,和"),
        _c("れ", "助動詞,*,*,*,助動詞-レル,連用形-一般,レル,れる,れ,レ,れる,,和"),
        _c("*", "補助記号,一般,*,*,,,,＊,*,,*,,記号"),
        "EOS",
        "#! DOCATTR\t<ID>1</ID><sent_id># sent_id = c-2</sent_id>",
        "* 0 1D 0/0 0",
        _c("今日", "名詞,普通名詞,副詞可能,*,,,キョウ,今日,今日,キョー,今日,,和"),
        "* 1 2D 0/0 0",  # the 2022 copy's style: the last chunk points past the end
        _c("晴れ", "名詞,普通名詞,一般,*,,,ハレ,晴れ,晴れ,ハレ,晴れ,,和"),
        "EOS",
        "#! DOCATTR\t<ID>2</ID><sent_id># sent_id = c-3</sent_id>",
        "* 0 -1D 0/0 0",
        _c("はい", "感動詞,一般,*,*,,,ハイ,はい,はい,ハイ,はい,,和"),
        "EOS",
        "",
    ]
)


def test_read_cabocha_and_convert(tmp_path, nlp):
    path = _write(tmp_path, "a.cabocha", CABOCHA)
    first, second, third = read_cabocha(path)
    assert first.sid == "c-1" and first.words == ["ただし", "、", "#", "ED", "も", "使わ", "れ", "*"]
    assert [(b.start, b.end, b.head, b.dep_type) for b in first.bunsetsu] == [
        (0, 2, 2, "F"), (2, 5, 2, "DX"), (5, 8, -1, "D")
    ]
    assert first.bunsetsu[0].features == "0/1 -0.8"
    m = first.morphemes[5]
    assert (m.lemma, m.pos, m.subpos, m.conj_type, m.conj_form, m.reading) == (
        "使う", "動詞", "一般", "五段-ワア行", "未然形-一般", "ツカワ"
    )
    doc = cabocha_to_doc(nlp.vocab, first)
    assert [t.tag_ for t in doc][:4] == ["接続詞", "補助記号-読点", "補助記号-一般", "名詞-普通名詞"]
    assert [t.pos_ for t in doc] == ["CCONJ", "PUNCT", "SYM", "NOUN", "ADP", "VERB", "AUX", "SYM"]
    assert doc[3].morph.to_dict() == {"SrcPos": "名詞", "SrcSubPos": "普通名詞-一般"}
    assert doc[5].morph.get("ConjForm") == ["未然形-一般"]
    assert doc.spans[BUNSETSU_KEY].attrs == {"heads": [2, 2, -1], "dep_types": ["F", "DX", "D"]}
    assert bunsetsu_head_tokens(doc, doc.spans[BUNSETSU_KEY]) == [0, 3, 5]
    assert [t.dep_ for t in doc][:4] == ["F", INTRA_LABEL, INTRA_LABEL, "DX"] and _token_tree_ok(doc)
    with pytest.raises(ValueError, match="sentence 'c-2'.*last bunsetsu"):
        cabocha_to_doc(nlp.vocab, second)
    assert cabocha_to_doc(nlp.vocab, second, bad_heads="repair").spans[BUNSETSU_KEY].attrs["heads"] == [1, -1]
    one = cabocha_to_doc(nlp.vocab, third)
    assert len(one) == 1 and one[0].dep_ == "ROOT" and one[0].pos_ == "INTJ"
    assert [s.sid for s in read_cabocha(path, limit=2)] == ["c-1", "c-2"]
    stats = Counter()
    assert len(list(bunsetsu_docs(path, nlp.vocab, "cabocha", stats=stats))) == 2
    assert stats == Counter(sentences=3, docs=2, skipped=1)


@pytest.mark.parametrize(
    "text,message",
    [
        ("* 0 -1D\n" + _c("a", "名詞,*") + "\n", "no EOS"),
        ("* 0 1\n" + _c("a", "名詞,*") + "\nEOS\n", "malformed chunk line"),
        ("* 1 -1D\n" + _c("a", "名詞,*") + "\nEOS\n", "chunk number 1 should be 0"),
        (_c("a", "名詞,*") + "\n* 0 -1D\n" + _c("b", "名詞,*") + "\nEOS\n", "before the first chunk"),
        ("* 0 1D\n* 1 -1D\n" + _c("a", "名詞,*") + "\nEOS\n", "chunk without morphemes"),
        ("* 0 -1D\nabc\nEOS\n", "malformed line"),
    ],
)
def test_cabocha_errors(tmp_path, text, message):
    path = _write(tmp_path, "bad.cabocha", text)
    with pytest.raises(ValueError, match=message):
        list(read_cabocha(path))


# --------------------------------------------------------------------------
# CoNLL-U with BunsetuBILabel
# --------------------------------------------------------------------------


def _u(i, form, upos, xpos, head, bi, lemma=None):
    return f"{i}\t{form}\t{lemma or form}\t{upos}\t{xpos}\t_\t{head}\t_\t_\tBunsetuBILabel={bi}|SpaceAfter=No"


CONLLU = "\n".join(
    [
        "# sent_id = u-1",
        "# text = 猫と犬が走った",
        _u(1, "猫", "NOUN", "名詞-普通名詞-一般", 5, "B"),  # 猫と| 犬が| 走った
        _u(2, "と", "ADP", "助詞-格助詞", 1, "I"),
        _u(3, "犬", "NOUN", "名詞-普通名詞-一般", 1, "B"),  # conj: points left to 猫
        _u(4, "が", "ADP", "助詞-格助詞", 3, "I"),
        _u(5, "走っ", "VERB", "動詞-一般-五段-ラ行", 0, "B", lemma="走る"),
        _u(6, "た", "AUX", "助動詞-助動詞-タ", 5, "I"),
        "",
    ]
)


def test_conllu_bunsetsu(tmp_path, nlp):
    path = _write(tmp_path, "u.conllu", CONLLU)
    (doc,) = conllu_bunsetsu_docs(path, nlp.vocab)
    assert doc.user_data["sent_id"] == "u-1"
    group = doc.spans[BUNSETSU_KEY]
    assert [s.text for s in group] == ["猫と", "犬が", "走った"]
    # UD: 猫 -> 走っ, 犬 -conj-> 猫; head-final: 猫と -> 犬が -> 走った
    assert group.attrs["heads"] == [1, 2, -1] and group.attrs["dep_types"] == ["D", "D", "D"]
    assert [t.pos_ for t in doc] == ["NOUN", "ADP", "NOUN", "ADP", "VERB", "AUX"]
    assert doc[4].tag_ == "動詞-一般" and doc[4].lemma_ == "走る"
    assert doc[4].morph.to_dict() == {"SrcPos": "動詞", "SrcSubPos": "一般", "ConjType": "五段-ラ行"}
    (mapped,) = conllu_bunsetsu_docs(path, nlp.vocab, upos="unidic")
    assert [t.pos_ for t in mapped] == ["NOUN", "ADP", "NOUN", "ADP", "VERB", "AUX"]
    assert _token_tree_ok(doc)


def test_ud_to_bunsetsu_heads():
    # three conjuncts A B C of a root D: A -> B -> C -> D
    assert ud_to_bunsetsu_heads([4, 1, 1, 0], [0, 1, 2, 3]) == [1, 2, 3, -1]
    # a conjunct of the root: the last conjunct becomes the root
    assert ud_to_bunsetsu_heads([0, 1], [0, 1]) == [1, -1]
    # several words pointing out: the root wins, else the rightmost word
    assert ud_to_bunsetsu_heads([2, 0, 1], [0, 1, 1]) == [1, -1]
    assert ud_to_bunsetsu_heads([4, 3, 4, 0], [0, 0, 1, 2]) == [1, 2, -1]


# --------------------------------------------------------------------------
# Real data (../shared/data; counts from SOURCES.md)
# --------------------------------------------------------------------------


def _counts(docs):
    return len(docs), sum(len(d.spans[BUNSETSU_KEY]) for d in docs), sum(len(d) for d in docs)


@pytest.mark.parametrize(
    "name,expected,bad",
    [
        ("kwdlc/dev.knp", (1585, 8986, 22625), 0),
        ("kwdlc/test.knp", (2195, 13186, 35869), 3),
        ("ku_wikipedia_annotated/dev.knp", (443, 2293, 6353), 0),
        ("ku_wikipedia_annotated/test.knp", (775, 4010, 11123), 1),
    ],
)
def test_real_knp_counts(shared_data, nlp, name, expected, bad):
    stats = Counter()
    docs = list(bunsetsu_docs(shared_data / name, nlp.vocab, "knp", bad_heads="repair", stats=stats))
    assert _counts(docs) == expected
    assert stats["repaired"] == bad and stats["sentences"] == expected[0]
    for doc in docs:
        assert bunsetsu_heads(doc) == doc.spans[BUNSETSU_KEY].attrs["heads"]
        assert len(list(doc.sents)) == 1
    assert sum(1 for d in docs if "original_heads" in d.spans[BUNSETSU_KEY].attrs) == bad


def test_kwdlc_train_every_sentence_gets_a_tree(shared_data):
    # 12,271 sentences / 72,739 bunsetsu / 194,489 morphemes (SOURCES.md)
    n_sent = n_bunsetsu = n_morph = n_paren = 0
    bad = {}
    for sentence in read_knp(shared_data / "kwdlc/train.knp", bad_heads="ignore"):
        n_sent += 1
        n_paren += "括弧始" in sentence.comment
        n_bunsetsu += len(sentence.bunsetsu)
        n_morph += len(sentence.morphemes)
        heads = [b.head for b in sentence.bunsetsu]
        problem = check_bunsetsu_heads(heads)
        if problem is not None:
            bad[sentence.sid] = problem
            assert check_bunsetsu_heads(repair_bunsetsu_heads(heads)) is None
    assert (n_sent, n_bunsetsu, n_morph) == (12271, 72739, 194489)
    assert n_sent - n_paren == 11745  # the README count leaves out parenthetical sub-sentences
    # 15 to repair (or skip): 14 with crossing arcs (mostly coordination), 1 self-loop
    assert len(bad) == 15
    assert sum("cross" in p for p in bad.values()) == 14
    assert bad["w201106-0001290480-1"] == "bunsetsu 7 is its own head"


def test_kwdlc_train_docs_sample(shared_data, nlp):
    stats = Counter()
    docs = list(bunsetsu_docs(shared_data / "kwdlc/train.knp", nlp.vocab, "knp", limit=2000, stats=stats))
    assert stats["sentences"] == 2000 and stats["docs"] == len(docs) == 2000 - stats["skipped"]
    for doc in docs:
        assert bunsetsu_heads(doc) == doc.spans[BUNSETSU_KEY].attrs["heads"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name,expected,bad",
    [
        # KWDLC: 14 crossing, 1 self-loop
        ("kwdlc/train.knp", (12271, 72739, 194489), 15),
        # KU Wikipedia: 66 crossing, 12 extra roots, 11 backward, 3 self-loops, 2 out of range, 2 last not root
        ("ku_wikipedia_annotated/train.knp", (14684, 77470, 211262), 96),
    ],
)
def test_train_docs(shared_data, nlp, name, expected, bad):
    """Every train sentence becomes a Doc with a valid tree (15-20 s each)."""
    stats = Counter()
    n_bunsetsu = n_morph = 0
    for doc in bunsetsu_docs(shared_data / name, nlp.vocab, "knp", bad_heads="repair", stats=stats):
        group = doc.spans[BUNSETSU_KEY]
        n_bunsetsu += len(group)
        n_morph += len(doc)
        assert check_bunsetsu_heads(group.attrs["heads"]) is None
        assert bunsetsu_heads(doc) == group.attrs["heads"]
        assert doc[:].root.dep_ == "ROOT" and sum(t.dep_ == "ROOT" for t in doc) == 1
    assert (stats["sentences"], n_bunsetsu, n_morph) == expected
    assert stats["repaired"] == bad and stats["docs"] == expected[0]


@pytest.mark.parametrize(
    "name,expected,bad",
    [
        # dev has 12,539 morphemes: SOURCES.md says 12,536, leaving out the 3 morphemes "#"
        ("ud_japanese_gsd/cabocha/ud_gsd_dev.cabocha", (507, 4185, 12539), 6),
        ("ud_japanese_gsd/cabocha/ud_gsd_test.cabocha", (543, 4566, 13210), 5),
        ("ud_japanese_gsd/cabocha_udjapanese/ud_gsd_dev.cabocha", (507, 4185, 12539), 1),
        ("ud_japanese_gsd/cabocha_udjapanese/ud_gsd_test.cabocha", (543, 4566, 13210), 1),
    ],
)
def test_real_cabocha_counts(shared_data, nlp, name, expected, bad):
    stats = Counter()
    docs = list(bunsetsu_docs(shared_data / name, nlp.vocab, "cabocha", bad_heads="repair", stats=stats))
    assert _counts(docs) == expected and stats["repaired"] == bad
    assert docs[0].user_data["sent_id"].endswith("-s1")


def test_real_conllu_matches_cabocha(shared_data, nlp):
    """The bunsetsu and heads derived from UD words equal the 2025 CaboCha file."""
    gsd = shared_data / "ud_japanese_gsd"
    stats = Counter()
    ud = list(conllu_bunsetsu_docs(gsd / "ja_gsd-ud-dev.conllu", nlp.vocab, bad_heads="repair", stats=stats))
    assert _counts(ud) == (507, 4185, 12287) and stats["repaired"] == 1
    cabocha_file = gsd / "cabocha_udjapanese/ud_gsd_dev.cabocha"
    cabocha = list(bunsetsu_docs(cabocha_file, nlp.vocab, "cabocha", bad_heads="repair"))
    for u, c in zip(ud, cabocha):
        assert u.user_data["sent_id"] == c.user_data["sent_id"]
        gu, gc = u.spans[BUNSETSU_KEY], c.spans[BUNSETSU_KEY]
        assert [s.text for s in gu] == [s.text for s in gc]
        assert gu.attrs.get("original_heads", gu.attrs["heads"]) == gc.attrs.get("original_heads", gc.attrs["heads"])
