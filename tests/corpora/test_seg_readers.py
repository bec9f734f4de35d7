"""Tests for the CoNLL-U and KNP corpus readers and write_segmented."""
from functools import lru_cache
from pathlib import Path

import pytest
import spacy
from spacy.util import registry

from spacy_adf.corpora.conllu import ConlluCorpus, read_conllu


def doc_text(sentence):
    """The text spelled by a sentence's words and spaces."""
    return "".join(w + (" " if s else "") for w, s in zip(sentence.words, sentence.spaces))
from spacy_adf.corpora.knp import Bunsetsu, KNPCorpus, parse_morpheme, read_knp
from benchmarks.segmentation import write_segmented
from spacy_adf.corpora.segmented import read_segmented
from spacy_adf.tokenizers.char import CharTokenizer


@pytest.fixture(scope="module")
def nlp():
    nlp = spacy.blank("xx")
    nlp.tokenizer = CharTokenizer(nlp.vocab)
    return nlp


def _write(tmp_path, name, text, encoding="utf8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def _row(i, form, misc="_"):
    return f"{i}\t{form}\t_\t_\t_\t_\t_\t_\t_\t{misc}\n"


# --------------------------------------------------------------------------
# CoNLL-U
# --------------------------------------------------------------------------

MWT_FILE = (
    "# newdoc id = d1\n"
    "# sent_id = es-1\n"
    "# text = Vámonos al mar.\n"
    + _row("1-2", "Vámonos")
    + _row(1, "Vamos")
    + _row(2, "nos")
    + _row("3-4", "al")
    + _row(3, "a")
    + _row(4, "el")
    + _row(5, "mar", "SpaceAfter=No")
    + _row("5.1", "ghost")
    + _row(6, ".")
    + "\n"
    "# sent_id = es-2\n"  # no "# text": spaces come from MISC
    + _row(1, "Hola", "SpaceAfter=No")
    + _row(2, ",", "Foo=Bar")
    + _row(3, "mundo", "SpaceAfter=No|Other=1")
    + _row(4, "!")
)


def test_conllu_multiword_tokens_and_empty_nodes(tmp_path):
    path = _write(tmp_path, "es.conllu", MWT_FILE)  # no blank line at the end
    first, second = read_conllu(path)
    assert first.words == ["Vámonos", "al", "mar", "."]
    assert first.spaces == [True, True, False, False]
    assert first.sent_id == "es-1"
    assert first.text == "Vámonos al mar."
    assert doc_text(first) == first.text
    assert first.line == 1 and first.text_line == 3
    assert second.words == ["Hola", ",", "mundo", "!"]
    assert second.spaces == [False, True, False, False]
    assert second.text is None
    assert doc_text(second) == "Hola, mundo!"


def test_conllu_spaces_modes(tmp_path):
    path = _write(tmp_path, "es.conllu", MWT_FILE)
    misc = list(read_conllu(path, spaces="misc"))
    assert misc[0].spaces == [True, True, False, False]  # MISC of the range line for "al"
    none = list(read_conllu(path, spaces="none"))
    assert [doc_text(s) for s in none] == ["Vámonosalmar.", "Hola,mundo!"]
    with pytest.raises(ValueError, match="spaces must be one of"):
        list(read_conllu(path, spaces="yes"))


def test_conllu_text_decides_over_misc(tmp_path):
    # MISC says SpaceAfter=No after "a" but the text has a space: "auto" follows the text
    text = "# text = a b\n" + _row(1, "a", "SpaceAfter=No") + _row(2, "b") + "\n"
    path = _write(tmp_path, "t.conllu", text)
    assert next(read_conllu(path)).spaces == [True, False]
    assert next(read_conllu(path, spaces="misc")).spaces == [False, False]


def test_conllu_japanese_text_preserved(tmp_path, nlp):
    text = (
        "# sent_id = ja-1\n# text = 私はSpaCy Japanを使う。\n"
        + _row(1, "私", "SpaceAfter=No")
        + _row(2, "は", "SpaceAfter=No")
        + _row(3, "SpaCy")
        + _row(4, "Japan", "SpaceAfter=No")
        + _row(5, "を", "SpaceAfter=No")
        + _row(6, "使う", "SpaceAfter=No")
        + _row(7, "。", "SpaceAfter=No")
        + "\n"
    )
    path = _write(tmp_path, "ja.conllu", text)
    (sentence,) = read_conllu(path)
    assert doc_text(sentence) == "私はSpaCy Japanを使う。"
    (example,) = ConlluCorpus(path)(nlp)
    assert example.reference.text == "私はSpaCy Japanを使う。"
    assert [t.text for t in example.reference] == ["私", "は", "SpaCy", "Japan", "を", "使う", "。"]
    assert example.predicted.text == example.reference.text
    assert len(example.predicted) == len("私はSpaCyJapanを使う。")  # one token per character


def test_conllu_text_mismatch_names_file_and_line(tmp_path):
    text = "# sent_id = x\n" + "# text = 私は猫\n" + _row(1, "私") + _row(2, "が") + _row(3, "猫") + "\n"
    path = _write(tmp_path, "bad.conllu", text)
    with pytest.raises(ValueError, match=r"bad\.conllu, line 2: the tokens of sentence 'x' do not match"):
        list(read_conllu(path))
    # the other modes ignore the text
    assert next(read_conllu(path, spaces="misc")).words == ["私", "が", "猫"]
    text = "# text = 私は猫だ\n" + _row(1, "私") + _row(2, "は") + _row(3, "猫") + "\n"
    path = _write(tmp_path, "short.conllu", text)
    with pytest.raises(ValueError, match=r"line 1: .*'だ' is left over"):
        list(read_conllu(path))


@pytest.mark.parametrize(
    "line,message",
    [
        ("1\tword\t_\t_\t_\t_\t_\t_\t_\n", "expected 10 tab-separated columns, found 9"),
        ("1 word _ _ _ _ _ _ _ _\n", "expected 10 tab-separated columns, found 1"),
        ("x\tword\t_\t_\t_\t_\t_\t_\t_\t_\n", "bad token ID 'x'"),
        ("0\tword\t_\t_\t_\t_\t_\t_\t_\t_\n", "bad token ID '0'"),
        ("4-3\tword\t_\t_\t_\t_\t_\t_\t_\t_\n", "bad multiword token range"),
    ],
)
def test_conllu_malformed_lines(tmp_path, line, message):
    path = _write(tmp_path, "m.conllu", "# text = a\n" + _row(1, "a") + "\n# sent_id = 2\n" + line)
    with pytest.raises(ValueError, match=r"m\.conllu, line 5: " + message):
        list(read_conllu(path))


def test_conllu_file_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        read_conllu(tmp_path / "missing.conllu")
    with pytest.raises(ValueError, match="does not exist"):
        registry.readers.get("spacy_adf.ConlluCorpus.v1")(tmp_path / "missing.conllu")
    with pytest.raises(ValueError, match="no corpus path"):
        registry.readers.get("spacy_adf.ConlluCorpus.v1")(None)
    path = _write(tmp_path, "latin1.conllu", _row(1, "a") + "\n" + _row(1, "café"), encoding="latin-1")
    with pytest.raises(ValueError, match=r"latin1\.conllu, line 3: not valid UTF-8"):
        list(read_conllu(path))


def test_conllu_bom_crlf_limit(tmp_path):
    text = "\ufeff# text = a b\r\n" + _row(1, "a").replace("\n", "\r\n") + _row(2, "b").replace("\n", "\r\n")
    text += "\r\n\r\n\r\n" + _row(1, "c") + "\n" + _row(1, "d") + "\n"
    path = _write(tmp_path, "crlf.conllu", text)
    sentences = list(read_conllu(path))
    assert [s.words for s in sentences] == [["a", "b"], ["c"], ["d"]]
    assert sentences[0].spaces == [True, False]
    assert [s.words for s in read_conllu(path, limit=2)] == [["a", "b"], ["c"]]


def test_conllu_registered_reader(tmp_path, nlp):
    path = _write(tmp_path, "es.conllu", MWT_FILE)
    reader = registry.readers.get("spacy_adf.ConlluCorpus.v1")(path, limit=1)
    (example,) = reader(nlp)
    assert [t.text for t in example.reference] == ["Vámonos", "al", "mar", "."]
    assert example.reference.text == "Vámonos al mar."
    assert example.predicted.text == "Vámonos al mar."
    reader = registry.readers.get("spacy_adf.ConlluCorpus.v1")(path, spaces="none")
    assert [eg.reference.text for eg in reader(nlp)] == ["Vámonosalmar.", "Hola,mundo!"]


# --------------------------------------------------------------------------
# KNP
# --------------------------------------------------------------------------

KNP_FILE = """\
# S-ID:doc-1 KNP:4.2 MEMO:
* 1D <BGH:ゲスト/げすと>
+ 1D <rel type="ノ" target="不特定:物1"/>
ゲスト げすと ゲスト 名詞 6 普通名詞 1 * 0 * 0 "代表表記:ゲスト/げすと カテゴリ:人" <NE:PERSON:head>
は は は 助詞 9 副助詞 2 * 0 * 0 NIL
* -1D
+ -1D
多い おおい 多い 形容詞 3 * 0 イ形容詞アウオ段 18 基本形 2 NIL
。 。 。 特殊 1 句点 1 * 0 * 0 NIL
EOS
# S-ID:doc-2 括弧始:（ 括弧終:）
* 0 1P
+ 0 1P
猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL
* 1 -1D
+ 1 -1D
犬 いぬ 犬 名詞 6 普通名詞 1 * 0 * 0 NIL
EOS
"""


def test_knp_structure(tmp_path):
    path = _write(tmp_path, "a.knp", KNP_FILE)
    first, second = read_knp(path)
    assert first.sid == "doc-1"
    assert first.comment == "# S-ID:doc-1 KNP:4.2 MEMO:"
    assert first.line == 1 and second.line == 11
    assert first.words == ["ゲスト", "は", "多い", "。"]
    assert first.text == "ゲストは多い。"
    m = first.morphemes[0]
    assert (m.surface, m.reading, m.lemma, m.pos, m.subpos, m.conj_type, m.conj_form) == (
        "ゲスト", "げすと", "ゲスト", "名詞", "普通名詞", "*", "*",
    )
    assert m.features == '"代表表記:ゲスト/げすと カテゴリ:人" <NE:PERSON:head>'
    assert first.morphemes[2].conj_type == "イ形容詞アウオ段" and first.morphemes[2].conj_form == "基本形"
    assert first.bunsetsu == [
        Bunsetsu(0, 2, 1, "D", "<BGH:ゲスト/げすと>"),
        Bunsetsu(2, 4, -1, "D", ""),
    ]
    assert [(t.start, t.end, t.head) for t in first.tags] == [(0, 2, 1), (2, 4, -1)]
    # Kyoto Corpus style "* 0 1P" with the unit's own number
    assert second.bunsetsu == [Bunsetsu(0, 1, 1, "P", ""), Bunsetsu(1, 2, -1, "D", "")]
    assert "括弧始:" in second.comment
    assert [s.sid for s in read_knp(path, limit=1)] == ["doc-1"]


@pytest.mark.parametrize(
    "line,fields",
    [
        # the shared KNP corpora (ku_annotated_fkc/train.knp)
        ("\\ \\ \\ 特殊 1 空白 6 * 0 * 0 NIL", (" ", " ", " ", "特殊", "空白", "NIL")),
        # JUMAN 7: backslash-space, then the separator; sometimes a raw space first
        ("\\  \\  \\  特殊 1 空白 6 * 0 * 0 NIL", (" ", " ", " ", "特殊", "空白", "NIL")),
        ("  \\  \\  特殊 1 空白 6 * 0 * 0 NIL", (" ", " ", " ", "特殊", "空白", "NIL")),
        ("\\  \\  \\  特殊 1 空白 6 * 0 * 0 \"代表表記: / \"", (" ", " ", " ", "特殊", "空白", '"代表表記: / "')),
        ("\\ P \\ P \\ P 未定義語 15 その他 1 * 0 * 0 \"品詞推定:名詞\"", (" P", " P", " P", "未定義語", "その他", '"品詞推定:名詞"')),
        # Juman++ 2
        ("\\␣ \\␣ \\␣ 特殊 1 空白 6 * 0 * 0", (" ", " ", " ", "特殊", "空白", "")),
        ('\\" \\" \\" 特殊 1 括弧終 4 * 0 * 0', ('"', '"', '"', "特殊", "括弧終", "")),
        # unescaped whitespace other than the ASCII space stays as it is
        ("\u3000 \u3000 \u3000 特殊 1 空白 6 * 0 * 0 NIL", ("\u3000", "\u3000", "\u3000", "特殊", "空白", "NIL")),
        ("\u3000\u3000 \u3000\u3000 \u3000\u3000 特殊 1 空白 6 * 0 * 0 NIL", ("\u3000\u3000",) * 3 + ("特殊", "空白", "NIL")),
        ("\xa0 \xa0 \xa0 特殊 1 空白 6 * 0 * 0 NIL", ("\xa0", "\xa0", "\xa0", "特殊", "空白", "NIL")),
        # surfaces that look like the other line kinds
        ("* * * 特殊 1 記号 5 * 0 * 0 NIL", ("*", "*", "*", "特殊", "記号", "NIL")),
        ("EOS いーおーえす EOS 未定義語 15 アルファベット 3 * 0 * 0", ("EOS", "いーおーえす", "EOS", "未定義語", "アルファベット", "")),
    ],
)
def test_knp_escaped_surfaces(line, fields):
    m = parse_morpheme(line)
    assert m is not None
    assert (m.surface, m.reading, m.lemma, m.pos, m.subpos, m.features) == fields


def test_knp_whitespace_morphemes_in_examples(tmp_path, nlp):
    text = (
        "# S-ID:ws-1\n* -1D\n+ -1D\n"
        "A A A 特殊 1 記号 5 * 0 * 0 NIL\n"
        "\\ \\ \\ 特殊 1 空白 6 * 0 * 0 NIL\n"
        "* * * 特殊 1 記号 5 * 0 * 0 NIL\n"
        "+ + + 特殊 1 記号 5 * 0 * 0 NIL\n"
        "# # # 特殊 1 記号 5 * 0 * 0 NIL\n"
        "\u3000\u3000 \u3000\u3000 \u3000\u3000 特殊 1 空白 6 * 0 * 0 NIL\n"
        "日本 にほん 日本 名詞 6 地名 4 * 0 * 0 NIL\n"
        "EOS\n"
    )
    path = _write(tmp_path, "ws.knp", text)
    (sentence,) = read_knp(path)
    assert sentence.words == ["A", " ", "*", "+", "#", "\u3000\u3000", "日本"]
    (example,) = registry.readers.get("spacy_adf.KNPCorpus.v1")(path)(nlp)
    reference = example.reference
    assert [t.text for t in reference] == sentence.words
    assert all(not t.whitespace_ for t in reference)
    assert "".join(sentence.words) == reference.text == example.predicted.text == "A *+#\u3000\u3000日本"


def _knp(*lines):
    return "\n".join(lines) + "\n"


SENT_OK = ("# S-ID:ok", "* -1D", "+ -1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS")


@pytest.mark.parametrize(
    "text,message",
    [
        (_knp(*SENT_OK, "# S-ID:x", "* 2D", "+ 1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL",
              "* -1D", "+ -1D", "犬 いぬ 犬 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS"),
         r"line 7: bunsetsu 0 has head 2, out of range: the sentence has 2 bunsetsu"),
        (_knp(*SENT_OK, "# S-ID:x", "* -2D", "+ -1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS"),
         r"line 7: bunsetsu 0 has head -2"),
        (_knp(*SENT_OK, "# S-ID:x", "* -1D", "+ 5D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS"),
         r"line 8: basic phrase 0 has head 5, out of range: the sentence has 1 basic phrases"),
        (_knp(*SENT_OK, "# S-ID:x", "* -1D", "+ -1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL"),
         r"the sentence from line 6 has no EOS line \(end of file\)"),
        (_knp("# S-ID:x", "* -1D", "+ -1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL", *SENT_OK),
         r"line 5: a new sentence begins but the sentence from line 1 has no EOS line"),
        (_knp(*SENT_OK, "* -1D", "+ -1D", "猫 ねこ 猫 名詞 6 普通名詞", "EOS"),
         r"line 8: malformed line .*'猫 ねこ 猫 名詞 6 普通名詞'"),
        (_knp(*SENT_OK, "* -1D", "+ -1D", "猫 ねこ 猫 名詞 x 普通名詞 1 * 0 * 0 NIL", "EOS"),
         r"line 8: malformed line"),
        (_knp(*SENT_OK, "* 1X", "+ -1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS"),
         r"line 6: malformed line .*'\* 1X'"),
        (_knp(*SENT_OK, "* 1D", "+ 1D", "* -1D", "+ -1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS"),
         r"line 6: bunsetsu without morphemes"),
        (_knp(*SENT_OK, "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL", "* -1D", "+ -1D",
              "犬 いぬ 犬 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS"),
         r"line 7: morphemes before the first bunsetsu line"),
        (_knp(*SENT_OK, "* -1D", "+ -1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL", "", "EOS"),
         r"line 9: blank line inside the sentence from line 6"),
        (_knp(*SENT_OK, "* 0 1D", "+ 0 1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL",
              "* 2 -1D", "+ 1 -1D", "犬 いぬ 犬 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS"),
         r"line 9: phrase number 2 should be 1"),
        (_knp(*SENT_OK, "* 1D", "+ 1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL",
              "* -1D", "犬 いぬ 犬 名詞 6 普通名詞 1 * 0 * 0 NIL", "+ -1D", "鳥 とり 鳥 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS"),
         r"line 9: bunsetsu does not begin with a basic phrase"),
    ],
)
def test_knp_errors(tmp_path, text, message):
    path = _write(tmp_path, "bad.knp", text)
    with pytest.raises(ValueError, match=message) as info:
        list(read_knp(path))
    assert str(info.value).startswith(str(path))


def test_knp_bad_heads_modes(tmp_path, nlp):
    text = _knp(*SENT_OK, "# S-ID:x", "* 5D", "+ -1D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS", *SENT_OK)
    path = _write(tmp_path, "heads.knp", text)
    with pytest.raises(ValueError, match="Pass bad_heads='skip'"):
        list(read_knp(path))
    assert [s.sid for s in read_knp(path, bad_heads="skip")] == ["ok", "ok"]
    kept = list(read_knp(path, bad_heads="ignore"))
    assert [s.sid for s in kept] == ["ok", "x", "ok"]
    assert kept[1].bunsetsu[0].head == 5
    with pytest.raises(ValueError, match="bad_heads must be one of"):
        list(read_knp(path, bad_heads="warn"))
    # the segmentation reader does not use heads
    assert len(list(KNPCorpus(path)(nlp))) == 3
    with pytest.raises(ValueError, match="out of range"):
        list(KNPCorpus(path, bad_heads="raise")(nlp))


def test_knp_self_loops_and_backward_heads_are_kept(tmp_path):
    text = _knp("# S-ID:loop", "* 0D", "+ 0D", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL",
                "* -1D", "+ -1D", "犬 いぬ 犬 名詞 6 普通名詞 1 * 0 * 0 NIL", "EOS")
    path = _write(tmp_path, "loop.knp", text)
    (sentence,) = read_knp(path)
    assert [b.head for b in sentence.bunsetsu] == [0, -1]


def test_knp_file_errors_and_juman_only(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        read_knp(tmp_path / "missing.knp")
    with pytest.raises(ValueError, match="does not exist"):
        registry.readers.get("spacy_adf.KNPCorpus.v1")(tmp_path / "missing.knp")
    path = _write(tmp_path, "euc.knp", _knp(*SENT_OK), encoding="euc-jp")
    with pytest.raises(ValueError, match=r"euc\.knp, line 4: not valid UTF-8"):
        list(read_knp(path))
    # JUMAN output: no comment, no phrase lines; blank lines between sentences
    path = _write(tmp_path, "juman.knp", "猫 ねこ 猫 名詞 6 普通名詞 1 * 0 * 0 NIL\nEOS\n\nEOS\n")
    first, empty = read_knp(path)
    assert first.words == ["猫"] and first.bunsetsu == [] and first.sid is None
    assert empty.words == []


# --------------------------------------------------------------------------
# write_segmented
# --------------------------------------------------------------------------


def test_write_segmented_round_trip(tmp_path):
    sentences = [["我们", "在", "北京"], ["\u3000", "全角", "\u3000\u3000"], ["a"]]
    path = tmp_path / "out.txt"
    assert write_segmented(sentences, path) == 3
    assert path.read_text(encoding="utf8") == "我们 在 北京\n\u3000 全角 \u3000\u3000\na\n"
    assert list(read_segmented(path)) == sentences
    assert write_segmented(iter([["x"]]), path) == 1  # overwrites


@pytest.mark.parametrize("bad", [[["a b"]], [["a\tb"]], [["a\n"]], [["a\r"]], [[""]], [[]], ["ab"]])
def test_write_segmented_rejects_unwritable(tmp_path, bad):
    path = tmp_path / "out.txt"
    path.write_text("old\n", encoding="utf8")
    with pytest.raises(ValueError, match="sentence 1"):
        write_segmented([["ok"]] + bad, path)
    assert path.read_text(encoding="utf8") == "old\n"  # left as it was
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left


# --------------------------------------------------------------------------
# Real corpora (../shared/data); counts from SOURCES.md
# --------------------------------------------------------------------------


@lru_cache(maxsize=None)
def _knp_sentences(path: Path):
    return tuple(read_knp(path))


@lru_cache(maxsize=None)
def _conllu_sentences(path: Path, spaces: str):
    return tuple(read_conllu(path, spaces=spaces))


@pytest.mark.parametrize(
    "name,sentences,main,morphemes,bunsetsu,tags",
    [
        ("kwdlc/train.knp", 12271, 11745, 194489, 72739, 92971),
        ("kwdlc/dev.knp", 1585, 1536, 22625, 8986, 11019),
        ("kwdlc/test.knp", 2195, 2100, 35869, 13186, 16973),
        ("ku_wikipedia_annotated/dev.knp", 443, 248, 6353, 2293, 3402),
        ("ku_wikipedia_annotated/test.knp", 775, 455, 11123, 4010, 6014),
        ("ku_annotated_fkc/train.knp", 885, 885, 12496, 5287, 5909),
    ],
)
def test_knp_counts(shared_data, name, sentences, main, morphemes, bunsetsu, tags):
    data = _knp_sentences(shared_data / name)
    assert len(data) == sentences
    # the README counts leave out parenthetical sub-sentences
    assert sum(1 for s in data if "括弧始" not in s.comment) == main
    assert sum(len(s.morphemes) for s in data) == morphemes
    assert sum(len(s.bunsetsu) for s in data) == bunsetsu
    assert sum(len(s.tags) for s in data) == tags
    for s in data:
        assert s.sid and s.morphemes
        assert sum(1 for b in s.bunsetsu if b.head == -1) == 1
        assert s.bunsetsu[0].start == 0 and s.bunsetsu[-1].end == len(s.morphemes)
        assert all(a.end == b.start for a, b in zip(s.bunsetsu, s.bunsetsu[1:]))
        assert "".join(s.words) == s.text


def test_knp_real_escaped_space(shared_data):
    data = _knp_sentences(shared_data / "ku_annotated_fkc" / "train.knp")
    (sentence,) = [s for s in data if s.sid == "fuman-trip-0000001751-1"]
    (space,) = [m for m in sentence.morphemes if m.subpos == "空白"]
    assert (space.surface, space.reading, space.lemma) == (" ", " ", " ")
    assert " " in sentence.text


def test_knp_real_examples(shared_data, nlp):
    path = shared_data / "ku_wikipedia_annotated" / "dev.knp"
    data = _knp_sentences(path)
    examples = list(registry.readers.get("spacy_adf.KNPCorpus.v1")(path)(nlp))
    assert len(examples) == len(data)
    whitespace = 0
    for sentence, example in zip(data, examples):
        assert [t.text for t in example.reference] == sentence.words
        assert example.reference.text == example.predicted.text == "".join(sentence.words)
        whitespace += sum(1 for w in sentence.words if w.isspace())
    assert whitespace == 66  # U+3000 morphemes stay tokens


@pytest.mark.parametrize(
    "name,sentences,tokens",
    [
        ("ud_chinese_gsd_r1.4/zh-ud-train.conllu", 3997, 98608),
        ("ud_chinese_gsd_r1.4/zh-ud-dev.conllu", 500, 12663),
        ("ud_chinese_gsd_r1.4/zh-ud-test.conllu", 500, 12012),
    ],
)
def test_conllu_chinese_gsd_counts(shared_data, name, sentences, tokens):
    data = _conllu_sentences(shared_data / name, "none")
    assert len(data) == sentences
    assert sum(len(s.words) for s in data) == tokens
    assert all(s.text is None and not any(s.spaces) for s in data)
    # UD v1 has no SpaceAfter: "auto" falls back to MISC and puts spaces everywhere
    first = next(read_conllu(shared_data / name))
    assert all(first.spaces[:-1])


@pytest.mark.parametrize(
    "name,sentences,tokens",
    [("ud_japanese_gsd/ja_gsd-ud-dev.conllu", 507, 12287), ("ud_japanese_gsd/ja_gsd-ud-test.conllu", 543, 13034)],
)
def test_conllu_japanese_gsd_counts(shared_data, name, sentences, tokens):
    auto = _conllu_sentences(shared_data / name, "auto")
    misc = _conllu_sentences(shared_data / name, "misc")
    assert len(auto) == sentences
    assert sum(len(s.words) for s in auto) == tokens
    for a, m in zip(auto, misc):
        assert a.text is not None and doc_text(a) == a.text  # the text exactly
        assert a.spaces == m.spaces  # SpaceAfter agrees with "# text"
    assert any(any(s.spaces) for s in auto)  # a few spaces between Latin words


def test_conllu_real_examples(shared_data, nlp):
    for name, spaces in [
        ("ud_japanese_gsd/ja_gsd-ud-dev.conllu", "auto"),
        ("ud_chinese_gsd_r1.4/zh-ud-dev.conllu", "none"),
    ]:
        path = shared_data / name
        data = _conllu_sentences(path, spaces)[:100]
        reader = registry.readers.get("spacy_adf.ConlluCorpus.v1")(path, limit=100, spaces=spaces)
        examples = list(reader(nlp))
        assert len(examples) == 100
        for sentence, example in zip(data, examples):
            assert [t.text for t in example.reference] == sentence.words
            assert example.reference.text == example.predicted.text == doc_text(sentence)
            assert len(example.predicted) == len(doc_text(sentence).replace(" ", ""))


def test_write_segmented_real_round_trip(shared_data, tmp_path):
    words = [s.words for s in _conllu_sentences(shared_data / "ud_chinese_gsd_r1.4" / "zh-ud-dev.conllu", "none")]
    words += [s.words for s in _knp_sentences(shared_data / "kwdlc" / "dev.knp")]
    path = tmp_path / "seg.txt"
    assert write_segmented(words, path) == 500 + 1585
    assert list(read_segmented(path)) == words
