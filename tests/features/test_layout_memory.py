"""The low-memory parts of building a CRF's feature table and layout:
observed_codes against a plain numpy statement, lookup against a Python
loop, RowBuffer against stacking a list, and the build from a RowBuffer
against the build from per-sequence matrices."""
import numpy
import pytest

from spacy_adf.features.crf_layout import edge_mask
from spacy_adf.features.extract import FeatureTable
from spacy_adf.features.row_buffer import RowBuffer
from spacy_adf.models.linear_crf import LinearChainCRF


def _random_corpus(rng, n, T, L):
    H = rng.integers(2, 80, size=(n, T)).astype(numpy.uint64)
    H[rng.random((n, T)) < 0.2] = 0
    y = rng.integers(0, L, n).astype(numpy.int64)
    yp = numpy.concatenate([[-1], y[:-1]])
    yp[rng.random(n) < 0.1] = -1
    return H, y, yp


def _observed_reference(table, H, y, yp, L, mask, state_observed, edge_observed):
    n_codes = L + L * L
    codes, edge_attrs = set(), numpy.zeros(len(table), dtype=numpy.uint8)
    for t in range(H.shape[0]):
        for j in range(H.shape[1]):
            a = table.get(int(H[t, j])) if H[t, j] else -1
            if a < 0:
                continue
            if state_observed:
                codes.add(a * n_codes + int(y[t]))
            if mask[j]:
                edge_attrs[a] = 1
                if edge_observed and yp[t] >= 0:
                    codes.add(a * n_codes + L + int(yp[t]) * L + int(y[t]))
    return numpy.array(sorted(codes), dtype=numpy.int64), edge_attrs


@pytest.mark.parametrize("seed", range(4))
def test_observed_codes_match_a_plain_statement(seed):
    rng = numpy.random.default_rng(seed)
    H, y, yp = _random_corpus(rng, int(rng.integers(1, 300)), int(rng.integers(1, 7)), int(rng.integers(1, 40)))
    L = int(y.max()) + 1
    table = FeatureTable(numpy.unique(H[H > 0])[::2].copy())  # half the values unknown
    mask = (rng.random(H.shape[1]) < 0.6).astype(numpy.uint8)
    for so in (True, False):
        for eo in (True, False):
            codes, ea = table.observed_codes(H, y, yp, L, mask, so, eo)
            ref_codes, ref_ea = _observed_reference(table, H, y, yp, L, mask, so, eo)
            assert codes.dtype == numpy.int64
            assert numpy.array_equal(codes, ref_codes) and numpy.array_equal(ea, ref_ea)


def test_lookup_matches_a_python_loop_and_is_not_oversized():
    rng = numpy.random.default_rng(3)
    H, _, _ = _random_corpus(rng, 200, 5, 3)
    table = FeatureTable(numpy.unique(H[H > 0])[::3].copy())
    ptr, attrs = table.lookup(H)
    expected, starts = [], [0]
    for row in H:
        expected += [table.get(int(h)) for h in row if h and table.get(int(h)) >= 0]
        starts.append(len(expected))
    assert attrs.tolist() == expected and ptr.tolist() == starts
    assert attrs.base is None and attrs.shape == (len(expected),)  # shrunk in place, owns its data
    empty_ptr, empty_attrs = table.lookup(numpy.zeros((0, 5), dtype=numpy.uint64))
    assert empty_ptr.tolist() == [0] and len(empty_attrs) == 0


def test_row_buffer_stacks_like_concatenate():
    rng = numpy.random.default_rng(0)
    blocks = [rng.integers(0, 2 ** 60, size=(int(rng.integers(0, 50)), 4), dtype=numpy.uint64)
              for _ in range(300)]
    buf = RowBuffer(4, capacity=3)
    for b in blocks:
        buf.append(b)
    assert len(buf) == sum(len(b) for b in blocks)
    stacked = buf.take()
    assert numpy.array_equal(stacked, numpy.concatenate(blocks)) and stacked.flags.c_contiguous
    assert len(buf) == 0
    with pytest.raises(ValueError, match="width"):
        buf.append(numpy.zeros((2, 3), dtype=numpy.uint64))


def test_build_from_a_row_buffer_equals_the_build_from_a_list():
    rng = numpy.random.default_rng(5)
    T, L = 4, 3
    mats = [rng.integers(2, 60, size=(int(rng.integers(1, 12)), T)).astype(numpy.uint64) for _ in range(40)]
    golds = [rng.integers(0, L, len(m)).astype(numpy.int32) for m in mats]
    layout = {"edge_template_mask": edge_mask(["a", "b", "c", "d"], None), "min_freq": 1,
              "state_features": "all", "edge_features": "observed"}
    a, b = LinearChainCRF("a"), LinearChainCRF("b")
    buf = RowBuffer(T)
    for m in mats:
        buf.append(m)
    samples_a = a.build_with_samples(list(mats), golds, L, **layout)
    samples_b = b.build_with_samples(buf, golds, L, **layout)
    assert a.to_bytes() == b.to_bytes()
    for sa, sb in zip(samples_a, samples_b):
        assert all(numpy.array_equal(x, z) for x, z in zip(sa, sb))


@pytest.mark.parametrize("seed", range(3))
def test_all_states_layout_from_blocks_equals_the_layout_from_codes(seed):
    from tests.helpers.crf import blocks_all_states
    from spacy_adf.features.extract import layout_all_states

    rng = numpy.random.default_rng(seed)
    H, y, yp = _random_corpus(rng, 250, 5, 6)
    L = int(y.max()) + 1
    table = FeatureTable(numpy.unique(H[H > 0])[::2].copy())
    mask = (rng.random(H.shape[1]) < 0.7).astype(numpy.uint8)
    counts, codes16, _ = table.observed_blocks(H, y, yp, L, mask, False, True)
    observed, _ = table.observed_codes(H, y, yp, L, mask, False, True)
    ptr_a, codes_a = layout_all_states(counts, codes16, L)
    ptr_b, codes_b = blocks_all_states(observed, len(table), L)
    assert numpy.array_equal(ptr_a, ptr_b) and numpy.array_equal(codes_a, codes_b)
    assert codes_a.dtype == numpy.uint16
