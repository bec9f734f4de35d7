"""A left-to-right sequence tagger with pairwise polynomial-kernel SVMs, without
spaCy pipeline concerns: docs/architecture.md, "The kernel tagger"."""
import time
import zlib
from collections import Counter
from typing import Iterable, List, Optional, Sequence, Tuple

import numpy
import scipy.sparse
import srsly
from spacy.attrs import IS_SPACE, ORTH, POS, SENT_START, TAG
from spacy.parts_of_speech import NAMES as POS_NAMES
from spacy.strings import hash_string
from spacy.tokens import Doc

from ..features.bunsetsu import FeatureVocab
from ..features.window_ids import BOS, EOS, GROUP_PREFIX, WindowTable, feature_name
from ..kernels.left_to_right import decode
from ..kernels import SupportVectors
from ..kernels.progress import Progress
from ..kernels.pairwise import PairwiseClassifier, class_pairs
from ..serialization.framed import pack, unpack
from ..serialization.payloads import dump_payload, load_payload
from .kernel_forms import (KernelModel, MismatchedPartsError, build_forms, check_classifier,
                           check_support_vectors, check_trainer, train_binary)

FEATURE_GROUPS = tuple(GROUP_PREFIX)  # ("words", "pos")
POS_ATTRS = ("tag", "pos")            # token.tag_ (fine-grained, e.g. PTB) or token.pos_ (UPOS)
OUTSIDE = "O"
FEATURES_FORMAT = "spacy_adf.kernel_tagger.features"
FEATURES_VERSION = 1
SV_FORMAT = "spacy_adf.kernel_tagger.support_vectors"
CLF_FORMAT = "spacy_adf.kernel_tagger.classifier"
# the univ POS enum value -> the hash of its name (token.pos_), for POS_ATTRS "pos"
_POS_HASH = numpy.zeros(max(POS_NAMES) + 1, dtype=numpy.uint64)
for _k, _name in POS_NAMES.items():
    _POS_HASH[_k] = hash_string(_name) if _name else 0


def dynamic_names(tag: Optional[str]) -> Tuple[str, str]:
    """The dynamic feature strings of a previous tag (None: before the sentence)."""
    value = BOS if tag is None else tag
    return f"t-1={value}", f"t-2={value}"


class KernelTagger(KernelModel):
    """Window features + pairwise kernel SVMs + left-to-right decoding; class i
    is the tag ``classes[i]``, ``vocab`` maps feature strings to ids."""

    def __init__(self, groups: Sequence[str] = FEATURE_GROUPS, window: int = 2, pos_attr: str = "tag"):
        if pos_attr not in POS_ATTRS:
            raise ValueError(f"pos_attr must be one of {list(POS_ATTRS)}, not {pos_attr!r}")
        if int(window) != window or not 0 <= window <= 5:
            raise ValueError(f"window must be an integer 0..5, not {window!r}")
        super().__init__("pke_tagger")
        self.groups = tuple(groups)
        WindowTable({}, self.groups, int(window))  # validates the groups
        self.window = int(window)
        self.pos_attr = pos_attr
        self.classes: List[str] = []
        self.vocab = FeatureVocab()
        self._table: Optional[WindowTable] = None
        self._dynamic: Optional[numpy.ndarray] = None

    def doc_arrays(self, doc: Doc) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """(values (n, groups) uint64 string hashes, 0 for no value;
        sentence starts (int64 token offsets, first 0); whitespace mask)."""
        attrs = [ORTH if g == "words" else TAG if self.pos_attr == "tag" else POS for g in self.groups]
        arr = doc.to_array(attrs + [SENT_START, IS_SPACE]).astype(numpy.uint64)
        values = numpy.ascontiguousarray(arr[:, :len(self.groups)])
        if self.pos_attr == "pos" and "pos" in self.groups:
            g = self.groups.index("pos")
            values[:, g] = _POS_HASH[values[:, g].astype(numpy.int64)]
        starts = numpy.flatnonzero(arr[:, -2].astype(numpy.int64) == 1) if doc.has_annotation("SENT_START") \
            else numpy.zeros(0, dtype=numpy.int64)
        if len(doc) and (starts.shape[0] == 0 or starts[0] != 0):
            starts = numpy.concatenate([[0], starts])
        return values, starts.astype(numpy.int64), arr[:, -1].astype(bool)

    def sentences(self, doc: Doc) -> List[Tuple[int, int]]:
        """(start, end) token ranges of the Doc's sentences (without sentence annotation: one)."""
        _, starts, _ = self.doc_arrays(doc)
        bounds = starts.tolist() + [len(doc)]
        return [(bounds[k], bounds[k + 1]) for k in range(len(bounds) - 1)]

    def _token_value(self, token, group: str) -> str:
        if group == "words":
            return token.text
        return token.tag_ if self.pos_attr == "tag" else token.pos_

    def static_strings(self, doc: Doc, start: int, end: int) -> List[List[str]]:
        """The static feature strings of tokens start..end-1 of a sentence (the
        reference for `WindowTable.static_ids`; no feature for a missing POS)."""
        w = self.window
        values = [[self._token_value(doc[i], g) for g in self.groups] for i in range(start, end)]
        out = []
        for i in range(end - start):
            feats = []
            for g, group in enumerate(self.groups):
                prefix = GROUP_PREFIX[group]
                for d in range(-w, w + 1):
                    j = i + d
                    value = BOS if j < 0 else EOS if j >= end - start else values[j][g]
                    if value:
                        feats.append(feature_name(prefix, d, value))
            out.append(feats)
        return out

    def _dynamic_table(self) -> numpy.ndarray:
        """(2, K + 1) int32: the ids of "t-1=<class>" and "t-2=<class>", column K for <BOS>."""
        if self._dynamic is None:
            ids = self.vocab.ids
            names = [dynamic_names(c) for c in self.classes] + [dynamic_names(None)]
            self._dynamic = numpy.array([[ids.get(n[row], -1) for n in names] for row in (0, 1)],
                                        dtype=numpy.int32).reshape(2, len(names))
        return self._dynamic

    def _set_vocab(self, vocab: FeatureVocab, classes: Sequence[str]) -> None:
        self.vocab = vocab
        self.classes = list(classes)
        self._table = None
        self._dynamic = None

    def batch_arrays(self, docs: Sequence[Doc]):
        """(static ids (n, width) int32, sentence offsets int64, forced int32,
        token offset of each Doc) of a batch of Docs: the decoder's input."""
        if self._table is None:
            self._table = WindowTable(self.vocab.ids, self.groups, self.window)
        parts, starts, spaces, doc_off = [], [], [], [0]
        for doc in docs:
            values, s, space = self.doc_arrays(doc)
            parts.append(values)
            starts.append(s + doc_off[-1])
            spaces.append(space)
            doc_off.append(doc_off[-1] + len(doc))
        n = doc_off[-1]
        values = numpy.concatenate(parts) if parts else numpy.zeros((0, len(self.groups)), dtype=numpy.uint64)
        sent_off = numpy.concatenate(starts + [numpy.array([n], dtype=numpy.int64)])
        static = self._table.static_ids(values, sent_off)
        forced = numpy.full(n, -1, dtype=numpy.int32)
        if OUTSIDE in self.classes and spaces:
            forced[numpy.concatenate(spaces)] = self.classes.index(OUTSIDE)
        return static, sent_off, forced, numpy.asarray(doc_off, dtype=numpy.int64)

    def examples(self, items: Iterable[Tuple[Doc, Sequence[Optional[str]]]], classes: Sequence[str],
                 min_count: int = 1) -> Tuple[scipy.sparse.csr_matrix, numpy.ndarray]:
        """Training matrix (binary CSR, new vocabulary) and class ids (the seen ones of
        `classes`) of (Doc, gold tags) items; sentences with a None tag are left out."""
        docs, gold, skipped = [], [], 0
        counts: Counter = Counter()
        seen = set()
        for doc, tags in self.progress.counted(items, "reading gold decisions", "documents"):
            tags = list(tags)
            if len(tags) != len(doc):
                raise ValueError("a training item needs one gold tag per token")
            for start, end in self.sentences(doc):
                sent_tags = tags[start:end]
                if any(t is None for t in sent_tags):
                    skipped += 1
                    continue
                seen.update(sent_tags)
                for k, feats in enumerate(self.static_strings(doc, start, end)):
                    counts.update(feats)
                    counts[dynamic_names(sent_tags[k - 1] if k >= 1 else None)[0]] += 1
                    counts[dynamic_names(sent_tags[k - 2] if k >= 2 else None)[1]] += 1
                docs.append(doc[start:end].as_doc() if (start, end) != (0, len(doc)) else doc)
                gold.append(sent_tags)
        unknown = seen - set(classes)
        if unknown:
            raise ValueError(f"gold tags {sorted(unknown)} are not among the classes {list(classes)}")
        kept = [c for c in classes if c in seen]
        self._set_vocab(FeatureVocab.from_counts(counts, min_count), kept)
        self.train_stats = {"skipped_sentences": skipped}
        if not docs:
            return scipy.sparse.csr_matrix((0, len(self.vocab))), numpy.zeros(0, dtype=numpy.int32)
        y = numpy.array([kept.index(t) for tags in gold for t in tags], dtype=numpy.int32)
        static, sent_off, _, _ = self.batch_arrays(docs)
        return self.rows(static, sent_off, y), y

    def rows(self, static: numpy.ndarray, sent_off: numpy.ndarray, prev_classes: numpy.ndarray
             ) -> scipy.sparse.csr_matrix:
        """The decisions' feature sets (binary CSR, ids sorted per row): the static
        ids plus the dynamic ids of the previous tokens' `prev_classes`."""
        n = static.shape[0]
        k = len(self.classes)
        dyn = self._dynamic_table()
        pos = numpy.arange(n, dtype=numpy.int64)
        sent_start = numpy.repeat(sent_off[:-1], numpy.diff(sent_off))
        prev = numpy.asarray(prev_classes, dtype=numpy.int64)
        # the ids of "t-1=" and "t-2=" the class d tokens back (<BOS>: column k)
        back = [dyn[d - 1, numpy.where(pos - d >= sent_start, prev[numpy.maximum(pos - d, 0)], k)] for d in (1, 2)]
        full = numpy.sort(numpy.column_stack([static, *back]), axis=1)
        mask = full >= 0
        indptr = numpy.zeros(n + 1, dtype=numpy.int64)
        indptr[1:] = numpy.cumsum(mask.sum(axis=1))
        indices = full[mask].astype(numpy.int32)
        data = numpy.ones(indices.shape[0], dtype=numpy.float64)
        return scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, len(self.vocab)))

    def train(self, X, y, degree: int = 2, C: float = 1.0, cache_size: float = 1000.0,
              trainer: str = "libsvm", max_iter: int = -1, n_jobs: int = 1, epochs: int = 0,
              seed: int = 0, merge_duplicates: bool = False) -> float:
        """One binary SVM per pair of classes (i, j), i < j, y = +1 for i, by
        `train_binary` (in n_jobs worker processes: the same SVMs). Returns
        the seconds; ``train_stats["pairs"]`` gets each pair's details."""
        check_trainer(trainer, "pke")
        if int(n_jobs) != n_jobs or n_jobs < 1:
            raise ValueError(f"n_jobs must be an integer >= 1, not {n_jobs!r}")
        y = numpy.asarray(y)
        k = len(self.classes)
        if k < 2:
            raise ValueError("the training data must contain at least two different tags")
        start = time.perf_counter()
        settings = {"trainer": trainer, "degree": degree, "C": C, "cache_size": cache_size, "max_iter": max_iter,
                    "epochs": epochs, "seed": seed, "merge_duplicates": merge_duplicates}
        jobs = []
        for i, j in class_pairs(k):
            rows = numpy.flatnonzero((y == i) | (y == j))
            progress = Progress(f"{self.progress.label} pair {self.classes[i]}/{self.classes[j]}",
                                self.progress.interval, self.progress.quiet)
            jobs.append((X[rows], numpy.where(y[rows] == i, 1, -1), settings, progress,
                         [self.classes[i], self.classes[j]]))
        if n_jobs > 1 and len(jobs) > 1:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            with ProcessPoolExecutor(max_workers=min(n_jobs, len(jobs)),
                                     mp_context=multiprocessing.get_context("fork")) as pool:
                results = list(pool.map(_train_pair, jobs))
        else:
            results = [_train_pair(job) for job in jobs]
        models = [model for model, _ in results]
        stats = [info for _, info in results]
        self.support_vectors = models if trainer == "libsvm" else None
        self.primal = models if trainer != "libsvm" else None
        self.train_stats.update({"trainer": trainer, "n_jobs": int(n_jobs), "pairs": stats})
        return time.perf_counter() - start

    def build(self, kind: str = "pke", sigma: float = 0.0, xi: int = 1) -> float:
        """(Re)build the pairwise classifier in form `kind` without retraining; returns the seconds."""
        loaded = self.classifier.classifiers[0] if self.classifier is not None else None
        forms, seconds = build_forms("tagger", kind, self.support_vectors or self.primal or [], sigma, xi,
                                     self.progress, loaded)
        self.classifier = PairwiseClassifier(forms, len(self.classes))
        return seconds

    def tag_docs(self, docs: Sequence[Doc]) -> List[numpy.ndarray]:
        """The class ids (int32) of every token of each Doc (`kernels.left_to_right.decode`)."""
        if self.classifier is None:
            raise ValueError("the tagger has no classifier: initialize / train it first")
        static, sent_off, forced, doc_off = self.batch_arrays(docs)
        classes = decode(self.classifier, static, sent_off, self._dynamic_table(), forced)
        return [classes[doc_off[k]:doc_off[k + 1]] for k in range(len(docs))]

    def _features_content(self) -> dict:
        return {"strings": list(self.vocab.strings), "classes": list(self.classes)}

    def features_to_bytes(self) -> bytes:
        """The feature vocabulary and the class names (a versioned payload)."""
        return dump_payload(FEATURES_FORMAT, FEATURES_VERSION, self._features_content())

    def features_crc(self) -> int:
        """CRC32 of the features: the other parts carry it, so parts of different models do not load together."""
        return zlib.crc32(srsly.msgpack_dumps(self._features_content()))

    def features_from_bytes(self, data: bytes) -> "KernelTagger":
        _, msg = load_payload(data, FEATURES_FORMAT, [FEATURES_VERSION])
        if not (isinstance(msg, dict) and isinstance(msg.get("strings"), list)
                and isinstance(msg.get("classes"), list)):
            raise ValueError("the features data is not a kernel-tagger vocabulary")
        self._set_vocab(FeatureVocab(msg["strings"]), msg["classes"])
        return self

    def support_vectors_to_bytes(self) -> bytes:
        if self.support_vectors is None:
            return b""
        return pack(SV_FORMAT, 1, {}, {"n_classes": len(self.classes), "features_crc": self.features_crc(),
                                       "pairs": [sv.to_bytes() for sv in self.support_vectors]})

    def support_vectors_from_bytes(self, data: bytes) -> "KernelTagger":
        if not data:
            self.support_vectors = None
            return self
        _, meta = unpack(data, SV_FORMAT, 1, {})
        pairs = meta.get("pairs")
        if not isinstance(pairs, list) or not all(isinstance(b, bytes) for b in pairs):
            raise ValueError("the support-vector data lacks its pairs")
        svs = [SupportVectors.from_bytes(b) for b in pairs]
        k = len(self.classes)
        if meta.get("n_classes") != k or meta.get("features_crc") != self.features_crc():
            raise MismatchedPartsError("the support vectors do not match the classes or the feature "
                                       "vocabulary: the model files are mismatched")
        check_support_vectors(svs, len(self.vocab), n_sets=k * (k - 1) // 2)
        self.support_vectors = svs
        return self

    def classifier_to_bytes(self) -> bytes:
        """The pairwise classifier with the CRC of its features, b"" if none."""
        clf = self.classifier
        if clf is None:
            return b""
        return pack(CLF_FORMAT, 1, {}, {"features_crc": self.features_crc(), "classifier": clf.to_bytes()})

    def classifier_from_bytes(self, data: bytes, kind: Optional[str] = None,
                              degree: Optional[int] = None) -> "KernelTagger":
        """Load the classifier (after the features); `MismatchedPartsError` for parts of different models."""
        clf = None
        if data:
            _, meta = unpack(data, CLF_FORMAT, 1, {})
            if not isinstance(meta.get("classifier"), bytes):
                raise ValueError("the classifier data lacks its pairwise classifier")
            clf = PairwiseClassifier.from_bytes(meta["classifier"])
            if meta.get("features_crc") != self.features_crc():
                raise MismatchedPartsError("the classifier was built for another feature vocabulary: "
                                           "the model files are mismatched")
            check_classifier(clf.kind, clf.n_features, clf.degree, len(self.vocab), kind, degree)
            if clf.n_classes != len(self.classes):
                raise MismatchedPartsError("the classifier does not match the classes: the model files "
                                           "are mismatched")
        self.classifier = clf
        return self


def _train_pair(job):
    """(trained SVM, stats) of one pair (module-level: worker processes run it)."""
    X, y, settings, progress, pair = job
    info: dict = {}
    start = time.perf_counter()
    model = train_binary(X, y, **settings, progress=progress, stats=info)
    if isinstance(model, SupportVectors):
        info.update({"n_sv": model.n_sv, "n_pos_sv": model.n_pos, "n_neg_sv": model.n_neg})
    info["seconds"] = time.perf_counter() - start
    info["pair"] = pair
    return model, info
