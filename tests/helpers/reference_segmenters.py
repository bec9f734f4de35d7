"""The Python reference of `pke_segmenter`'s segmentation: the test oracle of
the C path (`BoundarySegmenter.segment`: `features/boundary.pyx` and
`models/boundary_segmenter_decode.pyx`), which must give the same word starts. The
features are `boundary_template`'s names, looked up in the vocabulary, and
the classifier decides gap by gap."""
from typing import List

import numpy

from spacy_adf.features.boundary import EDGE, MAX_WINDOW, UNICODE_END
from spacy_adf.features.char_units import apply_unit_rules
from spacy_adf.features.chars import CLASS_NAMES, char_classes
from spacy_adf.features.dictionary import GAP_LENGTH_NAMES, MIN_WORD
from spacy_adf.models.boundary_segmenter import BoundarySegmenter

# a feature key is ((value << SLOT_BITS) | slot) + 2 (boundary.pxd); the dictionary slots follow the windows'
SLOT_BITS = 6
LEX_SLOT = 4 * MAX_WINDOW


def _relative(slot: int, window: int):
    """Relative position (-w..-1, +1..+w) and kind ("c" or "t") of a slot."""
    kind = "c" if slot < 2 * window else "t"
    s = slot % (2 * window)
    return (s - window if s < window else s - window + 1), kind


def feature_name(key: int, window: int) -> str:
    """The readable name of a feature key, as `boundary_template` writes it
    (a hashed multi-character token shows as ``#code``)."""
    raw = key - 2
    slot = raw & ((1 << SLOT_BITS) - 1)
    value = raw >> SLOT_BITS
    if slot >= LEX_SLOT:
        return f"{GAP_LENGTH_NAMES[slot - LEX_SLOT]}={value}"
    rel, kind = _relative(slot, window)
    if kind == "c":
        text = chr(value) if value < UNICODE_END else f"#{value}"
    else:
        text = CLASS_NAMES[value] if value < EDGE else "EDGE"
    return f"{kind}{rel:+d}={text}"


def boundary_template(units, k: int, window: int = 3, dictionary=None, max_word: int = 6):
    """The features of the gap between units[k] and units[k + 1] of one run
    (a sequence of one-character strings), in plain Python: the statement of
    the template that `boundary.pyx` implements. `dictionary` (a set of words,
    or None: no dictionary features): every substring of the run of
    MIN_WORD .. max_word units is looked up in it."""
    names = []
    rels = list(range(-window, 0)) + list(range(1, window + 1))
    for rel in rels:
        j = k + 1 + rel if rel < 0 else k + rel
        if 0 <= j < len(units):
            names.append(f"c{rel:+d}={units[j]}")
    for rel in rels:
        j = k + 1 + rel if rel < 0 else k + rel
        if 0 <= j < len(units):
            t = int(char_classes(numpy.array([ord(units[j])], dtype=numpy.uint32))[0])
            names.append(f"t{rel:+d}={CLASS_NAMES[t]}")
        else:
            names.append(f"t{rel:+d}=EDGE")
    if dictionary is not None:
        longest = [0] * len(GAP_LENGTH_NAMES)  # ends at k, begins at k + 1, spans k..k + 1
        for s in range(len(units)):
            for e in range(s + MIN_WORD, min(s + max_word, len(units)) + 1):
                if "".join(units[s:e]) in dictionary:
                    length = e - s
                    for which, holds in enumerate((e == k + 1, s == k + 1, s <= k < e - 1)):
                        if holds:
                            longest[which] = max(longest[which], length)
        names += [f"{name}={n}" for name, n in zip(GAP_LENGTH_NAMES, longest) if n]
    return names


def vocab_names(vocab) -> List[str]:
    """The feature names of a BoundaryVocab in id order."""
    return [feature_name(k, vocab.window) for k in vocab.keys.tolist()]


def boundary_segment_reference(model: BoundarySegmenter, codes, bounds) -> numpy.ndarray:
    """`model.segment(codes, bounds)` in plain Python (single-character units only)."""
    ids = {name: i for i, name in enumerate(vocab_names(model.vocab))}
    words = set(model.dictionary.words()) if model.dictionary is not None else None
    max_word = model.dictionary.max_word if model.dictionary is not None else 0
    codes = numpy.asarray(codes, dtype=numpy.uint32)
    starts = numpy.zeros(codes.shape[0], dtype=numpy.uint8)
    bounds = numpy.asarray(bounds, dtype=numpy.int64).tolist()
    for a, b in zip(bounds, bounds[1:]):
        if b <= a:
            continue
        units = [chr(c) for c in codes[a:b].tolist()]
        starts[a] = 1
        for k in range(b - a - 1):
            x = [ids[f] for f in boundary_template(units, k, model.window, words, max_word) if f in ids]
            starts[a + k + 1] = model.classifier.decision(x) > 0
    return apply_unit_rules(starts, codes, numpy.asarray(bounds, dtype=numpy.int64), model.unit_rules)
