"""Word-boundary tag schemes of the character CRF.

BMES: B(egin), M(iddle), E(nd) of a multi-character word, S(ingle). BI: B for
the first unit of a word, I for the rest. BB2B3MES (Zhao et al. 2006's 6-tag
set): BMES with the second and third units of a word tagged B2 and B3 (a word
of four units is B B2 B3 E, of six B B2 B3 M M E); its tags 0-3 are BMES's,
B2 and B3 neither open nor close a word. Decoding never fails: any tag
sequence maps to a segmentation (a word starts at a B or S, after an E or S,
and at every run start).
"""
import numpy

SCHEMES = {"BMES": ("B", "M", "E", "S"), "BI": ("B", "I"),
           "BB2B3MES": ("B", "M", "E", "S", "B2", "B3")}


def check_scheme(scheme: str) -> None:
    if scheme not in SCHEMES:
        raise ValueError(f"unknown segmentation scheme {scheme!r}; choose one of {sorted(SCHEMES)}")


def encode(starts: numpy.ndarray, ends: numpy.ndarray, scheme: str) -> numpy.ndarray:
    """Tag ids from per-unit flags: starts[i] = a word starts at unit i,
    ends[i] = a word ends after unit i."""
    starts = numpy.asarray(starts, bool)
    ends = numpy.asarray(ends, bool)
    if scheme == "BI":
        return numpy.where(starts, 0, 1).astype(numpy.int32)
    check_scheme(scheme)
    # B=0 M=1 E=2 S=3
    tags = numpy.ones(len(starts), dtype=numpy.int32)
    tags[starts & ~ends] = 0
    if scheme == "BB2B3MES" and len(tags):
        # each unit's position in its word: units since the last start
        index = numpy.arange(len(tags))
        position = index - numpy.maximum.accumulate(numpy.where(starts, index, 0))
        tags[(position == 1) & ~ends] = 4
        tags[(position == 2) & ~ends] = 5
    tags[~starts & ends] = 2
    tags[starts & ends] = 3
    return tags


def decode_starts(tags: numpy.ndarray, scheme: str) -> numpy.ndarray:
    """Bool array: a word starts at unit i (before any run-start forcing)."""
    tags = numpy.asarray(tags)
    n = len(tags)
    starts = numpy.zeros(n, bool)
    if n == 0:
        return starts
    if scheme == "BI":
        starts[:] = tags == 0
    else:
        check_scheme(scheme)
        starts[:] = (tags == 0) | (tags == 3)
        closed = (tags == 2) | (tags == 3)
        starts[1:] |= closed[:-1]
    starts[0] = True
    return starts
