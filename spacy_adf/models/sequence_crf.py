"""The sequence CRF of `adf_tagger`: feature templates over token attributes,
a feature table and the CRF weights (a LinearChainCRF). Docs go in, label
ids come out; no spaCy pipeline concerns (the component maps labels to
tags and annotations).
"""
from typing import List, Optional, Sequence, Tuple

import numpy
from spacy.tokens import Doc

from ..features.crf_layout import check_feature_modes, edge_mask
from ..features.templates import TemplateSet
from .linear_crf import LinearChainCRF


class SequenceCRF(LinearChainCRF):
    def __init__(self, templates: Sequence[str], *, min_freq: int = 1, state_features: str = "all",
                 edge_features: str = "observed", edge_templates: Optional[List[str]] = None,
                 name: str = "adf_tagger") -> None:
        super().__init__(name)
        self.templates = TemplateSet(templates)
        check_feature_modes(state_features, edge_features, min_freq)
        self.layout = {"edge_template_mask": edge_mask(self.templates.templates, edge_templates),
                       "min_freq": min_freq, "state_features": state_features,
                       "edge_features": edge_features}

    @property
    def required_annotations(self) -> List[str]:
        return self.templates.required_annotations

    def check_doc(self, doc: Doc) -> None:
        """Raise a clear error if `doc` lacks an annotation the templates read."""
        self.templates.check_doc(doc, self.name)

    def hashes(self, doc: Doc) -> numpy.ndarray:
        self.check_doc(doc)
        return self.templates.hashes(doc)

    def hashes_of_docs(self, docs: Sequence[Doc]) -> numpy.ndarray:
        """`hashes` of several Docs, their rows one after the other (one
        columns pass for the batch)."""
        seq_starts, cols = self.templates.columns_for_docs(docs, component=self.name)
        return self.templates.hash_columns(cols, seq_starts)

    def build_from_docs(self, docs: Sequence[Doc], golds: Sequence[numpy.ndarray], n_labels: int) -> None:
        """Feature table and zero weights from training Docs and their gold label ids."""
        self.build([self.hashes(doc) for doc in docs], golds, n_labels, **self.layout)

    def build_training(self, hash_mats, golds: Sequence[numpy.ndarray],
                       n_labels: int) -> List[Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]]:
        """`build_from_docs` from the Docs' hashes (`hashes`; the list is
        emptied), returning each sequence's training sample, equal to
        (*features_of(doc), gold): one hashing pass serves both."""
        return self.build_with_samples(hash_mats, golds, n_labels, **self.layout)

    def featurize(self, docs: Sequence[Doc]) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """Known feature ids of a batch of Docs as (seq_starts, pos_ptr, attrs):
        the columns of the whole batch in one matrix, then template hashing
        and the table lookup in one pass (the same ids as `features_of` per
        Doc)."""
        self.require_built()
        t = self.templates
        seq_starts, cols = t.columns_for_docs(docs, component=self.name)
        pos_ptr, attrs = self.table.lookup_columns(cols, seq_starts, t.tcols, t.toffs, t.tlen, t.tseed)
        return seq_starts, pos_ptr, attrs

    def predict(self, docs: Sequence[Doc], marginals: bool = False):
        """Per Doc: (Viterbi label ids, per-token label marginals or None)."""
        ss, ptr, attrs = self.featurize(docs)
        labels = self.viterbi(ss, ptr, attrs)
        marg = self.marginals(ss, ptr, attrs) if marginals else None
        return [(labels[ss[i]:ss[i + 1]], None if marg is None else marg[ss[i]:ss[i + 1]])
                for i in range(len(docs))]

    def features_of(self, doc: Doc) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(pos_ptr, attrs) of one Doc: its side of a training sample."""
        return self.lookup(self.hashes(doc))

    def source_signature(self, doc: Doc) -> numpy.ndarray:
        """What the features of `doc` are a function of: the raw token
        attributes when every column is built in (cheap), else the feature
        columns themselves. Equal signatures give equal features."""
        self.check_doc(doc)
        source = self.templates.source_attributes(doc)
        return self.templates.columns_for(doc) if source is None else source
