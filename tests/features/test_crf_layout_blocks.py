"""The all-states block layout of a CRF build equals the generic one."""
import numpy
import pytest

from spacy_adf.features.crf_layout import _blocks_generic
from tests.helpers.crf import blocks_all_states


@pytest.mark.parametrize("L,A,density,seed", [(3, 50, 0.1, 0), (23, 200, 0.02, 1), (5, 1, 0.5, 2),
                                              (4, 30, 0.0, 3), (2, 10, 1.0, 4)])
def test_all_states_blocks_equal_generic(L, A, density, seed):
    rng = numpy.random.default_rng(seed)
    n_codes = L + L * L
    edges = [a * n_codes + L + e for a in range(A) for e in range(L * L) if rng.random() < density]
    observed = numpy.array(sorted(edges), dtype=numpy.int64)
    ptr, codes = blocks_all_states(observed, A, L)
    ptr2, codes2 = _blocks_generic(observed, None, A, L, "all", "observed")
    assert ptr.dtype == ptr2.dtype and ptr.tobytes() == ptr2.tobytes()
    assert codes.dtype == codes2.dtype and codes.tobytes() == codes2.tobytes()
