"""A CRF's feature dictionary and weight layout (per attribute, a block of
state and rich edge entries) from a corpus' template hashes and gold labels."""
from typing import List, Optional, Sequence

import numpy

from ..core.crf import CRFModel
from .extract import FeatureTable, count_keys, layout_all_states
from .row_buffer import RowBuffer

STATE_MODES = ("all", "observed")
EDGE_MODES = ("observed", "all", "none")


def check_feature_modes(state_features: str, edge_features: str, min_freq: int) -> None:
    if state_features not in STATE_MODES:
        raise ValueError(f"state_features must be one of {STATE_MODES}, got {state_features!r}")
    if edge_features not in EDGE_MODES:
        raise ValueError(f"edge_features must be one of {EDGE_MODES}, got {edge_features!r}")
    if not isinstance(min_freq, int) or min_freq < 1:
        raise ValueError(f"min_freq must be a positive integer, got {min_freq!r}")


def stack_hashes(hash_mats) -> numpy.ndarray:
    """One C-contiguous uint64 (N, T) matrix of a RowBuffer's rows (taken) or of a list's."""
    if isinstance(hash_mats, RowBuffer):
        return hash_mats.take()
    return numpy.ascontiguousarray(numpy.concatenate(hash_mats, axis=0), dtype=numpy.uint64)


def stack_golds(golds: Sequence[numpy.ndarray]):
    """(y, yp) int64 of non-empty gold sequences: the labels and the previous ones (-1: none)."""
    y = numpy.ascontiguousarray(numpy.concatenate(golds).astype(numpy.int64))
    yp = numpy.empty_like(y)
    if len(y):
        yp[1:] = y[:-1]
        starts = numpy.cumsum([0] + [len(g) for g in golds[:-1]])
        yp[starts] = -1
    return y, yp


def build_crf_stacked(
    stacked: list,
    n_labels: int,
    *,
    with_lookup: bool = False,
    edge_template_mask: numpy.ndarray,
    min_freq: int = 1,
    state_features: str = "all",
    edge_features: str = "observed",
    dense_keys: Optional[numpy.ndarray] = None,
):
    """(FeatureTable, CRFModel (, table.lookup(H) `with_lookup`)) of stacked = [H uint64 (N, T)
    hashes, y, yp from `stack_golds`] (emptied, so H is freed after its last read); the
    templates of `edge_template_mask` get rich edge weights, `dense_keys` every state weight."""
    check_feature_modes(state_features, edge_features, min_freq)
    if edge_features != "none" and n_labels > 255:
        raise ValueError(f"{n_labels} tags is too many for rich edge features (max 255)")
    H, y, yp = stacked
    stacked.clear()
    L = int(n_labels)
    T = len(edge_template_mask)
    if H.shape[0] == 0:
        raise ValueError("no training tokens: cannot build a feature dictionary")
    if H.shape[1] != T:
        raise ValueError("template mask does not match the hash matrices")
    edge_mask_arr = numpy.asarray(edge_template_mask, bool)

    # seeded hashes of different templates practically never coincide (if they do, the values share a feature)
    keys, counts = count_keys(H)
    keep = counts >= min_freq
    keys, counts = keys[keep], counts[keep]
    # attribute ids by descending frequency: frequent features share a cache-resident part of the weights
    order = numpy.lexsort((keys, -counts))
    A = len(keys)
    dense_keys = numpy.zeros(0, numpy.uint64) if dense_keys is None else numpy.asarray(dense_keys, numpy.uint64)
    if numpy.isin(dense_keys, keys).any():  # seeded 64-bit hashes: not expected to happen
        raise ValueError("a dense feature key equals a template value's key")
    table = FeatureTable(numpy.concatenate([keys[order], dense_keys]))

    # each attribute's block: state entries (code = label), rich edge entries (code = L + pair)
    mask = edge_mask_arr.astype(numpy.uint8)
    state_observed, edge_observed = state_features == "observed", edge_features == "observed"
    if state_features == "all" and edge_features != "all":
        counts, edge_codes, _ = table.observed_blocks(H, y, yp, L, mask, False, edge_observed)
    else:
        observed, edge_attrs = table.observed_codes(H, y, yp, L, mask, state_observed, edge_observed)
    # the lookup before the weights are allocated: the corpus-sized hash matrix is freed first
    looked = table.lookup(H) if with_lookup else None
    del H, y, yp
    if state_features == "all" and edge_features != "all":
        block_ptr, codes = layout_all_states(counts, edge_codes, L)
        del counts, edge_codes
    else:
        block_ptr, codes = _blocks_generic(observed, edge_attrs, len(table), L, state_features, edge_features,
                                           dense_from=A)
    crf = CRFModel(L, block_ptr, codes)
    return (table, crf, looked) if with_lookup else (table, crf)


def _blocks_generic(observed: numpy.ndarray, edge_attrs: numpy.ndarray, A: int, L: int,
                    state_features: str, edge_features: str, dense_from: Optional[int] = None):
    """(block_ptr, codes uint16) of the observed and "all" entries (from `dense_from`: every state)."""
    n_codes = L + L * L
    parts = [observed]
    first_all = 0 if state_features == "all" else (A if dense_from is None else dense_from)
    if first_all < A:
        parts.append(numpy.repeat(numpy.arange(first_all, A, dtype=numpy.int64), L) * n_codes
                     + numpy.tile(numpy.arange(L, dtype=numpy.int64), A - first_all))
    if edge_features == "all":
        eattr = numpy.flatnonzero(edge_attrs).astype(numpy.int64)
        parts.append(numpy.repeat(eattr, L * L) * n_codes + L
                     + numpy.tile(numpy.arange(L * L, dtype=numpy.int64), len(eattr)))
    code = numpy.concatenate(parts)
    code.sort()  # then drop repeats: cheaper than numpy.unique's hashing here
    if len(code):
        code = code[numpy.concatenate([[True], code[1:] != code[:-1]])]
    owner = code // n_codes
    counts = numpy.bincount(owner, minlength=A) if len(owner) else numpy.zeros(A, numpy.int64)
    block_ptr = numpy.concatenate([[0], numpy.cumsum(counts)]).astype(numpy.int64)
    return block_ptr, (code % n_codes).astype(numpy.uint16)


def prune_blocks(block_ptr: numpy.ndarray, codes: numpy.ndarray, block_weights: numpy.ndarray,
                 min_abs: float):
    """(kept attribute ids, block_ptr, codes, block weights) without the entries |weight| < min_abs."""
    if not min_abs > 0:
        raise ValueError(f"the pruning threshold must be positive, got {min_abs!r}")
    block_ptr = numpy.asarray(block_ptr, dtype=numpy.int64)
    n_attrs = len(block_ptr) - 1
    keep = numpy.abs(block_weights) >= min_abs
    owner = numpy.repeat(numpy.arange(n_attrs, dtype=numpy.int64), numpy.diff(block_ptr))
    counts = numpy.bincount(owner[keep], minlength=n_attrs)
    kept_attrs = numpy.flatnonzero(counts)
    new_ptr = numpy.concatenate([[0], numpy.cumsum(counts[kept_attrs])]).astype(numpy.int64)
    return kept_attrs, new_ptr, codes[keep], block_weights[keep]


def weight_for_fraction(block_weights: numpy.ndarray, fraction: float) -> float:
    """The prune_blocks min_abs that keeps about `fraction` of the non-zero entries."""
    if not 0.0 < fraction <= 1.0:
        raise ValueError(f"the kept fraction must be in (0, 1], got {fraction!r}")
    mags = numpy.abs(block_weights[block_weights != 0])
    if not len(mags):
        return float("inf")
    k = max(1, int(round(fraction * len(mags))))
    # the k-th largest magnitude
    return float(numpy.partition(mags, len(mags) - k)[len(mags) - k])


def edge_mask(templates: List[str], edge_templates) -> numpy.ndarray:
    """Which templates get rich edge weights: None = all, else the listed ones."""
    if edge_templates is None:
        return numpy.ones(len(templates), dtype=bool)
    unknown = [t for t in edge_templates if t not in templates]
    if unknown:
        raise ValueError(f"edge_templates names templates that are not in templates: {unknown}")
    return numpy.array([t in edge_templates for t in templates], dtype=bool)
