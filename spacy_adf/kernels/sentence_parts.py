"""The batch checks and the threading shared by the C parsers of bunsetsu
sentences (`cascade.pyx`, `tournament.pyx`): both read the flat arrays of
`features.bunsetsu_fast.SegmentBatch.arrays` and parse sentence ranges into
one heads array, each range with its own scratch memory."""
import threading
from typing import Callable, List, Tuple

import numpy

# with several threads, sentences go out in parts (PARTS_PER_THREAD per
# thread, each of at least MIN_SENTENCES_PER_PART sentences)
PARTS_PER_THREAD = 4
MIN_SENTENCES_PER_PART = 16


def read_batch(feats, seg_off, sent_seg, distance, coordination, words, n_threads: int) -> tuple:
    """A batch as the parsers read it: (feats int32, seg_off int64, sent_seg
    int64, the question ids [three distances, three coordination features],
    heads (int32, all -1), head words); ValueError for inconsistent arrays."""
    f = numpy.ascontiguousarray(feats, dtype=numpy.int32)
    off = numpy.ascontiguousarray(seg_off, dtype=numpy.int64)
    ss = numpy.ascontiguousarray(sent_seg, dtype=numpy.int64)
    n_sent = ss.shape[0] - 1
    n_seg = int(ss[n_sent]) if n_sent >= 0 else 0
    if n_threads < 1:
        raise ValueError(f"n_threads must be >= 1, not {n_threads}")
    if n_sent < 0 or off.shape[0] != 5 * n_seg + 1:
        raise ValueError("seg_off needs 5 offsets per segment and a final one")
    if n_sent and (ss[0] < 0 or (numpy.diff(ss) < 0).any()):
        raise ValueError("sentence offsets must ascend")
    if off[5 * n_seg] != f.shape[0]:
        raise ValueError("the segment offsets do not match the features")
    dist = [int(distance[k]) for k in range(3)] + [int(coordination[k]) for k in range(3)]
    return f, off, ss, dist, numpy.full(n_seg, -1, dtype=numpy.int32), head_words(words, n_seg)


def head_words(words, n_seg: int) -> numpy.ndarray:
    """The segments' head words (uint64) for the coordination features: one
    per segment, or empty when there are none (None)."""
    if words is None:
        return numpy.zeros(0, dtype=numpy.uint64)
    out = numpy.ascontiguousarray(words, dtype=numpy.uint64)
    if out.shape[0] != n_seg:
        raise ValueError(f"one head word per segment is needed ({n_seg}), not {out.shape[0]}")
    return out


def run_parts(parse_range: Callable[[int, int], Tuple[int, ...]], n_threads: int, off, ss,
              n_feats: int) -> List[Tuple[int, ...]]:
    """`parse_range(a, b)` over all sentences: at once on one thread, or in
    parts of about equal feature counts taken by `n_threads` threads one
    after another (so that a thread with costly sentences does not hold the
    others up). Returns each call's counts."""
    n_sent = ss.shape[0] - 1
    n_parts = min(n_threads * PARTS_PER_THREAD, n_sent // MIN_SENTENCES_PER_PART) if n_sent > 0 else 1
    if n_threads == 1 or n_parts <= 1:
        return [parse_range(0, n_sent)]
    cuts = numpy.searchsorted(numpy.asarray(off)[5 * numpy.asarray(ss)],
                              numpy.linspace(0, n_feats, n_parts + 1)[1:n_parts])
    bounds = [0] + numpy.clip(cuts, 0, n_sent).tolist() + [n_sent]
    results = [None] * n_parts
    taken = iter(range(n_parts))  # next() on it is atomic under the GIL

    def run():
        for p in taken:
            try:
                results[p] = parse_range(bounds[p], bounds[p + 1])
            except BaseException as e:  # re-raised in the caller's thread
                results[p] = e

    threads = [threading.Thread(target=run) for _ in range(min(n_threads, n_parts) - 1)]
    for t in threads:
        t.start()
    run()
    for t in threads:
        t.join()
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return results
