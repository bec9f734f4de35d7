"""Japanese part-of-speech rules shared by the bunsetsu readers, features
and parser: JUMAN and UniDic tags as ``token.tag_``, ``pos_`` and ``morph``
(docs/corpora.md, "Japanese tags")."""
from functools import lru_cache
from typing import Dict, Tuple, Union

#: JUMAN (品詞, 細分類) -> UD POS; a 品詞 alone covers all its 細分類.
JUMAN_UPOS: Dict[Union[str, Tuple[str, str]], str] = {
    "名詞": "NOUN",  # 普通名詞, サ変名詞, 形式名詞, 副詞的名詞, 時相名詞
    ("名詞", "固有名詞"): "PROPN",
    ("名詞", "地名"): "PROPN",
    ("名詞", "人名"): "PROPN",
    ("名詞", "組織名"): "PROPN",
    ("名詞", "数詞"): "NUM",
    "動詞": "VERB",
    "形容詞": "ADJ",
    "判定詞": "AUX",
    "助動詞": "AUX",
    "副詞": "ADV",
    "連体詞": "ADJ",
    "接続詞": "CCONJ",
    "感動詞": "INTJ",
    "指示詞": "PRON",  # 名詞形態指示詞
    ("指示詞", "連体詞形態指示詞"): "DET",
    ("指示詞", "副詞形態指示詞"): "ADV",
    "助詞": "ADP",  # 格助詞, 副助詞
    ("助詞", "接続助詞"): "SCONJ",
    ("助詞", "終助詞"): "PART",
    "接頭辞": "NOUN",  # as UD Japanese-GSD does for 接頭辞
    "接尾辞": "NOUN",  # 名詞性名詞接尾辞, 名詞性名詞助数辞, 名詞性特殊接尾辞, 名詞性述語接尾辞
    ("接尾辞", "形容詞性名詞接尾辞"): "ADJ",  # 的
    ("接尾辞", "形容詞性述語接尾辞"): "AUX",  # ない, たい, やすい
    ("接尾辞", "動詞性接尾辞"): "AUX",  # れる, せる, (て)いる
    "特殊": "PUNCT",  # 句点, 読点, 括弧始, 括弧終
    ("特殊", "記号"): "SYM",
    ("特殊", "空白"): "SPACE",
    "未定義語": "X",
}

#: UniDic (大分類, 中分類) -> UD POS (the majority UPOS of each in UD Japanese-GSD).
UNIDIC_UPOS: Dict[Union[str, Tuple[str, str]], str] = {
    "名詞": "NOUN",
    ("名詞", "固有名詞"): "PROPN",
    ("名詞", "数詞"): "NUM",
    ("名詞", "助動詞語幹"): "AUX",
    "代名詞": "PRON",
    "形状詞": "ADJ",
    ("形状詞", "助動詞語幹"): "AUX",
    "連体詞": "DET",
    "副詞": "ADV",
    "接続詞": "CCONJ",
    "感動詞": "INTJ",
    "動詞": "VERB",
    "形容詞": "ADJ",
    "助動詞": "AUX",
    "助詞": "ADP",  # 格助詞, 係助詞, 副助詞
    ("助詞", "接続助詞"): "SCONJ",
    ("助詞", "準体助詞"): "SCONJ",
    ("助詞", "終助詞"): "PART",
    "接頭辞": "NOUN",
    "接尾辞": "NOUN",  # 名詞的
    ("接尾辞", "形状詞的"): "PART",
    ("接尾辞", "動詞的"): "PART",
    ("接尾辞", "形容詞的"): "AUX",
    "記号": "NOUN",
    "補助記号": "PUNCT",  # 句点, 読点, 括弧開, 括弧閉
    ("補助記号", "一般"): "SYM",
    ("補助記号", "ＡＡ"): "SYM",
    "空白": "SPACE",
}

#: Source POS that are not content words, for the head-word rule.
FUNCTION_POS = frozenset({"助詞", "助動詞", "判定詞", "特殊", "接尾辞", "補助記号", "空白"})
#: Source POS of punctuation, symbols and spaces (the second tier of the rule).
PUNCT_POS = frozenset({"特殊", "補助記号", "空白"})
FUNCTION_UPOS = frozenset({"ADP", "AUX", "PART", "SCONJ", "PUNCT", "SYM", "SPACE"})
PUNCT_UPOS = frozenset({"PUNCT", "SYM", "SPACE"})

#: UniDic 中分類 values, to split a UD XPOS (POS levels + 活用型 joined by "-").
UNIDIC_POS2 = {
    "名詞": {"普通名詞", "固有名詞", "数詞", "助動詞語幹"},
    "形状詞": {"一般", "タリ", "助動詞語幹"},
    "感動詞": {"一般", "フィラー"},
    "動詞": {"一般", "非自立可能"},
    "形容詞": {"一般", "非自立可能"},
    "助詞": {"格助詞", "副助詞", "係助詞", "接続助詞", "終助詞", "準体助詞"},
    "接尾辞": {"名詞的", "形状詞的", "動詞的", "形容詞的"},
    "記号": {"一般", "文字"},
    "補助記号": {"一般", "句点", "読点", "括弧開", "括弧閉", "ＡＡ"},
}
#: UniDic 大分類 whose XPOS continues with a 活用型 rather than sub-POS levels.
UNIDIC_CONJUGATING = {"動詞", "形容詞", "助動詞"}


def juman_upos(pos: str, subpos: str) -> str:
    """The UD POS of a JUMAN 品詞 / 細分類 (`JUMAN_UPOS`; X if unknown)."""
    return JUMAN_UPOS.get((pos, subpos)) or JUMAN_UPOS.get(pos, "X")


def unidic_upos(pos1: str, pos2: str) -> str:
    """The UD POS of a UniDic 大分類 / 中分類 (`UNIDIC_UPOS`; X if unknown)."""
    return UNIDIC_UPOS.get((pos1, pos2)) or UNIDIC_UPOS.get(pos1, "X")


def _value(value: str) -> str:
    # "*" (JUMAN, UniDic) and "_" (CoNLL-U) both mean "no value"
    return "" if value in ("*", "_") else value


def main_subpos(subpos: str) -> str:
    """The first level of a sub-POS (``固有名詞`` of ``固有名詞-人名-姓``; ``""`` for ``*`` or ``_``)."""
    return _value(subpos).split("-")[0]


@lru_cache(maxsize=None)
def make_tag(pos: str, subpos: str) -> str:
    """``POS-subPOS`` (the first level of ``subpos``), ``POS`` if there is none."""
    sub = main_subpos(subpos)
    return f"{pos}-{sub}" if sub else pos


@lru_cache(maxsize=None)
def make_morph(pos: str, subpos: str = "*", conj_type: str = "*", conj_form: str = "*") -> str:
    """The ``token.morph`` string (``SrcPos=...|SrcSubPos=...|ConjType=...|ConjForm=...``)."""
    feats = []
    for name, value in (("ConjForm", conj_form), ("ConjType", conj_type), ("SrcPos", pos), ("SrcSubPos", subpos)):
        value = _value(value)
        if value:
            if any(c in value for c in "|=,"):
                raise ValueError(f"morph value {value!r} ({name}) contains '|', '=' or ','")
            feats.append(f"{name}={value}")
    return "|".join(feats)


def split_xpos(xpos: str) -> Tuple[str, str, str]:
    """UD Japanese XPOS (UniDic POS levels and 活用型 joined by ``-``) as
    (大分類, sub-POS levels, 活用型)."""
    parts = xpos.split("-")
    pos1, rest = parts[0], parts[1:]
    pos2 = ""
    if rest and rest[0] in UNIDIC_POS2.get(pos1, ()):
        pos2, rest = rest[0], rest[1:]
    if pos1 in UNIDIC_CONJUGATING or (pos1 == "接尾辞" and pos2 in ("動詞的", "形容詞的")):
        sub, conj = pos2, "-".join(rest)
    else:
        sub, conj = "-".join([pos2] + rest if pos2 else rest), ""
    return pos1, sub or "*", conj or "*"
