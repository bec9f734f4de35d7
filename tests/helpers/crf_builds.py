"""The two-pass CRF builds the one-pass training builds are checked against:
the feature table built from the hashes of the Docs (or units), the samples
looked up again afterwards."""
from typing import Optional, Sequence

import numpy

from spacy_adf.features.crf_layout import build_crf_stacked, stack_golds, stack_hashes
from spacy_adf.features.row_buffer import RowBuffer


def build_crf(hash_mats: Sequence[numpy.ndarray], golds: Sequence[numpy.ndarray], n_labels: int, *,
              edge_template_mask: numpy.ndarray, min_freq: int = 1, state_features: str = "all",
              edge_features: str = "observed", dense_keys: Optional[numpy.ndarray] = None):
    """(FeatureTable, CRFModel) of per-sequence uint64 (n_i, T) hash matrices
    (or a RowBuffer of all their rows, emptied) and int32 gold label ids."""
    if isinstance(hash_mats, RowBuffer):  # every sequence's rows, stacked already
        golds = [g for g in golds if len(g)]
        if not len(hash_mats) or len(hash_mats) != sum(len(g) for g in golds):
            raise ValueError("no training tokens, or hash rows that do not match the gold sequences")
        stacked = [stack_hashes(hash_mats)]
    else:
        mats = [m for m in hash_mats if m.shape[0]]
        if not mats:
            raise ValueError("no training tokens: cannot build a feature dictionary")
        stacked = [stack_hashes(mats)]
        golds = [g for g, m in zip(golds, hash_mats) if m.shape[0]]
    stacked.extend(stack_golds(golds))
    return build_crf_stacked(stacked, n_labels, edge_template_mask=edge_template_mask, min_freq=min_freq,
                             state_features=state_features, edge_features=edge_features, dense_keys=dense_keys)


def build_from_docs(model, docs, golds, n_labels: int) -> None:
    """A `SequenceCRF`'s feature table and zero weights from training Docs and their gold label ids."""
    width = None
    if model.vectors is not None and docs:
        width = model.vectors.table_of(docs, model.name, None)[0].shape[1]
    with model._vector_width(width):
        model.set(*build_crf([model.hashes(doc) for doc in docs], golds, n_labels, **model._layout(width)))


def build_segmenter_crf(segmenter, sequences, n_examples: int) -> None:
    """A `CharSegmenter`'s feature table and zero weights from (codes, bounds,
    gold, fold) of the training examples (after its lexicon is built)."""
    hash_mats, golds, n_seq = segmenter._hash_sequences(sequences)
    opts = segmenter.options
    segmenter.crf.set(*build_crf(hash_mats, golds, len(segmenter.tag_names),
                                 edge_template_mask=numpy.ones(segmenter.featurizer.n_templates, dtype=bool),
                                 min_freq=opts["min_freq"], state_features=opts["state_features"],
                                 edge_features=opts["edge_features"]))
    segmenter.cfg["n_train_examples"] = int(n_examples)
    segmenter.cfg["n_train_sequences"] = n_seq
