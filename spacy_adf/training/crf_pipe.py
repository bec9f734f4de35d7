"""What the CRF components (`adf_tagger`, `adf_segmenter`) add to the shared
sparse training (sparse_pipe.py): CRF sequences as samples, the on-line CRF
loop, the exact batch objective for L-BFGS, and the CRF model file.

A subclass provides `_example_data(eg)` -> (pos_ptr, attrs, gold) or None for
one training sequence, or `_example_sequences(eg)` for several, plus
`_extra_parts()` for its own files next to "cfg" and "model".
"""
from typing import Callable, Dict, Iterable, List

import numpy
from spacy.training import Example

from ..core.crf import CRFContext
from ..core.online import train_crf_online
from ..core.params import SparseGrad
from ..models.crf_format import crf_from_bytes, crf_to_bytes
from .sparse_pipe import SparseTrainablePipe


class CRFPipe(SparseTrainablePipe):
    n_tags: int  # set by subclasses (property)
    _params_name = "crf_weights"

    @property
    def crf(self):
        return self.model.attrs["crf"]

    @property
    def _params(self):
        return self.crf

    def _set_model(self, table, crf) -> None:
        self.model.attrs["table"] = table
        self.model.attrs["crf"] = crf
        self._grad = SparseGrad(crf)
        self._reset_training_state()

    def _reset_training_state(self) -> None:
        super()._reset_training_state()
        self._ctx = CRFContext()  # flat forward-backward buffers, reused

    # ------------------------------------------------------------ training

    def _training_samples(self, eg: Example) -> List[tuple]:
        return self._example_sequences(eg) if len(eg.predicted) else []

    def _example_sequences(self, eg: Example) -> List[tuple]:
        data = self._example_data(eg)
        return [] if data is None else [data]

    def _example_data(self, eg: Example):  # pragma: no cover - abstract
        raise NotImplementedError

    def _online_steps(self, state, samples, minibatch: int, perceptron: bool) -> float:
        return train_crf_online(self.crf, state, self._grad, samples, minibatch=minibatch,
                                ctx=self._ctx, perceptron=perceptron)

    def _dense_gradient(self, samples, perceptron: bool) -> float:
        if perceptron:  # only spacy_adf's optimizers set this, and they are sparse
            raise ValueError(f"[{self.name}] the perceptron objective needs a sparse optimizer")
        loglik = 0.0
        for ptr, attrs, gold in samples:
            loglik += self.crf.accumulate_gradient([0, len(gold)], ptr, attrs, gold,
                                                   self._grad, self._ctx)
        return loglik

    def _n_train_samples(self) -> int:
        """Training set size in optimizer samples (sets ADF's window q = n/10)."""
        return self.cfg.get("n_train_sequences") or self.cfg.get("n_train_examples", 0)

    # ------------------------------------------------------------ batch training

    def batch_objective(self, examples: Iterable[Example]) -> Callable:
        """f(w) -> (summed log-likelihood of `examples`, its gradient), both
        float64, with w a float64 vector over all weights (set into the
        model). Features are extracted once, here; no prior is added. Used by
        spacy_adf.training.lbfgs."""
        self._require_model()
        self._sync()
        self._adf = None
        ptrs, attrs, golds = [], [], []
        for eg in examples:
            for ptr, a, gold in self._training_samples(eg):
                ptrs.append(ptr)
                attrs.append(a)
                golds.append(gold)
        if not golds:
            raise ValueError(f"[{self.name}] batch_objective got no non-empty training example")
        lengths = numpy.array([len(g) for g in golds], dtype=numpy.int64)
        seq_starts = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int64)
        attr_base = numpy.cumsum([0] + [len(a) for a in attrs[:-1]]).astype(numpy.int64)
        pos_ptr = numpy.concatenate(
            [p[:-1] + base for p, base in zip(ptrs, attr_base)]
            + [numpy.array([attr_base[-1] + len(attrs[-1])], dtype=numpy.int64)]
        ).astype(numpy.int64)
        all_attrs = numpy.concatenate(attrs).astype(numpy.int32)
        all_gold = numpy.concatenate(golds).astype(numpy.int32)
        crf, grad, ctx = self.crf, self._grad, self._ctx

        def objective(w):
            crf.set_weights(numpy.asarray(w, dtype=numpy.float32))
            grad.clear()
            loglik = crf.accumulate_gradient(seq_starts, pos_ptr, all_attrs, all_gold, grad, ctx)
            dense = grad.to_dense()
            grad.clear()
            return float(loglik), dense

        return objective

    def memory_report(self) -> Dict[str, float]:
        """Bytes held by the model and, while training, by the optimizer
        state and gradient buffers; also per weight."""
        self._require_model()
        crf = self.crf
        table = self.model.attrs["table"]
        # preshed map: a 16-byte cell per slot, about 2 slots per key
        table_bytes = table.keys.nbytes + 32 * len(table)
        return self._memory_report({
            "n_weights": crf.n_weights,
            "n_features": crf.n_attrs,
            "model_bytes": crf.nbytes + table_bytes,
        })

    # ------------------------------------------------------------ serialization

    def _model_bytes(self) -> bytes:
        self._require_model()
        self._sync()
        return crf_to_bytes(self.model.attrs["table"], self.crf)

    def _load_model_bytes(self, data: bytes) -> None:
        table, crf = crf_from_bytes(data, expected_labels=self.n_tags)
        self._set_model(table, crf)

    def _load_cfg(self, cfg: dict) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
