"""The two-pass CRF builds the one-pass training builds are checked against:
the feature table built from the hashes of the Docs (or units), the samples
looked up again afterwards."""
import numpy

from spacy_adf.features.crf_layout import build_crf


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
