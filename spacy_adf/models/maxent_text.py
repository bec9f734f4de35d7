"""The text model of `adf_textcat`: bag-of-n-gram features (an NgramFeaturizer
and the index of those seen in training) and a MaxEnt over them; Docs in,
P(label | doc) out. Training samples are (ids int32, vals float32, gold id)."""
from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy
from spacy.tokens import Doc

from ..core.maxent import MaxEntModel, train_maxent_online
from ..core.params import SparseGrad
from ..features.ngrams import FEATURES_KEY, FeatureIndex, NgramFeaturizer, stack_rows
from ..serialization.framed import pack, read_model
from .sparse_model import SparseModel, checked_label_count

FORMAT = "spacy_adf.maxent"
VERSION = 2
_DTYPES = {"keys": "uint64", "weights": "float32"}


def _stack(samples) -> Tuple[numpy.ndarray, ...]:
    ptr, ids, vals = stack_rows([(s[0], s[1]) for s in samples])
    return ptr, ids, vals, numpy.array([s[2] for s in samples], dtype=numpy.int32)


class MaxEntText(SparseModel):
    def __init__(self, featurizer: NgramFeaturizer, name: str = "adf_textcat") -> None:
        super().__init__(name)
        self.featurizer = featurizer
        self.index: Optional[FeatureIndex] = None

    def build(self, docs: Sequence[Doc], n_labels: int) -> None:
        """The feature index of the training Docs; zero weights."""
        index = self.featurizer.build_index(docs)
        self.set(index, MaxEntModel(n_labels, len(index)))

    def set(self, index: Optional[FeatureIndex], maxent: Optional[MaxEntModel]) -> None:
        self._set_params(maxent)
        self.index = index

    def features_of(self, doc: Doc) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(ids, vals) of the known features of one Doc."""
        self.require_built()
        return self.index.lookup(*self.featurizer.hashes(doc))

    def predict_proba(self, docs: Sequence[Doc]) -> numpy.ndarray:
        """P(label | doc), float64 (n_docs, n_labels), columns in label order."""
        maxent = self.params
        if not docs:
            return numpy.zeros((0, maxent.n_labels), dtype=numpy.float64)
        ptr, ids, vals = self.featurizer.featurize(docs, self.index)
        return maxent.predict_proba(ptr, ids, vals)

    @staticmethod
    def training_signature(doc: Doc) -> Any:
        """What the features of `doc` are a function of: its precomputed
        features (the dict itself) if it has them, else its text."""
        pre = doc.user_data.get(FEATURES_KEY) if doc.user_data else None
        return pre if pre is not None else doc.text

    def training_sample(self, doc: Doc, gold: int) -> tuple:
        """(ids, vals, gold) of one Doc and its gold label id."""
        return (*self.features_of(doc), gold)

    def online_steps(self, state, grad: SparseGrad, samples: List[tuple], minibatch: int,
                     perceptron: bool, *, on_done: Optional[Callable[[float], None]] = None) -> float:
        """On-line steps, always in this thread (`on_done` gets the result at once)."""
        self.hold_pending(state)
        total = train_maxent_online(self._params, state, grad, *_stack(samples), minibatch=minibatch,
                                    perceptron=perceptron)
        if on_done is None:
            return total
        on_done(total)
        return 0.0

    def accumulate_gradient(self, grad: SparseGrad, samples: List[tuple], perceptron: bool) -> float:
        return self.params.accumulate_gradient(*_stack(samples), grad, perceptron=perceptron)

    def batch_objective(self, samples: List[tuple]) -> Callable:
        """f(w) -> (summed log-likelihood, gradient) over `samples`, w set into
        the model (as float32) and evaluated in float64; no prior is added."""
        maxent = self.params
        ptr, ids, vals, gold = _stack(samples)

        def objective(w: numpy.ndarray) -> Tuple[float, numpy.ndarray]:
            w = numpy.ascontiguousarray(w, dtype=numpy.float64)
            if w.shape != (maxent.n_weights,):
                raise ValueError(f"w has shape {w.shape}, the model has {maxent.n_weights} weights")
            maxent.set_weights(w.astype(numpy.float32))
            return maxent.dense_objective(w, ptr, ids, vals, gold)

        return objective

    def memory(self) -> dict:
        maxent = self.training_params
        return {"n_weights": maxent.n_weights, "n_features": maxent.n_features,
                "n_labels": maxent.n_labels, "model_bytes": maxent.nbytes + self.index.nbytes}

    def to_bytes(self) -> bytes:
        if not self.is_built:
            return pack(FORMAT, VERSION, {}, {"initialized": False})
        maxent = self.params
        arrays = {"keys": numpy.asarray(self.index.keys, dtype=numpy.uint64),
                  "weights": numpy.asarray(maxent.weights, dtype=numpy.float32)}
        return pack(FORMAT, VERSION, arrays, {"initialized": True, "n_labels": maxent.n_labels})

    def from_bytes(self, data: bytes, *, expected_labels: int) -> "MaxEntText":
        meta, arrays = read_model(data, FORMAT, VERSION, _DTYPES, "adf_textcat model")
        if not meta.get("initialized"):
            self.set(None, None)
            return self
        arrays = arrays()
        n_labels = checked_label_count(meta, expected_labels, "adf_textcat model")
        try:
            index = FeatureIndex(arrays["keys"].astype(numpy.uint64))
            maxent = MaxEntModel(n_labels, len(index), arrays["weights"].astype(numpy.float32))
        except ValueError as e:
            raise ValueError(f"the model data is inconsistent: {e}") from None
        self.set(index, maxent)
        return self
