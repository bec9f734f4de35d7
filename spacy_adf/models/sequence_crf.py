"""The sequence CRF of `adf_tagger`: feature templates over token attributes,
a feature table and the CRF weights (a LinearChainCRF); Docs in, label ids
out. Word-vector features and `VectorSample`: docs/architecture.md, "adf_tagger"."""
from contextlib import contextmanager
from typing import Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

import numpy
from spacy.tokens import Doc

from ..features.crf_layout import check_feature_modes, edge_mask
from ..features.digest import digest
from ..features.row_buffer import RowBuffer
from ..features.templates import TemplateSet, cluster_key
from ..features.vector_features import WordVectorFeatures
from .linear_crf import LinearChainCRF, Sample

HASH_BATCH = 256  # training Docs hashed per columns pass (read_training)


class TrainingPass:
    """What `SequenceCRF.read_training` keeps per sequence with gold: hashes (one
    buffer), tags (provisional ids by appearance: `tags`), input digest."""

    def __init__(self, n_templates: int) -> None:
        self.n_examples = 0  # every Example read, empty or without gold too
        self.hashes = RowBuffer(n_templates)
        self.golds: List[numpy.ndarray] = []
        self.signatures: List[bytes] = []
        self.tags: Dict[str, int] = {}
        # with vector features: the vectors' width and data, each batch's token rows
        self.vector_width: Optional[int] = None
        self.vector_table: Optional[numpy.ndarray] = None
        self.vector_rows: List[numpy.ndarray] = []


class VectorSample(NamedTuple):
    """A training sample with vector features as the cache keeps it (`expand_samples`)."""
    ptr: numpy.ndarray
    attrs: numpy.ndarray
    gold: numpy.ndarray
    rows: numpy.ndarray  # each token's row of the vectors table (-1: none)
    table: numpy.ndarray


class SequenceCRF(LinearChainCRF):
    def __init__(self, templates: Sequence[str], *, min_freq: int = 1, state_features: str = "all",
                 edge_features: str = "observed", edge_templates: Optional[List[str]] = None,
                 vectors: Optional[WordVectorFeatures] = None, name: str = "adf_tagger") -> None:
        super().__init__(name)
        self.templates = TemplateSet(templates)
        check_feature_modes(state_features, edge_features, min_freq)
        self.layout = {"edge_template_mask": edge_mask(self.templates.templates, edge_templates),
                       "min_freq": min_freq, "state_features": state_features,
                       "edge_features": edge_features}
        if vectors is not None and not isinstance(vectors, WordVectorFeatures):
            raise ValueError(f"vectors must be made by spacy_adf.vector_features.v1, got {type(vectors).__name__}")
        self.vectors = vectors

    @property
    def required_annotations(self) -> List[str]:
        return self.templates.required_annotations

    # the word -> bit path table of cluster columns, part of the model (induced before the build)

    @property
    def uses_clusters(self) -> bool:
        return self.templates.uses_clusters

    @property
    def clusters(self) -> Optional[Dict[str, str]]:
        return self.templates.clusters

    def set_clusters(self, table: Optional[Dict[str, str]]) -> None:
        self.templates.set_clusters(table)

    def induce_clusters(self, sentences: Iterable[Sequence[str]], **options) -> Dict[str, str]:
        """Induce the cluster table from training sentences (word lists) and use it."""
        from ..features.clusters import induce_clusters

        table = induce_clusters(([cluster_key(w) for w in s] for s in sentences), **options)
        self.set_clusters(table)
        return table

    def hashes(self, doc: Doc) -> numpy.ndarray:
        self.templates.check_doc(doc, self.name)  # a clear error for a missing annotation
        return self.templates.hashes(doc)

    def _layout(self, vector_width: Optional[int]) -> dict:
        if self.vectors is None or vector_width is None:
            return self.layout
        return {**self.layout, "dense_keys": self.vectors.keys(vector_width)}

    @contextmanager
    def _vector_width(self, width: Optional[int]) -> Iterator[None]:
        """The vector features' width during a build (`set` lays out their ids by it)."""
        if self.vectors is None:
            yield
            return
        before = self.vectors.width
        self.vectors.width = width
        try:
            yield
        except BaseException:
            self.vectors.width = before
            raise

    def set(self, table, crf) -> None:
        super().set(table, crf)
        if self.vectors is not None:
            self.vectors.set_ids(self.vectors.width, table)

    def read_training(self, pairs: Iterable[Tuple[Doc, Optional[Sequence[str]]]]) -> TrainingPass:
        """Read (predicted Doc, gold tag names or None) pairs once, as a stream, hashing
        HASH_BATCH Docs at a time; empty Docs and pairs without gold are only counted."""
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
                self._read_batch(corpus, pending)
                pending = []
        if pending:
            self._read_batch(corpus, pending)
        return corpus

    def _read_batch(self, corpus: TrainingPass, docs: List[Doc]) -> None:
        seq_starts, cols = self.templates.columns_for_docs(docs, component=self.name)
        corpus.hashes.append(self.templates.hash_columns(cols, seq_starts))  # `hashes` of each Doc
        if self.vectors is not None:
            rows, table = self.vectors.rows_of_docs(docs, self.name, corpus.vector_width)
            corpus.vector_width, corpus.vector_table = table.shape[1], table
            corpus.vector_rows.append(rows)

    def build_for_training(self, corpus: TrainingPass, tag_names: Sequence[str],
                           unknown_tag: Callable[[str], None]) -> Dict[tuple, List[Sample]]:
        """Feature table and zero weights over `tag_names` from a `read_training`
        pass (consumed); returns the first epoch's samples (`training_sample`'s)
        by `training_key` for the trainer's cache. A gold tag outside `tag_names` calls
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
        width = corpus.vector_width  # None without vector features, or without a training token
        with self._vector_width(width):
            samples = self.build_with_samples(corpus.hashes, golds, len(tag_names), **self._layout(width))
        if self.vectors is not None:  # each sample with its tokens' vector rows
            rows = numpy.concatenate(corpus.vector_rows)
            corpus.vector_rows.clear()
            starts = numpy.concatenate([[0], numpy.cumsum([len(g) for g in golds])])
            samples = [VectorSample(ptr, attrs, gold, rows[starts[i]:starts[i + 1]], corpus.vector_table)
                       for i, (ptr, attrs, gold) in enumerate(samples)]
        primed: Dict[tuple, List[Sample]] = {}
        for signature, sample in zip(corpus.signatures, samples):
            primed.setdefault(self.training_key(signature, sample[2]), [sample])
        return primed

    def training_signature(self, doc: Doc) -> bytes:
        """The 128-bit digest of `source_signature`: what a cached sample is checked against."""
        return digest(self.source_signature(doc))

    @staticmethod
    def training_key(signature: bytes, gold: numpy.ndarray) -> tuple:
        """Everything a training sample is a function of, as a dict key."""
        return (signature, gold.tobytes())

    def training_sample(self, doc: Doc, gold: numpy.ndarray) -> Sample:
        """(pos_ptr, attrs, gold) of one Doc and its gold tag ids, or a `VectorSample`."""
        if self.vectors is None:
            return (*self.features_of(doc), gold)
        self.require_built()
        rows, table = self.vectors.rows_of_docs([doc], self.name, self.vectors.width)
        return VectorSample(*self.features_of(doc), gold, rows, table)

    def expand_samples(self, samples: List[Sample]) -> List[Sample]:
        """The samples the CRF steps read: each `VectorSample` made (pos_ptr, attrs, gold, values)."""
        if self.vectors is None:
            return samples
        out = []
        for s in samples:
            if isinstance(s, VectorSample):
                ptr, attrs, vals = self.vectors.valued([0, len(s.gold)], s.ptr, s.attrs, s.rows, s.table)
                s = (ptr, attrs, s.gold, vals)
            out.append(s)
        return out

    def featurize(self, docs: Sequence[Doc]) -> Tuple[numpy.ndarray, ...]:
        """Known feature ids of a batch of Docs as (seq_starts, pos_ptr, attrs) (as `features_of`
        per Doc); with vector features, their values as a fourth array (template features: 1)."""
        self.require_built()
        t = self.templates
        seq_starts, cols = t.columns_for_docs(docs, component=self.name)
        pos_ptr, attrs = self.table.lookup_columns(cols, seq_starts, t.tcols, t.toffs, t.tlen, t.tseed)
        if self.vectors is None:
            return seq_starts, pos_ptr, attrs
        if not seq_starts[-1]:
            return seq_starts, pos_ptr, attrs, numpy.zeros(0, dtype=numpy.float32)
        rows, table = self.vectors.rows_of_docs(docs, self.name, self.vectors.width)
        return (seq_starts, *self.vectors.valued(seq_starts, pos_ptr, attrs, rows, table))

    def predict(self, docs: Sequence[Doc], marginals: bool = False):
        """Per Doc: (Viterbi label ids, per-token label marginals or None)."""
        ss, ptr, attrs, *values = self.featurize(docs)
        vals = values[0] if values else None
        labels = self.viterbi(ss, ptr, attrs, vals)
        marg = self.marginals(ss, ptr, attrs, vals) if marginals else None
        return [(labels[ss[i]:ss[i + 1]], None if marg is None else marg[ss[i]:ss[i + 1]])
                for i in range(len(docs))]

    def features_of(self, doc: Doc) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(pos_ptr, attrs) of one Doc: its side of a training sample."""
        return self.lookup(self.hashes(doc))

    def _file_meta(self) -> dict:
        """The vector features' settings and width (nothing without them)."""
        if self.vectors is None:
            return {}
        return {"vectors": {**self.vectors.settings, "width": self.vectors.width}}

    def _read_file_meta(self, meta: dict) -> None:
        saved = meta.get("vectors")
        if saved is None and self.vectors is None:
            return
        if saved is None or self.vectors is None:
            has, lacks = ("has", "lacks") if saved is not None else ("lacks", "has")
            raise ValueError(f"[{self.name}] the CRF model file {has} word-vector features and the component's "
                             f"model {lacks} them (spacy_adf.CRF.v2 vectors): model file and config do not "
                             "belong together")
        width = saved.get("width") if isinstance(saved, dict) else None
        if not isinstance(width, int) or width < 1:
            raise ValueError("the CRF model's vector settings are incomplete or corrupt (no width)")
        mine = self.vectors.settings
        theirs = {k: saved.get(k) for k in mine}
        if theirs != mine:
            raise ValueError(f"[{self.name}] the CRF model was trained with vector features {theirs}, the "
                             f"component's model has {mine}: model file and config do not belong together")
        self.vectors.width = width

    def source_signature(self, doc: Doc) -> numpy.ndarray:
        """What the features of `doc` are a function of: the raw token
        attributes when every column is built in, else the columns."""
        self.templates.check_doc(doc, self.name)
        source = self.templates.source_attributes(doc)
        return self.templates.columns_for(doc) if source is None else source
