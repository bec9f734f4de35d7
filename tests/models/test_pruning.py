"""Magnitude pruning of a trained CRF: the pruned model scores every
sequence exactly as the unpruned one with the dropped weights set to zero
(the dense reference) and saves and loads like any model."""
import numpy
import pytest

from spacy_adf.features.crf_layout import prune_blocks, weight_for_fraction
from spacy_adf.features.extract import FeatureTable
from spacy_adf.models.linear_crf import LinearChainCRF
from tests.helpers.crf import log_likelihoods, random_model


def _random_crf(rng, n_attrs=40, n_labels=4):
    crf = LinearChainCRF()
    crf.set(FeatureTable(numpy.arange(2, 2 + n_attrs, dtype=numpy.uint64)),
            random_model(rng, n_labels=n_labels, n_attrs=n_attrs))
    return crf


def _hashes(rng, n_attrs, n_pos, width=4):
    """(n_pos, width) feature hashes: known features (2..n_attrs+1), unknown ones and 0s."""
    return rng.integers(0, n_attrs + 6, size=(n_pos, width)).astype(numpy.uint64)


def _scores(crf, hashes, lengths):
    starts = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int64)
    ptr, attrs = crf.lookup(hashes)
    params = crf.params
    labels = numpy.random.default_rng(1).integers(0, params.n_labels, size=len(hashes)).astype(numpy.int32)
    return log_likelihoods(params, starts, ptr, attrs, labels), crf.viterbi(starts, ptr, attrs)


@pytest.mark.parametrize("seed", range(4))
def test_pruned_model_equals_dense_reference(seed):
    rng = numpy.random.default_rng(seed)
    crf = _random_crf(rng)
    hashes, lengths = _hashes(rng, 40, 30), [7, 1, 12, 10]
    reference = _random_crf(numpy.random.default_rng(seed))  # the same model
    threshold = weight_for_fraction(crf.block_weights(), 0.3)
    small = numpy.abs(reference.block_weights()) < threshold
    reference.block_weights()[small] = 0.0  # a view: zeroes the model's entries

    counts = crf.prune(threshold)
    assert counts["after"]["n_weights"] < counts["before"]["n_weights"]
    assert numpy.all(numpy.abs(crf.block_weights()) >= threshold)
    assert len(crf.table) == crf.params.n_attrs <= 40
    for got, want in zip(_scores(crf, hashes, lengths), _scores(reference, hashes, lengths)):
        numpy.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)


def test_prune_blocks_keeps_order_and_drops_empty_features():
    ptr = numpy.array([0, 3, 5, 6])
    codes = numpy.array([0, 1, 2, 0, 5, 1], dtype=numpy.uint16)
    weights = numpy.array([0.5, -0.01, -2.0, 0.02, 0.03, 1.0], dtype=numpy.float32)
    kept, new_ptr, new_codes, new_w = prune_blocks(ptr, codes, weights, 0.1)
    assert kept.tolist() == [0, 2]  # the second feature lost both entries
    assert new_ptr.tolist() == [0, 2, 3]
    assert new_codes.tolist() == [0, 2, 1]
    assert new_w.tolist() == [0.5, -2.0, 1.0]
    with pytest.raises(ValueError, match="positive"):
        prune_blocks(ptr, codes, weights, 0.0)


def test_weight_for_fraction():
    w = numpy.array([0.0, 1.0, -2.0, 3.0, -4.0, 0.0], dtype=numpy.float32)
    assert weight_for_fraction(w, 0.5) == 3.0  # two of the four non-zero weights
    assert weight_for_fraction(w, 1.0) == 1.0
    with pytest.raises(ValueError, match="fraction"):
        weight_for_fraction(w, 0.0)


def test_pruned_model_round_trip():
    rng = numpy.random.default_rng(7)
    crf = _random_crf(rng)
    crf.prune(weight_for_fraction(crf.block_weights(), 0.2))
    again = LinearChainCRF().from_bytes(crf.to_bytes())
    hashes = _hashes(rng, 40, 12)
    for got, want in zip(_scores(again, hashes, [12]), _scores(crf, hashes, [12])):
        assert numpy.array_equal(got, want)
