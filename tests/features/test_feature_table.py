"""FeatureTable.lookup (its probe loop inlined, the next row prefetched) against
one `get` per key: present, absent, colliding, 0 (off) and 1 (reserved) keys."""
import numpy

from spacy_adf.features.extract import FeatureTable


def test_lookup_equals_get_per_key():
    rng = numpy.random.default_rng(0)
    # keys sharing their low bits land in the same probe run
    keys = numpy.unique(numpy.concatenate([
        rng.integers(2, 2**63, 3000, dtype=numpy.uint64),
        (rng.integers(1, 2**40, 200, dtype=numpy.uint64) << numpy.uint64(20)) | numpy.uint64(7),
    ]))
    table = FeatureTable(keys)
    absent = rng.integers(2, 2**63, 2000, dtype=numpy.uint64)
    pool = numpy.concatenate([keys, absent, numpy.array([0, 1, 7], dtype=numpy.uint64)])
    hashes = numpy.ascontiguousarray(rng.choice(pool, size=(500, 9)), dtype=numpy.uint64)
    ptr, attrs = table.lookup(hashes)
    for t in range(hashes.shape[0]):
        want = [table.get(int(h)) for h in hashes[t] if h != 0]
        assert list(attrs[ptr[t]:ptr[t + 1]]) == [a for a in want if a >= 0]
    assert ptr[-1] == len(attrs) > 0
