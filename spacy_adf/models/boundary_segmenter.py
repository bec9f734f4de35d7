"""Word segmentation as one binary decision per character gap with a
polynomial-kernel SVM (Kudo & Matsumoto 2003, JWS), without spaCy pipeline
concerns (the `pke_segmenter` component and the benchmark share it):
boundary features and their vocabulary (`features/boundary.pyx`), training
(libsvm support vectors, or the primal trainer), the classifier form (PKB,
PKI, PKE) rebuilt from the trained SVM without retraining, segmentation of
unit sequences in C, and the serialization of the trained parts.

Units and runs are those of the CRF segmenter (`features/char_units.py`):
``codes`` (uint32 per unit) and run ``bounds``; a word never spans a run
boundary.

A model with a user dictionary (``dictionary``, `features/dictionary.pyx`)
adds the dictionary features of each gap to its window features, in
training and in segmentation alike; the dictionary is saved with the model.
"""
from typing import Iterable, Optional, Tuple

import numpy
import scipy.sparse

from ..features.char_units import DEFAULT_UNIT_RULES, apply_unit_rules, check_unit_rules
from ..features.boundary import BoundaryVocab, check_window, gap_keys, gap_units
from ..features.dictionary import WordDictionary
from ..kernels import KernelClassifier, PrimalSVM, SupportVectors
from ..kernels.progress import Progress
from ..serialization.framed import pack, unpack
from .boundary_decode import segment_starts
from .kernel_forms import (build_forms, check_support_vectors, check_trainer, load_checked_classifier,
                           train_model)

__all__ = ["BoundarySegmenter", "concat_units"]

FEATURES_FORMAT = "spacy_adf.boundary_features"
DICTIONARY_FORMAT = "spacy_adf.boundary_dictionary"
DICTIONARY_VERSION = 1


def concat_units(units) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """One (codes, bounds) over a batch of (codes, bounds) items, and the
    unit offset of each item (len + 1), so a batch is segmented in one call."""
    codes = [numpy.asarray(u[0], dtype=numpy.uint32) for u in units]
    offsets = numpy.zeros(len(codes) + 1, dtype=numpy.int64)
    offsets[1:] = numpy.cumsum([c.shape[0] for c in codes])
    bounds = [numpy.asarray(u[1], dtype=numpy.int64)[1:] + offsets[k] for k, u in enumerate(units)]
    all_bounds = numpy.concatenate([numpy.zeros(1, dtype=numpy.int64)] + bounds)
    all_codes = numpy.concatenate(codes) if codes else numpy.zeros(0, dtype=numpy.uint32)
    # empty runs (an item without units) add repeated bounds: harmless, but drop them
    return all_codes, numpy.unique(all_bounds), offsets


class BoundarySegmenter:
    """Boundary features + a kernel SVM. Trained state: the feature
    vocabulary (``features``), the support vectors (``support_vectors``,
    None after the primal trainer), the classifier (``classifier``) and the
    user dictionary (``dictionary``, None: no dictionary features), each
    serialized on its own; `PARTS` is their load order (the classifier is
    checked against the vocabulary; the dictionary came last, so files
    written before it have none)."""

    PARTS = ("features", "support_vectors", "classifier", "dictionary")

    def __init__(self, window: int = 3):
        self.vocab = BoundaryVocab(check_window(window))
        self.support_vectors: Optional[SupportVectors] = None
        self.primal: Optional[PrimalSVM] = None  # trainers "primal", "online": every subset weight (not saved)
        self.classifier: Optional[KernelClassifier] = None
        self.train_stats: dict = {}
        self.unit_rules: str = DEFAULT_UNIT_RULES  # saved with the features
        self.dictionary: Optional[WordDictionary] = None  # set before `examples` builds the vocabulary
        self.progress = Progress("pke_segmenter")  # training's console lines

    @property
    def window(self) -> int:
        return self.vocab.window

    def lexicon(self, codes, bounds) -> Optional[numpy.ndarray]:
        """The dictionary lengths of the units (`WordDictionary.gap_lengths`),
        None without a dictionary: the extra input of every feature call."""
        return None if self.dictionary is None else self.dictionary.gap_lengths(codes, bounds)

    # ------------------------------------------------------------ training

    def examples(self, items: Iterable[Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]], min_count: int = 1,
                 build_vocab: bool = True) -> Tuple[scipy.sparse.csr_matrix, numpy.ndarray]:
        """The training matrix (binary CSR, one row per gap) and labels (+1:
        a word starts after the gap, -1: not) of (codes, bounds, starts)
        items (starts: a bool per unit, True where a gold word starts);
        builds the vocabulary from the gaps' features first when
        `build_vocab` (features in fewer than `min_count` gaps dropped)."""
        items = list(items)
        codes, bounds, _ = concat_units([(c, b) for c, b, _ in items])
        starts = numpy.concatenate([numpy.asarray(s, dtype=bool) for _, _, s in items]) if items else \
            numpy.zeros(0, dtype=bool)
        with self.progress.running(f"features of {max(len(bounds) - 1, 0):,} runs ({len(codes):,} units)"):
            lexicon = self.lexicon(codes, bounds)
            if build_vocab:
                self.vocab = BoundaryVocab.from_keys(gap_keys(codes, bounds, self.window, lexicon), self.window,
                                                     min_count)
            indptr, indices = self.vocab.gap_ids(codes, bounds, lexicon)
        y = numpy.where(starts[gap_units(bounds) + 1], 1, -1).astype(numpy.int64)
        X = scipy.sparse.csr_matrix((numpy.ones(indices.shape[0]), indices, indptr),
                                    shape=(indptr.shape[0] - 1, len(self.vocab)))
        X.sort_indices()
        return X, y

    def train(self, X, y, degree: int = 3, C: float = 1.0, trainer: str = "libsvm", cache_size: float = 1000.0,
              max_iter: int = -1, seed: int = 0, epochs: int = 0, merge_duplicates: bool = False) -> float:
        """Fit the SVM: "libsvm" (support vectors: any classifier form;
        identical gaps merged with `merge_duplicates`), "primal" (liblinear
        on the explicit subset features, identical gaps merged into one
        weighted example: PKE only) or "online" (averaged PA-I over the
        subset features, streamed; `epochs` passes, <= 0: the default, their
        order from `seed`; PKE only). ``max_iter``: the solver's iteration
        limit (<= 0: libsvm none, liblinear 1000). Returns the seconds;
        `train_stats` gets the details."""
        check_trainer(trainer, "pke")
        if len(set(numpy.asarray(y).tolist())) < 2:
            raise ValueError("the training data must have both word boundaries and gaps inside words")
        return train_model(self, X, y, trainer, degree, C, cache_size=cache_size, max_iter=max_iter, epochs=epochs,
                           seed=seed, merge_duplicates=merge_duplicates)

    def build(self, kind: str = "pke", sigma: float = 0.0, xi: int = 1) -> float:
        """(Re)build the classifier form from the support vectors, or PKE
        from the primal weights, without retraining; returns seconds."""
        trained = [t for t in (self.support_vectors, self.primal) if t is not None]
        (self.classifier,), seconds = build_forms("segmenter", kind, trained, sigma, xi, self.progress,
                                                  self.classifier)
        return seconds

    # ------------------------------------------------------------ segmentation

    def segment(self, codes, bounds) -> numpy.ndarray:
        """uint8 word-start flag per unit (features, ids and classifier in C)."""
        if self.classifier is None:
            raise ValueError("the segmenter has no classifier: initialize / train it first")
        starts = segment_starts(self.vocab, self.classifier, codes, bounds, self.lexicon(codes, bounds))
        return apply_unit_rules(starts, codes, bounds, self.unit_rules)

    # ------------------------------------------------------------ serialization
    # An untrained part (no support vectors, no classifier) is stored as b"".

    def features_to_bytes(self) -> bytes:
        return pack(FEATURES_FORMAT, 1, {"keys": self.vocab.keys},
                    {"window": self.window, "unit_rules": self.unit_rules})

    def features_from_bytes(self, data: bytes) -> "BoundarySegmenter":
        arrays, meta = unpack(data, FEATURES_FORMAT, 1, {"keys": "uint64"})
        if not isinstance(meta, dict) or "window" not in meta or "unit_rules" not in meta or "keys" not in arrays:
            raise ValueError("the boundary feature data is incomplete")
        self.unit_rules = check_unit_rules(meta["unit_rules"])
        self.vocab = BoundaryVocab(meta["window"], arrays["keys"])
        return self

    def support_vectors_to_bytes(self) -> bytes:
        return self.support_vectors.to_bytes() if self.support_vectors is not None else b""

    def support_vectors_from_bytes(self, data: bytes) -> "BoundarySegmenter":
        sv = SupportVectors.from_bytes(data) if data else None
        if sv is not None:
            check_support_vectors([sv], len(self.vocab))
        self.support_vectors = sv
        return self

    def classifier_to_bytes(self) -> bytes:
        return self.classifier.to_bytes() if self.classifier is not None else b""

    def dictionary_to_bytes(self) -> bytes:
        if self.dictionary is None:
            return b""
        words = numpy.frombuffer(self.dictionary.text_bytes, dtype=numpy.uint8)
        return pack(DICTIONARY_FORMAT, DICTIONARY_VERSION, {"words": words},
                    {"max_word": self.dictionary.max_word, "n_words": len(self.dictionary)})

    def dictionary_from_bytes(self, data: bytes) -> "BoundarySegmenter":
        """Load the dictionary (b"": none)."""
        if not len(data):
            self.dictionary = None
            return self
        arrays, meta = unpack(data, DICTIONARY_FORMAT, DICTIONARY_VERSION, {"words": "uint8"})
        if not isinstance(meta, dict) or not isinstance(meta.get("max_word"), int) or \
                not isinstance(meta.get("n_words"), int):
            raise ValueError("the boundary dictionary data is incomplete")
        dictionary = WordDictionary.from_text(meta["max_word"], arrays["words"].tobytes())
        if len(dictionary) != meta["n_words"]:
            raise ValueError(f"the boundary dictionary has {len(dictionary)} words, its header says "
                             f"{meta['n_words']}")
        self.dictionary = dictionary
        return self

    def classifier_from_bytes(self, data: bytes, kind: Optional[str] = None,
                              degree: Optional[int] = None) -> "BoundarySegmenter":
        """Load the classifier (after the features). ValueError for corrupt
        data; `MismatchedPartsError` for a classifier of another kind,
        degree or vocabulary size."""
        self.classifier = load_checked_classifier(data, len(self.vocab), kind, degree)
        return self
