"""The unit sequences a segmenter labels: one unit per token, cut into runs at
whitespace; the unit rules: docs/components.md, "Word segmentation"."""
from typing import Callable, List, Tuple

import numpy
from spacy.attrs import IS_SPACE, ORTH, SPACY
from spacy.tokens import Doc

from .chars import unit_code, unit_glue

UNIT_RULES = ("codepoints", "graphemes")
DEFAULT_UNIT_RULES = "graphemes"


def check_unit_rules(rules: str) -> str:
    if rules not in UNIT_RULES:
        raise ValueError(f"unknown unit_rules {rules!r}: expected one of {list(UNIT_RULES)} "
                         "(a model saved by a newer spacy-adf?)")
    return rules


def apply_unit_rules(starts: numpy.ndarray, codes: numpy.ndarray, bounds: numpy.ndarray,
                     rules: str) -> numpy.ndarray:
    """Word-start flags (bool or uint8, changed in place and returned) with
    the starts the rules forbid taken away."""
    if check_unit_rules(rules) == "graphemes" and len(codes):
        starts[unit_glue(codes, bounds).view(bool)] = 0
    return starts


def doc_units(doc: Doc) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """(codes uint32, token index int64 per unit, run bounds int64 over units)."""
    n = len(doc)
    if n == 0:
        return (numpy.zeros(0, numpy.uint32), numpy.zeros(0, numpy.int64),
                numpy.zeros(1, numpy.int64))
    arr = doc.to_array([ORTH, IS_SPACE, SPACY])
    is_space, spacy_ws = arr[:, 1] != 0, arr[:, 2] != 0
    codes = numpy.array(orth_codes(doc.vocab.strings, arr[:, 0].tolist()), dtype=numpy.uint32)
    keep = numpy.flatnonzero(~is_space)
    # a run starts after a whitespace token or a trailing space
    breaks = numpy.ones(n, bool)
    breaks[1:] = is_space[:-1] | spacy_ws[:-1]
    return codes[keep], keep.astype(numpy.int64), _bounds(breaks[keep], len(keep))


def cached_by_orth(cache: dict, orths: List[int], compute: Callable[[int], object]) -> list:
    """compute(orth) of each token orth, through `cache` (emptied past a million entries)."""
    if len(cache) > 1_000_000:
        cache.clear()
    out = [cache.get(orth) for orth in orths]
    if None in out:
        for k, orth in enumerate(orths):
            if out[k] is None:
                value = cache.get(orth)
                if value is None:
                    value = cache[orth] = compute(orth)
                out[k] = value
    return out


_CODE_CACHE = {}  # orth -> unit code


def orth_codes(strings, orths: List[int]) -> List[int]:
    """The unit code of each token orth (strings: the vocab's StringStore)."""
    return cached_by_orth(_CODE_CACHE, orths, lambda orth: unit_code(strings[orth]))


def _bounds(breaks: numpy.ndarray, n: int) -> numpy.ndarray:
    starts = numpy.flatnonzero(breaks)
    return numpy.concatenate([starts, [n]]).astype(numpy.int64) if n else numpy.zeros(1, numpy.int64)
