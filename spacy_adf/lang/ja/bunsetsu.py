"""Japanese bunsetsu (文節) dependency rules on spaCy Docs: heads, head words, sentence ends and the
token tree (docs/components.md, "Bunsetsu on a Doc")."""
import itertools
from typing import List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import DEP, HEAD, IS_SPACE, MORPH, ORTH, POS
from spacy.tokens import Doc, Span, SpanGroup

from .pos import FUNCTION_POS, FUNCTION_UPOS, PUNCT_POS, PUNCT_UPOS

BUNSETSU_KEY = "bunsetsu"
INTRA_LABEL = "intra"
ROOT_LABEL = "ROOT"
DEFAULT_LABEL = "dep"

# characters of a sentence-ending token (full- and half-width)
SENTENCE_ENDERS = frozenset("。｡．.！!？?‼⁇⁈⁉")
# enders that also close an unbracketed quotation (買いませんか？というメール)
EXCLAIMERS = frozenset("！!？?‼⁇⁈⁉")
# quotative particles: after an exclaimer, the sentence goes on
QUOTATIVE = frozenset(["と", "って", "っと", "という", "といった", "とか", "との", "とは", "とも"])
# enders that may also be a decimal point or an abbreviation's period
# ("３．５", "U.S."): they cut a bunsetsu only when whitespace follows
WEAK_ENDERS = frozenset("．.")
# characters that make a whitespace token a line break (a line break ends a
# sentence: one-sentence-per-line input needs no punctuation)
LINE_BREAKS = frozenset("\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029")
# bracket pairs (a sentence ender inside a matched pair ends no sentence)
BRACKET_PAIRS = {
    "「": "」", "『": "』", "（": "）", "(": ")", "［": "］", "[": "]", "｛": "｝", "{": "}",
    "〔": "〕", "〈": "〉", "《": "》", "【": "】", "〘": "〙", "〚": "〛", "“": "”", "‘": "’",
    "«": "»", "｢": "｣", "〝": "〟",
}
# closing brackets and quotes that may follow a sentence ender (symmetric
# quotes only close here, they are never paired)
CLOSING_BRACKETS = frozenset(BRACKET_PAIRS.values()) | frozenset("\"'＂＇〞")

Sentences = List[Tuple[int, int]]


def check_bunsetsu_heads(heads: Sequence[int]) -> Optional[str]:
    """What is wrong with ``heads`` (None for a head-final projective tree: docs/components.md)."""
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
    """The nearest head-final projective tree (the repair of docs/components.md)."""
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
    """``doc.spans[spans_key]``, checked to cover the Doc with non-empty spans in order."""
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


def token_class(token) -> int:
    """0 content word, 1 function word, 2 punctuation / symbol / space (the head-word rule)."""
    pos = token.morph.get("SrcPos")
    if pos:
        return 2 if pos[0] in PUNCT_POS else 1 if pos[0] in FUNCTION_POS else 0
    upos = token.pos_
    return 2 if upos in PUNCT_UPOS else 1 if upos in FUNCTION_UPOS else 0


# (MORPH hash, POS id) -> token_class: a token's class depends on those two only
_CLASS_OF: dict = {}


def bunsetsu_head_tokens(doc: Doc, spans: Sequence[Span]) -> List[int]:
    """The Doc index of each bunsetsu's head token (the head-word rule: the rightmost token of the
    lowest `token_class`), a class read by (MORPH, POS): no Token object for a pair seen before."""
    keys = [tuple(key) for key in doc.to_array([MORPH, POS]).tolist()]
    for i, key in enumerate(keys):
        if key not in _CLASS_OF:
            _CLASS_OF[key] = token_class(doc[i])
    classes = [_CLASS_OF[key] for key in keys]
    heads = []
    for span in spans:
        best, best_class = span.end - 1, 3
        for i in range(span.end - 1, span.start - 1, -1):
            if classes[i] < best_class:
                best, best_class = i, classes[i]
                if best_class == 0:
                    break
        heads.append(best)
    return heads


def _where(doc: Doc, name: Optional[str]) -> str:
    name = name or doc.user_data.get("sent_id")
    return f"sentence {name!r}" if name else f"sentence {doc.text[:40]!r}"


_ENDER, _TRAILER, _BRACKET, _SPACE = 1, 2, 4, 8
# ORTH id -> kind bits (the same id for a string in every vocab), and the ids
# of enders and of whitespace among them, for set tests at C speed
_KIND_OF_ORTH: dict = {}
_ENDER_ORTHS: set = set()
_SPACE_ORTHS: set = set()
_MAX_KINDS = 1_000_000


def _kind_of(text: str) -> int:
    return ((_ENDER if is_sentence_ender(text) else 0) | (_TRAILER if _is_trailer(text) else 0)
            | (_BRACKET if text in BRACKET_PAIRS or text in CLOSING_BRACKETS else 0)
            | (_SPACE if text.isspace() else 0))


def _orths_known(doc: Doc) -> List[int]:
    """The Doc's ORTH ids, each one classified (`_KIND_OF_ORTH`)."""
    orths = doc.to_array(ORTH).tolist()
    cache = _KIND_OF_ORTH
    missing = set(orths).difference(cache)
    if missing:
        if len(cache) + len(missing) > _MAX_KINDS:  # a bounded cache: start again
            cache.clear()
            _ENDER_ORTHS.clear()
            _SPACE_ORTHS.clear()
            missing = set(orths)
        strings = doc.vocab.strings
        for orth in missing:
            kind = cache[orth] = _kind_of(strings[orth])
            if kind & _ENDER:
                _ENDER_ORTHS.add(orth)
            if kind & _SPACE:
                _SPACE_ORTHS.add(orth)
    return orths


def _token_kinds(doc: Doc, orths: Optional[List[int]] = None) -> List[int]:
    """Kind bits per token (``orths``: the Doc's `_orths_known`, if already read)."""
    return list(map(_KIND_OF_ORTH.__getitem__, _orths_known(doc) if orths is None else orths))


def token_owners(bounds: Sequence[Tuple[int, int]], n: int) -> numpy.ndarray:
    """The bunsetsu index of every token (the bunsetsu cover the Doc)."""
    owner = numpy.zeros(n, dtype=numpy.int64)
    for b, (start, end) in enumerate(bounds):
        owner[start:end] = b
    return owner


def is_line_break(text: str) -> bool:
    """A whitespace token that holds a line break ("\\n", " \\n\\n")."""
    return text.isspace() and any(c in LINE_BREAKS for c in text)


def is_sentence_ender(text: str) -> bool:
    """Enders, maybe followed by closing brackets ("。", "！？", "。」"), or a line break."""
    if is_line_break(text):
        return True
    k = len(text)
    while k and text[k - 1] in CLOSING_BRACKETS:
        k -= 1
    return k > 0 and all(c in SENTENCE_ENDERS for c in text[:k])


def _is_trailer(text: str) -> bool:
    """Closing brackets, more enders or whitespace: may follow an ender before the sentence ends."""
    return not text or text.isspace() or all(c in CLOSING_BRACKETS or c in SENTENCE_ENDERS for c in text)


def _bracket_depths(texts: Sequence[str]) -> List[int]:
    """For each token t, the number of matched bracket pairs (open o, close c)
    with o <= t < c (the matching rule: docs/components.md, "Bunsetsu on a Doc")."""
    n = len(texts)
    diff = [0] * (n + 1)
    stack: List[Tuple[str, int]] = []
    waiting = {}  # close char -> opens of that kind on the stack
    for t, text in enumerate(texts):
        close = BRACKET_PAIRS.get(text)
        if close is not None:
            stack.append((close, t))
            waiting[close] = waiting.get(close, 0) + 1
        elif waiting.get(text):
            while True:
                c, o = stack.pop()
                waiting[c] -= 1
                if c == text:
                    diff[o] += 1
                    diff[t] -= 1
                    break
    return list(itertools.accumulate(diff[:n]))


def bunsetsu_sentences(doc: Doc, spans: Sequence[Span]) -> Sentences:
    """The sentences of a Doc as bunsetsu index ranges ``[(start, end), ...]``
    covering ``spans``, from ``doc.sents`` or by punctuation (docs/components.md)."""
    n_spans = len(spans)
    if n_spans == 0:
        return []
    n = len(doc)
    if doc.has_annotation("SENT_START"):
        last_tokens = [sent.end - 1 for sent in doc.sents if sent.end > sent.start]
    else:
        # Token kinds from ORTH ids (each distinct string classified once):
        # most Docs have one ender, at their end, and need no more than this.
        orths = _orths_known(doc)
        if _ENDER_ORTHS.isdisjoint(orths[:-1]):
            return [(0, n_spans)]
        kinds = _token_kinds(doc, orths)
        last_tokens, depths, span_ends = [], None, None
        for t in range(n - 1):
            if not kinds[t] & _ENDER:
                continue
            p = t
            while p + 1 < n and kinds[p + 1] & _TRAILER:
                p += 1
            if p == n - 1:
                break  # the last bunsetsu ends a sentence anyway
            if span_ends is None:
                span_ends = {span.end - 1 for span in spans}
            if p not in span_ends:
                continue
            if depths is None:
                depths = _bracket_depths([doc[i].text if kinds[i] & _BRACKET else "" for i in range(n)])
            if depths[p] == 0 or any(is_line_break(doc[i].text) for i in range(t, p + 1) if doc[i].is_space):
                last_tokens.append(p)
        if not last_tokens:
            return [(0, n_spans)]
    owner = token_owners([(span.start, span.end) for span in spans], n)
    ends = sorted({int(owner[p]) + 1 for p in last_tokens} | {n_spans})
    return list(zip([0] + ends[:-1], ends))


def sentence_end_tokens(doc: Doc) -> List[int]:
    """Token indices after which a sentence must end, the last token not included (docs/components.md)."""
    n = len(doc)
    if n < 2:
        return []
    kinds = _token_kinds(doc)
    texts = None
    depths = None
    ends: List[int] = []
    for t in range(n - 1):
        if not kinds[t] & _ENDER or (ends and t <= ends[-1]):
            continue
        if texts is None:
            texts = [tok.text for tok in doc]
        line_break = is_line_break(texts[t])
        if not line_break and all(c in WEAK_ENDERS or c in CLOSING_BRACKETS for c in texts[t]) \
                and not texts[t + 1].isspace():
            continue  # "３．５", "U.S.A": not an end
        p = t
        while p + 1 < n and kinds[p + 1] & _TRAILER:
            p += 1
            line_break = line_break or is_line_break(texts[p])
        if p >= n - 1:
            break
        if not line_break and any(c in CLOSING_BRACKETS for i in range(t, p + 1) for c in texts[i]):
            continue  # 「行こう！」と: a quotation's end is often no sentence end; the chunker decides
        if not line_break and texts[p + 1] in QUOTATIVE and any(c in EXCLAIMERS for c in texts[t]):
            continue  # がっかりだよ！と言う: an unbracketed quotation ends there, not the sentence
        if all(texts[i].isspace() for i in range(ends[-1] + 1 if ends else 0, t + 1)):
            continue  # only whitespace since the last end: no empty sentence
        if not line_break:
            if depths is None:
                depths = _bracket_depths([texts[i] if kinds[i] & _BRACKET else "" for i in range(n)])
            if depths[p] != 0:
                continue
        ends.append(p)
    return ends


def respect_sentence_ends(doc: Doc, spans_key: str = BUNSETSU_KEY) -> bool:
    """Re-cut ``doc.spans[spans_key]`` so that no bunsetsu spans a sentence end
    nor starts with whitespace (docs/components.md); whether the spans changed."""
    n = len(doc)
    if n < 2:
        return False
    # the common case, one sentence with its ender last and no whitespace:
    # nothing to read from the spans (the parser's speed depends on it)
    orths = _orths_known(doc)
    if _ENDER_ORTHS.isdisjoint(orths[:-1]) and _SPACE_ORTHS.isdisjoint(orths[1:]):
        return False
    kinds = _token_kinds(doc, orths)
    spans = bunsetsu_group(doc, spans_key)
    is_start = numpy.zeros(n + 1, bool)
    for span in spans:
        is_start[span.start] = True
    before = is_start.copy()
    for p in sentence_end_tokens(doc):
        is_start[p + 1] = True
    # from the text, not IS_SPACE: a Vocab without lexeme attribute getters leaves that 0
    space = numpy.array([bool(k & _SPACE) for k in kinds], dtype=bool)
    # A bunsetsu that starts with whitespace starts at its first word instead:
    # the whitespace joins the bunsetsu on its left (a sentence end takes the
    # whitespace after it too, so this never moves one).
    for s in numpy.flatnonzero(is_start[1:n] & space[1:]) + 1:
        is_start[s] = False
        w = s + 1
        while w < n and space[w]:
            w += 1
        is_start[w] = True  # w == n: is_start[n] is the end marker, unused
    # whitespace at the start has no bunsetsu before it: it joins the first
    # bunsetsu with a word instead of making one of its own
    first_word = int(numpy.argmin(space)) if not space.all() else n
    is_start[1:first_word + 1] = False
    is_start[0] = True
    is_start[n] = False
    if numpy.array_equal(is_start, before):
        return False
    starts = numpy.flatnonzero(is_start[:n]).tolist() + [n]
    doc.spans[spans_key] = [doc[a:b] for a, b in zip(starts, starts[1:])]
    return True


def head_sentences(heads: Sequence[int]) -> Sentences:
    """The sentences of bunsetsu heads as index ranges: each root (-1) ends one."""
    n = len(heads)
    ends = [i + 1 for i, h in enumerate(heads) if h == -1]
    if n and (not ends or ends[-1] != n):
        ends.append(n)
    return list(zip([0] + ends[:-1], ends))


def sentence_heads(heads: Sequence[int], start: int, end: int) -> List[int]:
    """The heads of bunsetsu ``start:end`` relative to ``start`` (-1 stays -1)."""
    return [h - start if h >= 0 else -1 for h in heads[start:end]]


def check_sentence_heads(heads: Sequence[int], sentences: Sequence[Tuple[int, int]]) -> Optional[str]:
    """What is wrong with the heads of a multi-sentence Doc (None if each sentence is a valid tree)."""
    n = len(heads)
    if n == 0:
        return "the sentence has no bunsetsu"
    problem = _ranges_problem(sentences, n)
    if problem is not None:
        return problem
    for k, (s, e) in enumerate(sentences):
        for i in range(s, e):
            if heads[i] >= 0 and not s <= heads[i] < e:
                return (f"bunsetsu {i} has head {heads[i]}, outside its sentence (bunsetsu {s}-{e - 1}): "
                        "heads must not cross a sentence end")
        problem = check_bunsetsu_heads(sentence_heads(heads, s, e))
        if problem is not None:
            return f"sentence {k} (bunsetsu {s}-{e - 1}, numbered from its start): {problem}"
    return None


def _ranges_problem(sentences: Sequence[Tuple[int, int]], n: int) -> Optional[str]:
    """What is wrong with sentence ranges over n bunsetsu (None if they cover them in order)."""
    end = 0
    for k, (s, e) in enumerate(sentences):
        if s != end or e <= s:
            return f"sentence {k} is bunsetsu [{s}, {e}), expected a non-empty range from {end}"
        end = e
    if end != n:
        return f"the sentences end at bunsetsu {end}, there are {n}"
    return None


def set_bunsetsu_tree(
    doc: Doc,
    heads: Optional[Sequence[int]] = None,
    labels: Optional[Sequence[str]] = None,
    *,
    repair: bool = False,
    spans_key: str = BUNSETSU_KEY,
    name: Optional[str] = None,
    sentences: Optional[Sequence[Tuple[int, int]]] = None,
) -> List[int]:
    """Set ``token.head`` / ``token.dep_`` from bunsetsu heads (default: the span
    group's ``attrs["heads"]``); the heads used. docs/components.md, "Bunsetsu on a Doc"."""
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
    if sentences is None:
        problem = check_bunsetsu_heads(heads)
    else:
        sentences = [(int(a), int(b)) for a, b in sentences]
        problem = check_sentence_heads(heads, sentences)
    original = heads
    if problem is not None:
        if not repair:
            raise ValueError(
                f"{_where(doc, name)}: {problem}; heads {heads}. Use repair=True (readers: "
                "bad_heads='repair' or 'skip')"
            )
        if sentences is None:
            heads = repair_bunsetsu_heads(heads)
        else:
            bad_ranges = _ranges_problem(sentences, n)
            if bad_ranges is not None:
                raise ValueError(f"{_where(doc, name)}: {bad_ranges}")
            heads = [h + s if h >= 0 else -1 for s, e in sentences
                     for h in repair_bunsetsu_heads(sentence_heads(heads, s, e))]
    head_tokens = bunsetsu_head_tokens(doc, spans)
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
    doc.from_array([HEAD, DEP], numpy.stack([rel_heads.astype("uint64"), deps], axis=1))
    spans.attrs["heads"] = list(heads)
    if labels is not None:
        spans.attrs["dep_types"] = list(labels)
    if heads != original:
        spans.attrs["original_heads"] = list(original)
    else:
        spans.attrs.pop("original_heads", None)
    return heads


def bunsetsu_heads(doc: Doc, spans_key: str = BUNSETSU_KEY) -> List[int]:
    """The bunsetsu heads of the token tree (the inverse of `set_bunsetsu_tree`)."""
    if len(doc) == 0 or (spans_key in doc.spans and len(doc.spans[spans_key]) == 0
                         and doc.to_array(IS_SPACE).all()):
        return []
    spans = bunsetsu_group(doc, spans_key)
    if not doc.has_annotation("DEP"):
        raise ValueError("the Doc has no dependency tree (token.head / token.dep_)")
    owner = token_owners([(span.start, span.end) for span in spans], len(doc))
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
