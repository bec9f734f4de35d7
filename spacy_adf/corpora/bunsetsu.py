"""Japanese bunsetsu dependency corpora as spaCy Docs.

Readers for KNP (KWDLC, KU Wikipedia, ...), CaboCha (UD Japanese-GSD CaboCha
files) and CoNLL-U with ``BunsetuBILabel`` (UD Japanese-GSD), the utility that
turns bunsetsu heads into a token-level tree (`set_bunsetsu_tree`) and its
inverse (`bunsetsu_heads`), and the reader ``spacy_adf.BunsetsuCorpus.v1``.

Data model (one sentence per Doc)
---------------------------------

- Tokens are the morphemes (KNP, CaboCha) or UD words (CoNLL-U); every
  ``spaces`` flag is False, so ``doc.text`` is the sentence without the spaces
  the original may have had between words (UD "CS Web" becomes "CSWeb").
- ``token.tag_``: ``"POS-subPOS"`` of the source tag set, e.g. ``名詞-普通名詞``,
  ``助詞-格助詞``; just ``"POS"`` when the sub-POS is ``*`` (``動詞``, ``判定詞``,
  ``副詞``). JUMAN for KNP, UniDic (大分類-中分類) for CaboCha and CoNLL-U.
- ``token.pos_``: UD POS from `JUMAN_UPOS` / `UNIDIC_UPOS` (see those tables);
  the CoNLL-U reader takes the UPOS column instead (``upos="unidic"`` maps).
- ``token.lemma_``: the JUMAN 原形 / UniDic 語彙素 (``lemma`` field) / LEMMA.
- ``token.morph``: the source tag kept exactly, so that features can use it:

  ``SrcPos``     JUMAN 品詞 / UniDic 大分類, exactly (名詞, 助詞, 特殊, 補助記号 ...)
  ``SrcSubPos``  JUMAN 細分類 / UniDic 中分類-小分類-細分類 (levels that are not
                 ``*``, joined by ``-``); left out if there is none
  ``ConjType``   JUMAN 活用型 / UniDic 活用型 (``子音動詞ワ行``, ``五段-ワア行``)
  ``ConjForm``   JUMAN 活用形 / UniDic 活用形 (``タ形``, ``連用形-促音便``)

  A feature whose value is ``*`` or empty is left out. (The name ``Pos`` can't
  be used: spaCy turns a morph field ``Pos`` into ``POS``.) CoNLL-U has no
  ConjForm: XPOS carries POS and 活用型 only.
- ``doc.spans["bunsetsu"]``: one span per bunsetsu, in order, covering the Doc.
  Its ``attrs`` hold the gold dependencies (they survive ``Doc.to_bytes`` and
  ``DocBin``):

  ``heads``           list of int: index of the head bunsetsu, -1 for the root
  ``dep_types``       list of str: KNP D/P/A/I; CaboCha labels as written (BCCWJ-
                      DepPara style: D, F, B, Z, with an ``X`` suffix on some);
                      "D" for CoNLL-U (it has no bunsetsu labels)
  ``original_heads``  only when the heads were repaired: the heads as read
- ``doc.user_data["sent_id"]``: the S-ID / sent_id, if any.
- The token tree (``token.head``, ``token.dep_``, sentence boundaries) is set
  from the bunsetsu heads by `set_bunsetsu_tree`.

Head-word rule (`bunsetsu_head_token`)
--------------------------------------

The head token of a bunsetsu is the rightmost token whose ``SrcPos`` is a
content POS, i.e. not in `FUNCTION_POS` (助詞, 助動詞, 判定詞, 特殊, 接尾辞 for
JUMAN; 助詞, 助動詞, 補助記号, 空白, 接尾辞 for UniDic); if there is none, the
rightmost token that is not punctuation / symbol / space (`PUNCT_POS`: 特殊,
補助記号, 空白); else the rightmost token. Suffixes count as function words, so
``3 人 が`` heads on ``3`` and ``変更 後 は`` on ``変更``. Tokens without
``SrcPos`` fall back to ``pos_`` (function: ADP, AUX, PART, SCONJ, PUNCT, SYM,
SPACE; punctuation: PUNCT, SYM, SPACE). This is the "rightmost content word"
head of chunk-based parsers; it is not UD's semantic head. The schemes differ:
JUMAN makes the いる of 食べている a suffix (head 食べ), UniDic a verb (head
いる), and both make the する of 出演して a verb (head して). On GSD dev the
rule picks the word UD marks ``BunsetuPositionType=SEM_HEAD``/``ROOT`` in 3,264
of 4,185 bunsetsu; most differences are such auxiliary-like verbs (動詞-非自立可能
vs the noun before it) and nouns before a 接尾辞 (変更 vs 後).

Token tree: every other token of a bunsetsu attaches to its head token with the
label ``"intra"`` (`INTRA_LABEL`); the head token attaches to the head token of
the head bunsetsu with the bunsetsu's label (``labels``; ``"dep"`` if none are
given); the root bunsetsu's head token is the ROOT (label ``"ROOT"``). A valid
(head-final, projective) bunsetsu tree gives a projective token tree with one
root, so ``doc.sents`` is one sentence.

Valid heads and repair (`check_bunsetsu_heads`, `repair_bunsetsu_heads`)
-------------------------------------------------------------------------

Japanese is head-final: every bunsetsu but the last must point to a bunsetsu to
its right, the last is the root (-1), and arcs must not cross. Bad heads raise
a ValueError naming the sentence; ``bad_heads="repair"`` repairs them and
``"skip"`` drops the sentence. Repair goes from right to left: the last
bunsetsu becomes the root; bunsetsu i may take any bunsetsu on the path from
i + 1 to the root (exactly the heads that cross no arc already fixed); it keeps
its head if that is on the path, else takes the first bunsetsu on the path at
or right of its head (a -1 that is not the last, or a head past the end, means
the last bunsetsu; a head at or left of i means i + 1). So crossing arcs are
moved up to the bunsetsu that covers their old head, self-loops and backward
heads attach to the next bunsetsu, and every valid arc of the sentence that
does not cross an arc to its right is kept.

In the shared corpora (see tests/test_bunsetsu.py): KWDLC train 15 sentences
(14 with crossing arcs, 2 of them involving a P arc; 1 self-loop), test 3
(crossing), dev 0; KU Wikipedia train 96 (66 crossing, 12 extra roots, 11
backward heads, 3 self-loops, 2 out of range, 2 last bunsetsu not the root),
test 1, dev 0; KU FKC 0; GSD CaboCha (2025 copy) dev 1 / test 1 crossing, the
2022 copy 6 / 5 (mostly a last bunsetsu pointing past the end).

CoNLL-U bunsetsu heads
----------------------

Bunsetsu are the runs of words from a ``BunsetuBILabel=B`` to the next B. A
bunsetsu's head is the bunsetsu holding the UD head of its words that point
outside it (the root if one of them is the UD root; in GSD dev/test every
bunsetsu has exactly one such target; if there are several, the rightmost
word's wins). UD heads coordination on the first conjunct (``conj`` arcs go
left); those are made head-final as in KNP: if bunsetsu c1 < c2 < ... < ck point
left to bunsetsu h, then h -> c1 -> c2 ... -> ck -> the old head of h (groups
done from left to right). Every backward bunsetsu arc in GSD dev/test is such a
``conj`` (46 bunsetsu in 44 dev sentences, 31 in 28 test sentences). After the
conversion the heads equal those of the 2025 CaboCha copy of the same
sentences for every bunsetsu (4,185 dev, 4,566 test); 1 dev and 1 test
sentence still have crossing arcs (as in the CaboCha file), handled by
``bad_heads``.

CaboCha dependency labels are kept as written, not interpreted: GSD has D,
and F, B, Z with an optional X suffix (BCCWJ-DepPara style).
"""
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy
from spacy.attrs import DEP, HEAD
from spacy.tokens import Doc, Span, SpanGroup
from spacy.training import Example
from spacy.util import registry
from spacy.vocab import Vocab

from .conllu import check_file, read_lines
from .knp import Bunsetsu, KNPSentence, Morpheme, read_knp

PathLike = Union[str, Path]

BUNSETSU_KEY = "bunsetsu"
INTRA_LABEL = "intra"
ROOT_LABEL = "ROOT"
DEFAULT_LABEL = "dep"
BAD_HEADS_MODES = ("raise", "repair", "skip")
FORMATS = ("knp", "cabocha", "conllu")

# --------------------------------------------------------------------------
# POS tables
# --------------------------------------------------------------------------

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

# UniDic 中分類 values, to split a UD XPOS (POS levels + 活用型 joined by "-").
_UNIDIC_POS2 = {
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
_UNIDIC_CONJUGATING = {"動詞", "形容詞", "助動詞"}


def _lookup(table, pos: str, subpos: str) -> str:
    upos = table.get((pos, subpos))
    if upos is None:
        upos = table.get(pos, "X")
    return upos


def juman_upos(pos: str, subpos: str) -> str:
    """The UD POS of a JUMAN 品詞 / 細分類 (`JUMAN_UPOS`; X if unknown)."""
    return _lookup(JUMAN_UPOS, pos, subpos)


def unidic_upos(pos1: str, pos2: str) -> str:
    """The UD POS of a UniDic 大分類 / 中分類 (`UNIDIC_UPOS`; X if unknown)."""
    return _lookup(UNIDIC_UPOS, pos1, pos2)


def _value(value: str) -> str:
    return "" if value in ("*", "_") else value


@lru_cache(maxsize=None)
def make_tag(pos: str, subpos: str) -> str:
    """``POS-subPOS`` (the first level of ``subpos``), ``POS`` if there is none."""
    sub = _value(subpos).split("-")[0]
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


# --------------------------------------------------------------------------
# Heads: checking, repair, token tree
# --------------------------------------------------------------------------


def check_bunsetsu_heads(heads: Sequence[int]) -> Optional[str]:
    """What is wrong with ``heads`` (None if they are a head-final projective
    tree: each bunsetsu but the last points right, the last is the root -1,
    no arcs cross)."""
    n = len(heads)
    if n == 0:
        return "the sentence has no bunsetsu"
    for i, h in enumerate(heads[:-1]):
        if h == -1:
            return f"bunsetsu {i} is a root (head -1) but only the last bunsetsu ({n - 1}) may be"
        if not -1 <= h < n:
            return f"bunsetsu {i} has head {h}, out of range (the sentence has {n} bunsetsu)"
        if h == i:
            return f"bunsetsu {i} is its own head"
        if h < i:
            return f"bunsetsu {i} points left to bunsetsu {h} (not head-final)"
    if heads[-1] != -1:
        return f"the last bunsetsu ({n - 1}) has head {heads[-1]}, it must be the root (-1)"
    for i, h in enumerate(heads[:-1]):
        for j in range(i + 1, h):
            if heads[j] > h or heads[j] == -1:
                return f"the arcs {i}->{h} and {j}->{heads[j]} cross (not projective)"
    return None


def repair_bunsetsu_heads(heads: Sequence[int]) -> List[int]:
    """The nearest head-final projective tree (see the module docstring)."""
    n = len(heads)
    fixed = [-1] * n
    for i in range(n - 2, -1, -1):
        h = heads[i]
        if h == -1 or h >= n or h < -1:
            h = n - 1
        elif h <= i:
            h = i + 1
        j = i + 1  # walk the path i + 1 -> ... -> root; the first node >= h
        while j < h and fixed[j] != -1:
            j = fixed[j]
        fixed[i] = j
    return fixed


def _bunsetsu_group(doc: Doc, spans_key: str) -> SpanGroup:
    if spans_key not in doc.spans:
        raise ValueError(f"the Doc has no doc.spans[{spans_key!r}] (bunsetsu spans)")
    spans = doc.spans[spans_key]
    end = 0
    for i, span in enumerate(spans):
        if span.start != end or span.end <= span.start:
            raise ValueError(
                f"doc.spans[{spans_key!r}] must cover the Doc with non-empty spans in order: "
                f"span {i} is tokens [{span.start}, {span.end}), expected to start at {end}"
            )
        end = span.end
    if end != len(doc):
        raise ValueError(f"doc.spans[{spans_key!r}] ends at token {end}, the Doc has {len(doc)} tokens")
    return spans


def _token_class(token) -> int:
    """0 content word, 1 function word, 2 punctuation / symbol / space."""
    pos = token.morph.get("SrcPos")
    if pos:
        return 2 if pos[0] in PUNCT_POS else 1 if pos[0] in FUNCTION_POS else 0
    upos = token.pos_
    return 2 if upos in PUNCT_UPOS else 1 if upos in FUNCTION_UPOS else 0


def bunsetsu_head_token(span: Span) -> int:
    """The Doc index of the head token of a bunsetsu (module docstring rule)."""
    best, best_class = span.end - 1, 3
    for token in reversed(span):
        cls = _token_class(token)
        if cls < best_class:
            best, best_class = token.i, cls
            if cls == 0:
                break
    return best


def _where(doc: Doc, name: Optional[str]) -> str:
    name = name or doc.user_data.get("sent_id")
    return f"sentence {name!r}" if name else f"sentence {doc.text[:40]!r}"


def set_bunsetsu_tree(
    doc: Doc,
    heads: Optional[Sequence[int]] = None,
    labels: Optional[Sequence[str]] = None,
    *,
    repair: bool = False,
    spans_key: str = BUNSETSU_KEY,
    name: Optional[str] = None,
) -> List[int]:
    """Set ``token.head`` / ``token.dep_`` (and so ``doc.sents``) from bunsetsu
    heads; return the heads used.

    ``heads`` (default: ``doc.spans[spans_key].attrs["heads"]``) has one entry
    per bunsetsu span, the index of its head bunsetsu or -1; ``labels`` the
    label of each bunsetsu's arc (default ``"dep"``). Heads that are not a
    head-final projective tree raise a ValueError naming the sentence (``name``
    or ``doc.user_data["sent_id"]``), or are repaired with ``repair=True``.
    The heads used are stored in the span group's ``attrs["heads"]`` (with
    ``attrs["original_heads"]`` if they were repaired) and the labels, if
    given, in ``attrs["dep_types"]``.
    """
    spans = _bunsetsu_group(doc, spans_key)
    if heads is None:
        if "heads" not in spans.attrs:
            raise ValueError(f"no heads given and doc.spans[{spans_key!r}].attrs has no 'heads'")
        heads = spans.attrs["heads"]
    heads = [int(h) for h in heads]
    n = len(spans)
    if len(heads) != n:
        raise ValueError(f"{_where(doc, name)}: {len(heads)} heads for {n} bunsetsu")
    if labels is not None:
        labels = [str(label) for label in labels]
        if len(labels) != n:
            raise ValueError(f"{_where(doc, name)}: {len(labels)} labels for {n} bunsetsu")
    problem = check_bunsetsu_heads(heads)
    original = heads
    if problem is not None:
        if not repair:
            raise ValueError(
                f"{_where(doc, name)}: {problem}; heads {heads}. Use repair=True (readers: "
                "bad_heads='repair' or 'skip')"
            )
        heads = repair_bunsetsu_heads(heads)
    head_tokens = [bunsetsu_head_token(span) for span in spans]
    strings = doc.vocab.strings
    rel_heads = numpy.zeros(len(doc), dtype="int64")
    deps = numpy.zeros(len(doc), dtype="uint64")
    intra, root, default = strings.add(INTRA_LABEL), strings.add(ROOT_LABEL), strings.add(DEFAULT_LABEL)
    for b, span in enumerate(spans):
        ht = head_tokens[b]
        for t in range(span.start, span.end):
            rel_heads[t] = ht - t
            deps[t] = intra
        if heads[b] == -1:
            rel_heads[ht] = 0
            deps[ht] = root
        else:
            rel_heads[ht] = head_tokens[heads[b]] - ht
            deps[ht] = strings.add(labels[b]) if labels is not None else default
    array = numpy.zeros((len(doc), 2), dtype="uint64")
    array[:, 0] = rel_heads.astype("uint64")
    array[:, 1] = deps
    doc.from_array([HEAD, DEP], array)
    spans.attrs["heads"] = list(heads)
    if labels is not None:
        spans.attrs["dep_types"] = list(labels)
    if heads != original:
        spans.attrs["original_heads"] = list(original)
    else:
        spans.attrs.pop("original_heads", None)
    return heads


def bunsetsu_heads(doc: Doc, spans_key: str = BUNSETSU_KEY) -> List[int]:
    """The bunsetsu heads of the token tree (the inverse of `set_bunsetsu_tree`).

    A bunsetsu holding a root token is the root (-1); otherwise its head is the
    bunsetsu of the head of its rightmost token whose head is outside it.
    """
    spans = _bunsetsu_group(doc, spans_key)
    if not doc.has_annotation("DEP"):
        raise ValueError("the Doc has no dependency tree (token.head / token.dep_)")
    owner = numpy.zeros(len(doc), dtype="int64")
    for b, span in enumerate(spans):
        owner[span.start:span.end] = b
    heads: List[int] = []
    for b, span in enumerate(spans):
        head: Optional[int] = None
        for token in reversed(span):
            if token.head.i == token.i:
                head = -1
                break
            if head is None and owner[token.head.i] != b:
                head = int(owner[token.head.i])
        if head is None:
            raise ValueError(f"{_where(doc, None)}: bunsetsu {b} has no token whose head is outside it")
        heads.append(head)
    return heads


# --------------------------------------------------------------------------
# Docs
# --------------------------------------------------------------------------


def _check_mode(bad_heads: str) -> None:
    if bad_heads not in BAD_HEADS_MODES:
        raise ValueError(f"bad_heads must be one of {list(BAD_HEADS_MODES)}, not {bad_heads!r}")


def _make_doc(
    vocab: Vocab,
    words: List[str],
    tags: List[str],
    pos: List[str],
    lemmas: List[str],
    morphs: List[str],
    bounds: List[Tuple[int, int]],
    heads: List[int],
    dep_types: List[str],
    sent_id: Optional[str],
    bad_heads: str,
    stats: Optional[Counter] = None,
) -> Optional[Doc]:
    _check_mode(bad_heads)
    if stats is not None:
        stats["sentences"] += 1
    if not words:
        if stats is not None:
            stats["empty"] += 1
        return None
    problem = check_bunsetsu_heads(heads)
    if problem is not None:
        if not bounds and bad_heads != "skip":
            where = f"sentence {sent_id!r}" if sent_id else f"sentence {''.join(words)[:40]!r}"
            raise ValueError(f"{where}: no bunsetsu (a morpheme-only analysis?)")
        if bad_heads == "skip":
            if stats is not None:
                stats["skipped"] += 1
            return None
        if stats is not None:
            stats["repaired"] += 1
    doc = Doc(
        vocab, words=words, spaces=[False] * len(words), tags=tags, pos=pos, lemmas=lemmas, morphs=morphs
    )
    if sent_id:
        doc.user_data["sent_id"] = sent_id
    doc.spans[BUNSETSU_KEY] = [doc[start:end] for start, end in bounds]
    set_bunsetsu_tree(doc, heads, dep_types, repair=bad_heads == "repair", name=sent_id)
    if stats is not None:
        stats["docs"] += 1
    return doc


def _sentence_to_doc(
    vocab: Vocab, sentence: KNPSentence, scheme: str, bad_heads: str, stats: Optional[Counter]
) -> Optional[Doc]:
    morphemes = sentence.morphemes
    upos = juman_upos if scheme == "juman" else unidic_upos
    return _make_doc(
        vocab,
        words=[m.surface for m in morphemes],
        tags=[make_tag(m.pos, m.subpos) for m in morphemes],
        pos=[upos(m.pos, _value(m.subpos).split("-")[0]) for m in morphemes],
        lemmas=[m.lemma for m in morphemes],
        morphs=[make_morph(m.pos, m.subpos, m.conj_type, m.conj_form) for m in morphemes],
        bounds=[(b.start, b.end) for b in sentence.bunsetsu],
        heads=[b.head for b in sentence.bunsetsu],
        dep_types=[b.dep_type for b in sentence.bunsetsu],
        sent_id=sentence.sid,
        bad_heads=bad_heads,
        stats=stats,
    )


def knp_to_doc(
    vocab: Vocab, sentence: KNPSentence, bad_heads: str = "raise", stats: Optional[Counter] = None
) -> Optional[Doc]:
    """A Doc (module docstring data model) from a `read_knp` sentence.

    Bad heads raise a ValueError (``bad_heads="raise"``), are repaired
    (``"repair"``) or give None (``"skip"``); None also for a sentence without
    morphemes. ``stats`` (a Counter) counts sentences, docs, repaired, skipped
    and empty.
    """
    return _sentence_to_doc(vocab, sentence, "juman", bad_heads, stats)


def cabocha_to_doc(
    vocab: Vocab, sentence: KNPSentence, bad_heads: str = "raise", stats: Optional[Counter] = None
) -> Optional[Doc]:
    """A Doc from a `read_cabocha` sentence (UniDic tags); as `knp_to_doc`."""
    return _sentence_to_doc(vocab, sentence, "unidic", bad_heads, stats)


# --------------------------------------------------------------------------
# CaboCha
# --------------------------------------------------------------------------

_CHUNK_LINE = re.compile(r"\* (-?[0-9]+) (-?[0-9]+)([A-Za-z]+)(?: (.*))?\Z")
_SENT_ID_ATTR = re.compile(r"sent_id\s*=\s*([^<\s]+)")


def _cabocha_morpheme(fields: List[str]) -> Morpheme:
    """Surface + comma-separated features; UniDic (>= 10 features: pos1-4,
    cType, cForm, lForm, lemma, orth, pron, ...) or IPADIC (pos1-4, cType,
    cForm, base form, reading, pronunciation)."""
    surface = fields[0]
    feats = fields[1].split(",")
    feats += [""] * (10 - len(feats))
    pos = feats[0] or "*"
    sub = "-".join(f for f in feats[1:4] if f and f != "*") or "*"
    if len(fields[1].split(",")) >= 10:
        lemma, reading = feats[7], feats[9]
    else:  # IPADIC
        lemma, reading = feats[6], feats[7]
    if not lemma or lemma == "*":
        lemma = surface
    return Morpheme(
        surface=surface,
        reading=reading or "*",
        lemma=lemma,
        pos=pos,
        subpos=sub,
        conj_type=feats[4] or "*",
        conj_form=feats[5] or "*",
        features="\t".join(fields[1:]),
    )


def read_cabocha(path: PathLike, limit: int = 0) -> Iterator[KNPSentence]:
    """Yield every sentence of a CaboCha (lattice, ``-f1``) file as a
    `KNPSentence` (bunsetsu, no basic phrases).

    Lines: ``#! ...`` comments (``#! DOCATTR`` may carry ``sent_id = ...``,
    kept as ``sid``), ``* id headLABEL [head/func score]`` chunk lines,
    TAB-separated morpheme lines (surface, comma-separated features, anything
    else), ``EOS``. A morpheme whose surface is ``#`` or ``*`` is a morpheme
    (comments begin with ``#! ``, chunk lines with ``* ``). The label is kept
    as the dependency type (``D``, ``F``, ``DX`` ...). Heads are not checked.
    A ValueError names file and line for a missing file, non-UTF-8 input, a
    malformed line, a chunk number out of order, a chunk without morphemes,
    morphemes before the first chunk line and a sentence without ``EOS``.
    """
    return _iter_cabocha(check_file(path, "CaboCha"), limit)


def _iter_cabocha(path: Path, limit: int) -> Iterator[KNPSentence]:
    count = 0
    first = 0
    comments: List[str] = []
    morphemes: List[Morpheme] = []
    chunks: List[Tuple[int, int, str, str, int]] = []
    for lineno, line in read_lines(path):
        if not first:
            if not line.strip():
                continue
            first = lineno
        if line == "EOS":
            bunsetsu: List[Bunsetsu] = []
            for i, (start, head, label, features, chunk_line) in enumerate(chunks):
                end = chunks[i + 1][0] if i + 1 < len(chunks) else len(morphemes)
                if end == start:
                    raise ValueError(f"{path}, line {chunk_line}: chunk without morphemes")
                bunsetsu.append(Bunsetsu(start, end, head, label, features))
            comment = "\n".join(comments)
            sid = _SENT_ID_ATTR.search(comment)
            yield KNPSentence(
                sid=sid.group(1) if sid else None,
                comment=comment,
                morphemes=morphemes,
                bunsetsu=bunsetsu,
                line=first,
            )
            count += 1
            if limit and count >= limit:
                return
            first, comments, morphemes, chunks = 0, [], [], []
            continue
        if line.startswith("#! ") or line == "#!":
            comments.append(line)
            continue
        if line.startswith("* "):
            match = _CHUNK_LINE.match(line)
            if match is None:
                raise ValueError(f"{path}, line {lineno}: malformed chunk line {line[:200]!r}")
            own, head, label, features = match.groups()
            if int(own) != len(chunks):
                raise ValueError(f"{path}, line {lineno}: chunk number {own} should be {len(chunks)}")
            chunks.append((len(morphemes), int(head), label, features or "", lineno))
            continue
        fields = line.split("\t")
        if len(fields) < 2 or not fields[0]:
            if not line.strip():
                raise ValueError(
                    f"{path}, line {lineno}: blank line inside the sentence from line {first} (missing EOS?)"
                )
            raise ValueError(
                f"{path}, line {lineno}: malformed line (not '#! ' comment, '* ' chunk line, "
                f"TAB-separated morpheme or EOS): {line[:200]!r}"
            )
        if not chunks:
            raise ValueError(f"{path}, line {lineno}: morpheme before the first chunk ('* ') line")
        morphemes.append(_cabocha_morpheme(fields))
    if first:
        raise ValueError(f"{path}: the sentence from line {first} has no EOS line (end of file)")


# --------------------------------------------------------------------------
# CoNLL-U with BunsetuBILabel
# --------------------------------------------------------------------------


def _split_xpos(xpos: str) -> Tuple[str, str, str]:
    """UD Japanese XPOS (UniDic POS levels and 活用型 joined by ``-``) as
    (大分類, sub-POS levels, 活用型)."""
    parts = xpos.split("-")
    pos1, rest = parts[0], parts[1:]
    pos2 = ""
    if rest and rest[0] in _UNIDIC_POS2.get(pos1, ()):
        pos2, rest = rest[0], rest[1:]
    if pos1 in _UNIDIC_CONJUGATING or (pos1 == "接尾辞" and pos2 in ("動詞的", "形容詞的")):
        sub, conj = pos2, "-".join(rest)
    else:
        sub, conj = "-".join([pos2] + rest if pos2 else rest), ""
    return pos1, sub or "*", conj or "*"


def _misc_dict(misc: str) -> Dict[str, str]:
    return dict(kv.split("=", 1) for kv in misc.split("|") if "=" in kv)


def ud_to_bunsetsu_heads(word_heads: Sequence[int], bunsetsu_of: Sequence[int]) -> List[int]:
    """Bunsetsu heads from UD word heads (1-based, 0 = root) and the bunsetsu
    index of each word; backward (``conj``) arcs made head-final (module
    docstring). The result may still be invalid (check_bunsetsu_heads)."""
    n = (max(bunsetsu_of) + 1) if bunsetsu_of else 0
    heads: List[Optional[int]] = [None] * n
    for w in range(len(word_heads) - 1, -1, -1):  # rightmost word first
        b = bunsetsu_of[w]
        h = word_heads[w]
        if h == 0:
            heads[b] = -1
        elif bunsetsu_of[h - 1] != b and heads[b] is None:
            heads[b] = bunsetsu_of[h - 1]
    for w in range(len(word_heads)):  # roots win over other external words
        if word_heads[w] == 0:
            heads[bunsetsu_of[w]] = -1
    out = [(-2 if h is None else h) for h in heads]  # -2: no external word (a cycle in UD)
    for h in range(n):
        group = [c for c in range(h + 1, n) if out[c] == h]
        if not group:
            continue
        old = out[h]
        chain = [h] + group
        for a, b in zip(chain, chain[1:]):
            out[a] = b
        out[group[-1]] = old
    return out


def conllu_bunsetsu_docs(
    path: PathLike,
    vocab: Vocab,
    limit: int = 0,
    bad_heads: str = "raise",
    upos: str = "column",
    stats: Optional[Counter] = None,
) -> Iterator[Doc]:
    """Docs (module docstring data model) from a CoNLL-U file with
    ``BunsetuBILabel`` in MISC (UD Japanese-GSD, -PUDLUW).

    Tokens are the UD words (multiword-token ranges and empty nodes are
    skipped); ``upos="column"`` takes ``pos_`` from UPOS, ``"unidic"`` maps
    XPOS with `UNIDIC_UPOS`. ``tag_``/morph come from XPOS (no ConjForm).
    Bunsetsu heads: `ud_to_bunsetsu_heads`; ``dep_types`` are all ``"D"``.
    ``bad_heads`` and ``stats`` as in `knp_to_doc`; ``limit`` counts sentences
    read (0 = all). A ValueError names file and
    line for a line without 10 columns, a word without ``BunsetuBILabel`` or
    a bad HEAD.
    """
    _check_mode(bad_heads)
    if upos not in ("column", "unidic"):
        raise ValueError(f"upos must be 'column' or 'unidic', not {upos!r}")
    return _iter_conllu_docs(check_file(path), vocab, limit, bad_heads, upos, stats)


def _iter_conllu_docs(path, vocab, limit, bad_heads, upos_mode, stats) -> Iterator[Doc]:
    count = 0
    rows: List[Tuple[int, List[str]]] = []
    sent_id: Optional[str] = None

    def convert() -> Optional[Doc]:
        words, tags, pos, lemmas, morphs, word_heads, bunsetsu_of = [], [], [], [], [], [], []
        b = -1
        for lineno, cols in rows:
            misc = _misc_dict(cols[9])
            label = misc.get("BunsetuBILabel")
            if label not in ("B", "I"):
                raise ValueError(f"{path}, line {lineno}: no BunsetuBILabel=B/I in MISC {cols[9][:100]!r}")
            if label == "B" or b < 0:
                b += 1
            try:
                head = int(cols[6])
            except ValueError:
                head = -1
            if not 0 <= head <= len(rows):
                raise ValueError(f"{path}, line {lineno}: bad HEAD {cols[6]!r}")
            pos1, sub, conj = _split_xpos(cols[4])
            words.append(cols[1])
            tags.append(make_tag(pos1, sub))
            pos.append(cols[3] if upos_mode == "column" else unidic_upos(pos1, sub.split("-")[0]))
            lemmas.append(cols[2] if cols[2] != "_" else cols[1])
            morphs.append(make_morph(pos1, sub, conj))
            word_heads.append(head)
            bunsetsu_of.append(b)
        bounds = []
        for i, owner in enumerate(bunsetsu_of):
            if i == 0 or owner != bunsetsu_of[i - 1]:
                bounds.append([i, i + 1])
            else:
                bounds[-1][1] = i + 1
        heads = ud_to_bunsetsu_heads(word_heads, bunsetsu_of)
        return _make_doc(
            vocab, words, tags, pos, lemmas, morphs, [tuple(x) for x in bounds], heads,
            ["D"] * len(bounds), sent_id, bad_heads, stats,
        )

    for lineno, line in read_lines(path):
        if not line.strip():
            if rows:
                doc = convert()
                if doc is not None:
                    yield doc
                count += 1
                if limit and count >= limit:
                    return
            rows, sent_id = [], None
            continue
        if line.startswith("#"):
            match = re.match(r"#\s*sent_id\s*=\s*(\S+)", line)
            if match:
                sent_id = match.group(1)
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise ValueError(f"{path}, line {lineno}: expected 10 tab-separated columns, found {len(cols)}")
        if not cols[0].isdigit():
            continue  # multiword-token range or empty node
        rows.append((lineno, cols))
    if rows:
        doc = convert()
        if doc is not None:
            yield doc


# --------------------------------------------------------------------------
# Reader
# --------------------------------------------------------------------------


def bunsetsu_docs(
    path: PathLike,
    vocab: Vocab,
    format: str = "knp",
    limit: int = 0,
    bad_heads: str = "skip",
    stats: Optional[Counter] = None,
) -> Iterator[Doc]:
    """Reference Docs of a KNP, CaboCha or CoNLL-U file (``limit`` counts
    sentences read, 0 = all)."""
    _check_mode(bad_heads)
    if format not in FORMATS:
        raise ValueError(f"format must be one of {list(FORMATS)}, not {format!r}")
    if format == "conllu":
        return conllu_bunsetsu_docs(path, vocab, limit=limit, bad_heads=bad_heads, stats=stats)
    if format == "knp":
        # read_knp's own out-of-range check is replaced by ours (repair / skip)
        sentences = read_knp(path, limit=limit, bad_heads="ignore")
        convert = knp_to_doc
    else:
        sentences = read_cabocha(path, limit=limit)
        convert = cabocha_to_doc
    return _convert_all(sentences, vocab, convert, bad_heads, stats)


def _convert_all(sentences, vocab, convert, bad_heads, stats) -> Iterator[Doc]:
    for sentence in sentences:
        doc = convert(vocab, sentence, bad_heads, stats)
        if doc is not None:
            yield doc


def make_predicted(reference: Doc, predicted_bunsetsu: bool = True) -> Doc:
    """A Doc with the reference's tokens, tags, POS, morphs and lemmas (and the
    bunsetsu spans, without heads, if ``predicted_bunsetsu``) but no tree."""
    doc = Doc(
        reference.vocab,
        words=[t.text for t in reference],
        spaces=[bool(t.whitespace_) for t in reference],
        tags=[t.tag_ for t in reference],
        pos=[t.pos_ for t in reference],
        morphs=[str(t.morph) for t in reference],
        lemmas=[t.lemma_ for t in reference],
    )
    if "sent_id" in reference.user_data:
        doc.user_data["sent_id"] = reference.user_data["sent_id"]
    if predicted_bunsetsu and BUNSETSU_KEY in reference.spans:
        doc.spans[BUNSETSU_KEY] = [doc[s.start:s.end] for s in reference.spans[BUNSETSU_KEY]]
    return doc


class BunsetsuCorpus:
    """Examples for bunsetsu dependency parsing; ``self.stats`` counts the
    sentences read, docs made, repaired, skipped and empty over all passes."""

    def __init__(
        self,
        path: PathLike,
        format: str = "knp",
        limit: int = 0,
        bad_heads: str = "skip",
        predicted_bunsetsu: bool = True,
    ):
        _check_mode(bad_heads)
        if format not in FORMATS:
            raise ValueError(f"format must be one of {list(FORMATS)}, not {format!r}")
        self.path = check_file(path, format)
        self.format = format
        self.limit = limit
        self.bad_heads = bad_heads
        self.predicted_bunsetsu = predicted_bunsetsu
        self.stats: Counter = Counter()

    def __call__(self, nlp) -> Iterator[Example]:
        for reference in bunsetsu_docs(self.path, nlp.vocab, self.format, self.limit, self.bad_heads, self.stats):
            yield Example(make_predicted(reference, self.predicted_bunsetsu), reference)


@registry.readers("spacy_adf.BunsetsuCorpus.v1")
def create_bunsetsu_reader(
    path: Optional[PathLike],
    format: str = "knp",
    limit: int = 0,
    bad_heads: str = "skip",
    predicted_bunsetsu: bool = True,
) -> BunsetsuCorpus:
    """Bunsetsu dependency Examples from a KNP, CaboCha or CoNLL-U
    (BunsetuBILabel) file: the reference Doc has tokens, POS, morphs, bunsetsu
    spans with gold heads and the token tree; the predicted Doc the same tokens
    and attributes and (``predicted_bunsetsu=True``) the bunsetsu spans, no
    heads. ``bad_heads``: "skip" (default), "repair" or "raise"."""
    if path is None:
        raise ValueError("no corpus path: pass --paths.train / --paths.dev")
    return BunsetsuCorpus(path, format=format, limit=limit, bad_heads=bad_heads, predicted_bunsetsu=predicted_bunsetsu)
