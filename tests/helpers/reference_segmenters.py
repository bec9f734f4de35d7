"""The Python reference of `pke_segmenter`'s segmentation: the test oracle of
the C path (`BoundarySegmenter.segment`: `features/boundary.pyx` and
`models/boundary_decode.pyx`), which must give the same word starts. The
features are `boundary_template`'s names, looked up in the vocabulary, and
the classifier decides gap by gap."""
import numpy

from spacy_adf.features.boundary import boundary_template
from spacy_adf.features.char_units import apply_unit_rules
from spacy_adf.models.boundary_segmenter import BoundarySegmenter


def boundary_segment_reference(model: BoundarySegmenter, codes, bounds) -> numpy.ndarray:
    """`model.segment(codes, bounds)` in plain Python (single-character units only)."""
    ids = {name: i for i, name in enumerate(model.vocab.names())}
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
