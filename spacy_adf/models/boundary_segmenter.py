"""Word segmentation as one binary decision per character gap with a kernel SVM,
without spaCy pipeline concerns: docs/architecture.md, "The boundary segmenter"."""
from typing import Iterable, Optional, Tuple

import numpy
import scipy.sparse

from ..features.char_units import DEFAULT_UNIT_RULES, apply_unit_rules, check_unit_rules
from ..features.boundary import BoundaryVocab, check_window, gap_keys, gap_units
from ..features.dictionary import WordDictionary
from ..serialization.framed import pack, unpack
from .boundary_segmenter_decode import segment_starts
from .kernel_forms import BinaryKernelModel

FEATURES_FORMAT = "spacy_adf.boundary_features"
DICTIONARY_FORMAT = "spacy_adf.boundary_dictionary"
DICTIONARY_VERSION = 1


def concat_units(units) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """One (codes, bounds) over a batch of (codes, bounds) items, and each item's unit offset (len + 1)."""
    codes = [numpy.asarray(u[0], dtype=numpy.uint32) for u in units]
    offsets = numpy.zeros(len(codes) + 1, dtype=numpy.int64)
    offsets[1:] = numpy.cumsum([c.shape[0] for c in codes])
    bounds = [numpy.asarray(u[1], dtype=numpy.int64)[1:] + offsets[k] for k, u in enumerate(units)]
    all_bounds = numpy.concatenate([numpy.zeros(1, dtype=numpy.int64)] + bounds)
    all_codes = numpy.concatenate(codes) if codes else numpy.zeros(0, dtype=numpy.uint32)
    # empty runs (an item without units) add repeated bounds: harmless, but drop them
    return all_codes, numpy.unique(all_bounds), offsets


class BoundarySegmenter(BinaryKernelModel):
    """Boundary features + a kernel SVM; its parts are a kernel model's plus
    the user dictionary (``dictionary``, None: no dictionary features), last
    because files written before it have none."""

    PARTS = ("features", "support_vectors", "classifier", "dictionary")
    what = "segmenter"
    one_class_error = "the training data must have both word boundaries and gaps inside words"

    def __init__(self, window: int = 3):
        super().__init__("pke_segmenter")
        self.vocab = BoundaryVocab(check_window(window))
        self.unit_rules: str = DEFAULT_UNIT_RULES  # saved with the features
        self.dictionary: Optional[WordDictionary] = None  # set before `examples` builds the vocabulary

    @property
    def window(self) -> int:
        return self.vocab.window

    @property
    def n_inputs(self) -> int:
        return len(self.vocab)

    def lexicon(self, codes, bounds) -> Optional[numpy.ndarray]:
        """The units' dictionary lengths (`WordDictionary.gap_lengths`), None without a dictionary."""
        return None if self.dictionary is None else self.dictionary.gap_lengths(codes, bounds)

    def examples(self, items: Iterable[Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]], min_count: int = 1,
                 build_vocab: bool = True) -> Tuple[scipy.sparse.csr_matrix, numpy.ndarray]:
        """The training matrix (binary CSR, a row per gap) and labels (+1: a word
        starts after the gap) of (codes, bounds, gold word-start flags) items;
        builds the vocabulary first when `build_vocab`."""
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

    def segment(self, codes, bounds) -> numpy.ndarray:
        """uint8 word-start flag per unit (features, ids and classifier in C)."""
        if self.classifier is None:
            raise ValueError("the segmenter has no classifier: initialize / train it first")
        starts = segment_starts(self.vocab, self.classifier, codes, bounds, self.lexicon(codes, bounds))
        return apply_unit_rules(starts, codes, bounds, self.unit_rules)

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

    def dictionary_to_bytes(self) -> bytes:
        if self.dictionary is None:
            return b""
        words = numpy.frombuffer(self.dictionary.text_bytes, dtype=numpy.uint8)
        return pack(DICTIONARY_FORMAT, DICTIONARY_VERSION, {"words": words},
                    {"max_word": self.dictionary.max_word, "n_words": len(self.dictionary)})

    def dictionary_from_bytes(self, data: bytes) -> "BoundarySegmenter":
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
