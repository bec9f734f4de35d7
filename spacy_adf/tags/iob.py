"""Chunk-tag sequences <-> labelled spans, with conlleval.pl semantics
extended to IOBES/BILUO (docs/corpora.md, "Chunk tags"). No spaCy
dependency: plain lists of strings, shared by the scorers and the readers."""
from typing import Iterable, List, Optional, Sequence, Tuple

Span = Tuple[int, int, str]

# L/U (BILUO) are spelled E/S (IOBES) internally so the rules below stay short.
_PREFIXES = {"B": "B", "I": "I", "E": "E", "L": "E", "S": "S", "U": "S"}
SCHEMES = ("BIO", "BILUO")


def split_tag(tag: str, position: Optional[int] = None) -> Tuple[str, str]:
    """Return ``(prefix, type)`` with prefix normalised to B/I/E/S/O."""
    if tag == "O":
        return "O", ""
    prefix, hyphen, label = tag.partition("-")
    if not hyphen or prefix not in _PREFIXES or not label:
        where = "" if position is None else f" at position {position}"
        raise ValueError(
            f"Malformed chunk tag {tag!r}{where}: expected 'O' or "
            "'<B|I|E|L|S|U>-<TYPE>' (e.g. 'B-NP', 'I-PER')"
        )
    return _PREFIXES[prefix], label


def _chunk_ends(prev: str, cur: str, prev_type: str, cur_type: str) -> bool:
    """Does the chunk containing the previous token end before this token?"""
    if prev == "O":
        return False
    # E and S close their chunk (the extension of conlleval's rules)
    return prev in ("E", "S") or cur in ("B", "S", "O") or prev_type != cur_type


def _chunk_starts(prev: str, cur: str, prev_type: str, cur_type: str) -> bool:
    """Does a new chunk start at this token?"""
    if cur == "O":
        return False
    # I or E continues an open chunk of the same type, otherwise it starts one
    # (conlleval's "I after O" rule, IOB1 style)
    return cur in ("B", "S") or prev in ("O", "E", "S") or prev_type != cur_type


def iob_to_spans(tags: Sequence[str]) -> List[Span]:
    """``(start, end, label)`` chunks (end exclusive) of IOB1, IOB2, IOE, IOBES or BILUO tags, also
    mixed (docs/corpora.md, "Chunk tags"); ValueError for malformed tags such as ``"B"``."""
    spans: List[Span] = []
    prev, prev_type = "O", ""
    start = -1
    for i, tag in enumerate(tags):
        cur, cur_type = split_tag(tag, i)
        if start >= 0 and _chunk_ends(prev, cur, prev_type, cur_type):
            spans.append((start, i, prev_type))
            start = -1
        if _chunk_starts(prev, cur, prev_type, cur_type):
            start = i
        prev, prev_type = cur, cur_type
    if start >= 0:
        spans.append((start, len(tags), prev_type))
    return spans


def _check_spans(n: int, spans: Iterable[Span]) -> List[Span]:
    ordered = sorted((int(s), int(e), label) for s, e, label in spans)
    last_end, last = 0, None
    for start, end, label in ordered:
        if not (0 <= start < end <= n):
            raise ValueError(f"Span {(start, end, label)} is empty or outside 0..{n}")
        if not isinstance(label, str) or not label:
            raise ValueError(f"Span {(start, end, label)} needs a non-empty string label")
        if last is not None and start < last_end:
            raise ValueError(f"Overlapping spans {last} and {(start, end, label)}")
        last_end, last = end, (start, end, label)
    return ordered


def spans_to_tags(n: int, spans: Iterable[Span], scheme: str = "BIO") -> List[str]:
    """Non-overlapping ``(start, end, label)`` spans as ``n`` tags of ``scheme`` "BIO" or "BILUO" (any case)."""
    scheme_u = scheme.upper()
    if scheme_u not in SCHEMES:
        raise ValueError(f"Unknown tagging scheme {scheme!r}; use one of {SCHEMES}")
    tags = ["O"] * n
    for start, end, label in _check_spans(n, spans):
        if scheme_u == "BILUO" and end - start == 1:
            tags[start] = f"U-{label}"
            continue
        tags[start] = f"B-{label}"
        tags[start + 1:end] = [f"I-{label}"] * (end - start - 1)
        if scheme_u == "BILUO":
            tags[end - 1] = f"L-{label}"
    return tags
