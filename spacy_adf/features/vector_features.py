"""Word-vector features of the sequence CRF (docs/training.md, "adf_tagger
settings"): the model keeps the attributes' keys and width, not the vectors."""
import math
from typing import List, Optional, Sequence, Tuple

import numpy
from spacy.strings import hash_string
from spacy.tokens import Doc
from spacy.util import registry

from .word_vectors import VectorRows, valued_features

MAX_VECTOR_OFFSET = 10
KEY_FORMAT = "spacy_adf.vector:{offset}:{dim}"


class WordVectorFeatures:
    """Settings (offsets, scale), and the width and attribute ids of a built model."""

    def __init__(self, offsets: Sequence[int] = (0,), scale: float = 1.0) -> None:
        if isinstance(offsets, (str, bytes)) or not isinstance(offsets, Sequence) or not offsets:
            raise ValueError(f"vector feature offsets must be a non-empty list of integers, got {offsets!r}")
        if any(not isinstance(o, int) or isinstance(o, bool) or abs(o) > MAX_VECTOR_OFFSET for o in offsets):
            raise ValueError(f"vector feature offsets must be integers from {-MAX_VECTOR_OFFSET} to "
                             f"{MAX_VECTOR_OFFSET}, got {list(offsets)!r}")
        if len(set(offsets)) != len(offsets):
            raise ValueError(f"vector feature offsets must be distinct, got {list(offsets)!r}")
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale <= 0:
            raise ValueError(f"vector feature scale must be a positive number, got {scale!r}")
        self.offsets: Tuple[int, ...] = tuple(int(o) for o in offsets)
        self.scale = float(scale)
        self.width: Optional[int] = None
        self.ids: Optional[numpy.ndarray] = None  # (offsets, width) int32, -1: not in the model
        self._binding = None

    @property
    def settings(self) -> dict:
        """What the model file records (with the width) and checks on load."""
        return {"offsets": list(self.offsets), "scale": self.scale}

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_binding"] = None  # the pipeline's table is not the model's
        return state

    def keys(self, width: int) -> numpy.ndarray:
        """The uint64 feature keys of the (offset, dimension) attributes, offset after offset."""
        keys = numpy.array([hash_string(KEY_FORMAT.format(offset=o, dim=d))
                            for o in self.offsets for d in range(width)], dtype=numpy.uint64)
        if len(keys) and keys.min() < 2:  # 0 and 1 are reserved (never seen)
            raise ValueError("a vector feature key collides with a reserved key")
        return keys

    def set_ids(self, width: Optional[int], table) -> None:
        """The attribute ids of every (offset, dimension) in `table`, -1 if pruned."""
        self.width = width
        if width is None:
            self.ids = None
            return
        ids = [table.get(int(k)) for k in self.keys(width)]
        self.ids = numpy.array(ids, dtype=numpy.int32).reshape(len(self.offsets), width)

    def table_of(self, docs: Sequence[Doc], component: str, width: Optional[int]) -> Tuple[numpy.ndarray, VectorRows, int]:
        """(float32 data, row cache, key attribute) of the Docs' vectors of `width` (None: any), cached."""
        vectors = docs[0].vocab.vectors
        b = self._binding
        if b is not None and b[0] is vectors and b[1] is vectors.data and b[2] == len(vectors.key2row):
            data = b[3]
        else:
            data = check_table(vectors, component, width)
            b = self._binding = (vectors, vectors.data, len(vectors.key2row), data,
                                 VectorRows(vectors.key2row), int(vectors.attr))
        if width is not None and data.shape[1] != width:
            check_table(vectors, component, width)  # raises
        return data, b[4], b[5]

    def rows_of_docs(self, docs: Sequence[Doc], component: str,
                     width: Optional[int]) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(int32 vector row of every token of the Docs (-1: none), float32 data)."""
        data, rows, attr = self.table_of(docs, component, width)
        keys = [doc.to_array(attr) for doc in docs if len(doc)]
        if not keys:
            return numpy.zeros(0, dtype=numpy.int32), data
        keys = numpy.ascontiguousarray(numpy.concatenate(keys) if len(keys) > 1 else keys[0], dtype=numpy.uint64)
        return rows.rows(keys), data

    def valued(self, seq_starts, ptr, attrs, rows, data) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """(pos_ptr, attrs, values) of `word_vectors.valued_features`."""
        if self.ids is None:
            raise ValueError("the vector features have no attribute ids: the model is not built")
        return valued_features(numpy.ascontiguousarray(ptr, dtype=numpy.int64), attrs, rows,
                               numpy.ascontiguousarray(seq_starts, dtype=numpy.int64), data, self.ids,
                               numpy.array(self.offsets, dtype=numpy.int32), self.scale)


def check_table(vectors, component: str, width: Optional[int]) -> numpy.ndarray:
    """The data of a spaCy Vectors table as float32 C-contiguous rows, checked."""
    hint = ("set [initialize] vectors to a pipeline or folder with vectors (spacy init vectors, or "
            "python -m spacy_adf vectors) before training, and load the pipeline with them")
    if vectors.mode != "default":
        raise ValueError(f"[{component}] the vector features read a table of word vectors, but the pipeline's "
                         f"vectors are in {vectors.mode!r} mode (only spaCy's default mode is supported)")
    data = vectors.data
    shape = tuple(data.shape)
    if len(shape) != 2 or shape[0] == 0 or shape[1] == 0 or not len(vectors.key2row):
        need = f" (width {width})" if width is not None else ""
        raise ValueError(f"[{component}] the model's vector features read the pipeline's word vectors{need}, "
                         f"but nlp.vocab.vectors is empty: {hint}")
    if width is not None and shape[1] != width:
        raise ValueError(f"[{component}] the pipeline's word vectors have {shape[1]} dimensions, but the model "
                         f"was trained with vectors of {width}: load the vectors it was trained with")
    return numpy.ascontiguousarray(numpy.asarray(data), dtype=numpy.float32)


@registry.misc("spacy_adf.vector_features.v1")
def vector_features(offsets: List[int] = [0], scale: float = 1.0) -> WordVectorFeatures:  # noqa: B006
    """Word vectors as real-valued CRF features (docs/training.md, "adf_tagger settings")."""
    return WordVectorFeatures(offsets, scale)
