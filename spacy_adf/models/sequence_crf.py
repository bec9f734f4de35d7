"""The sequence CRF of `adf_tagger`: feature templates over token attributes,
a feature table and the CRF weights (a LinearChainCRF). Docs go in, label
ids come out; no spaCy pipeline concerns (the component maps labels to
tags and annotations).
"""
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy.tokens import Doc

from ..features.crf_layout import check_feature_modes, edge_mask
from ..features.digest import digest
from ..features.row_buffer import RowBuffer
from ..features.templates import TemplateSet, cluster_key
from .linear_crf import LinearChainCRF, Sample

HASH_BATCH = 256  # training Docs hashed per columns pass (read_training)


class TrainingPass:
    """What `SequenceCRF.read_training` keeps of a training corpus read once
    (each Doc is dropped once read): per sequence with complete gold its
    template hashes (stacked in one buffer), its gold tags and the digest
    of its input signature. The tags are provisional ids in order of
    appearance (`tags`): the component knows its tag set only after the
    same pass has shown it the labels."""

    def __init__(self, n_templates: int) -> None:
        self.n_examples = 0  # every Example read, empty or without gold too
        self.hashes = RowBuffer(n_templates)
        self.golds: List[numpy.ndarray] = []
        self.signatures: List[bytes] = []
        self.tags: Dict[str, int] = {}


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

    # ------------------------------------------------------------ word clusters
    # Templates with cluster columns read a word -> bit path table that is
    # part of the model: induced from the training words before the feature
    # table is built, saved and loaded with the weights' component.

    @property
    def uses_clusters(self) -> bool:
        return self.templates.uses_clusters

    @property
    def clusters(self) -> Optional[Dict[str, str]]:
        return self.templates.clusters

    def set_clusters(self, table: Optional[Dict[str, str]]) -> None:
        self.templates.set_clusters(table)

    def induce_clusters(self, sentences: Iterable[Sequence[str]], **options) -> Dict[str, str]:
        """Induce the cluster table from training sentences (word lists, keyed
        as the columns look them up: `cluster_key`) and use it."""
        from ..features.clusters import induce_clusters

        table = induce_clusters(([cluster_key(w) for w in s] for s in sentences), **options)
        self.set_clusters(table)
        return table

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

    # ------------------------------------------------------------ training examples
    # The example preparation of training: the component hands each
    # (predicted Doc, gold tags) pair over and gets the CRF's samples back.

    def read_training(self, pairs: Iterable[Tuple[Doc, Optional[Sequence[str]]]]) -> TrainingPass:
        """Read (predicted Doc, gold tag names or None) pairs once, as a
        stream: the hashes the feature table is built from, which are also
        the first epoch's samples (`build_for_training`), so the corpus is
        hashed once. Empty Docs and pairs without (complete) gold are
        counted, not kept. Docs are hashed HASH_BATCH at a time: one
        columns pass per batch."""
        corpus = TrainingPass(len(self.templates))
        pending: List[Doc] = []
        for doc, tags in pairs:
            corpus.n_examples += 1
            if not len(doc) or tags is None:
                continue
            ids = [corpus.tags.setdefault(t, len(corpus.tags)) for t in tags]
            corpus.golds.append(numpy.array(ids, dtype=numpy.int32))
            corpus.signatures.append(self.training_signature(doc))
            pending.append(doc)
            if len(pending) == HASH_BATCH:
                corpus.hashes.append(self.hashes_of_docs(pending))
                pending = []
        if pending:
            corpus.hashes.append(self.hashes_of_docs(pending))
        return corpus

    def build_for_training(self, corpus: TrainingPass, tag_names: Sequence[str],
                           unknown_tag: Callable[[str], None]) -> Dict[tuple, List[Sample]]:
        """Feature table and zero weights over `tag_names` (the labels, in
        column order) from a `read_training` pass, which this consumes.
        Returns the first epoch's samples by `training_key`, one list per
        distinct content (a repeated sentence shares its sample), for the
        trainer's cache. A gold tag outside `tag_names` calls
        unknown_tag(tag), which should raise (the component's message)."""
        index = {t: i for i, t in enumerate(tag_names)}
        names = list(corpus.tags)
        remap = numpy.array([index.get(t, -1) for t in names], dtype=numpy.int32)
        golds = corpus.golds
        for i, gold in enumerate(golds):
            ids = remap[gold]
            if len(ids) and ids.min() < 0:
                tag = names[int(gold[numpy.flatnonzero(ids < 0)[0]])]
                unknown_tag(tag)
                raise ValueError(f"[{self.name}] gold tag {tag!r} is not one of the tags")
            golds[i] = ids
        samples = self.build_training(corpus.hashes, golds, len(tag_names))
        primed: Dict[tuple, List[Sample]] = {}
        for signature, sample in zip(corpus.signatures, samples):
            primed.setdefault(self.training_key(signature, sample[2]), [sample])
        return primed

    def training_signature(self, doc: Doc) -> bytes:
        """The 128-bit digest of `source_signature`: what a cached sample of
        `doc` is checked against (the cache holds no copy of the input)."""
        return digest(self.source_signature(doc))

    @staticmethod
    def training_key(signature: bytes, gold: numpy.ndarray) -> tuple:
        """Everything a training sample is a function of (the digest of the
        input signature, the gold ids), as a dict key: how samples prepared
        before training are found again by content."""
        return (signature, gold.tobytes())

    def training_sample(self, doc: Doc, gold: numpy.ndarray) -> Sample:
        """(pos_ptr, attrs, gold) of one Doc and its gold tag ids."""
        return (*self.features_of(doc), gold)

    # ------------------------------------------------------------ inference

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
