"""Japanese bunsetsu (文節) dependency rules on spaCy Docs: the span group
that holds the bunsetsu, valid heads and their repair, the head-word rule,
and the conversion between bunsetsu heads and the token tree
(`set_bunsetsu_tree`, its inverse `bunsetsu_heads`).

Bunsetsu on a Doc
-----------------

``doc.spans["bunsetsu"]`` (`BUNSETSU_KEY`): one span per bunsetsu, in order,
covering the Doc (`bunsetsu_group` checks this). Its ``attrs`` hold the
dependencies (they survive ``Doc.to_bytes`` and ``DocBin``):

  ``heads``           list of int: index of the head bunsetsu, -1 for the root
  ``dep_types``       list of str: the label of each bunsetsu's arc, if known
                      (the readers store the corpus labels, see
                      `spacy_adf.corpora.bunsetsu`)
  ``original_heads``  only when the heads were repaired: the heads as given

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
its right, the last is the root (-1), and arcs must not cross. Repair goes from
right to left: the last bunsetsu becomes the root; bunsetsu i may take any
bunsetsu on the path from i + 1 to the root (exactly the heads that cross no
arc already fixed); it keeps its head if that is on the path, else takes the
first bunsetsu on the path at or right of its head (a -1 that is not the last,
or a head past the end, means the last bunsetsu; a head at or left of i means
i + 1). So crossing arcs are moved up to the bunsetsu that covers their old
head, self-loops and backward heads attach to the next bunsetsu, and every
valid arc of the sentence that does not cross an arc to its right is kept.
"""
from typing import List, Optional, Sequence

import numpy
from spacy.attrs import DEP, HEAD
from spacy.tokens import Doc, Span, SpanGroup

from .pos import FUNCTION_POS, FUNCTION_UPOS, PUNCT_POS, PUNCT_UPOS

__all__ = [
    "BUNSETSU_KEY", "INTRA_LABEL", "ROOT_LABEL", "DEFAULT_LABEL", "check_bunsetsu_heads",
    "repair_bunsetsu_heads", "bunsetsu_group", "bunsetsu_head_token", "set_bunsetsu_tree",
    "bunsetsu_heads",
]

BUNSETSU_KEY = "bunsetsu"
INTRA_LABEL = "intra"
ROOT_LABEL = "ROOT"
DEFAULT_LABEL = "dep"


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
    """The nearest head-final projective tree (the repair of the module docstring)."""
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


def bunsetsu_group(doc: Doc, spans_key: str = BUNSETSU_KEY) -> SpanGroup:
    """``doc.spans[spans_key]``, checked to be bunsetsu: non-empty spans in
    order that cover the Doc (ValueError naming the problem otherwise)."""
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
    """The Doc index of the head token of a bunsetsu (the head-word rule of
    the module docstring)."""
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
    spans = bunsetsu_group(doc, spans_key)
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
    spans = bunsetsu_group(doc, spans_key)
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
