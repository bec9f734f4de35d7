"""What every CRF component shares: training inside `spacy train` (sparse ADF
steps through `spacy_adf.ADF.v1`, a dense gradient for any other thinc
optimizer), parameter averaging, memory report and serialization.

A subclass provides `_example_data(eg)` -> (pos_ptr, attrs, gold) or None for
one training sequence, or `_example_sequences(eg)` for several, plus
`_extra_parts()` for its own files next to "cfg" and "model".
"""
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import numpy
import srsly
from spacy.pipeline import TrainablePipe
from spacy.training import Example, validate_examples
from thinc.api import Optimizer

from ..core.adf import SparseADF
from ..core.crf import CRFContext
from ..core.online import train_crf_online
from ..core.params import SparseGrad
from ..optimizers.adf import is_perceptron
from .averaging import swap_in_params
from .parts import SerializedParts
from .serialize import crf_from_bytes, crf_to_bytes


class CRFPipe(SerializedParts, TrainablePipe):
    n_tags: int  # set by subclasses (property)

    @property
    def crf(self):
        return self.model.attrs["crf"]

    def _set_model(self, table, crf) -> None:
        self.model.attrs["table"] = table
        self.model.attrs["crf"] = crf
        self._grad = SparseGrad(crf)
        self._reset_training_state()

    def _reset_training_state(self) -> None:
        """Forget the optimizer link, buffers, caches and queued examples."""
        self._ctx = CRFContext()
        self._adf: Optional[SparseADF] = None
        self._dirty = False
        self._cache: Dict[int, tuple] = {}
        self._pending: List[tuple] = []
        self._pending_losses: List[Dict[str, float]] = []

    @property
    def _params_key(self):
        return (self.model.id, "crf_weights")

    def _require_model(self):
        if self.crf is None:
            raise ValueError(
                f"[{self.name}] is not initialized: call nlp.initialize() or load a "
                "trained pipeline"
            )

    def _sync(self) -> None:
        """Apply the optimizer's pending lazy updates before weights are read."""
        if self._dirty and self._adf is not None:
            self._adf.flush()
        self._dirty = False

    def _cache_put(self, key: int, value) -> None:
        if len(self._cache) > max(2 * self.cfg.get("n_train_examples", 0), 100_000):
            self._cache.clear()  # a streamed corpus: don't hold every Doc
        self._cache[key] = value

    # ------------------------------------------------------------ training

    def _example_sequences(self, eg: Example) -> List[tuple]:
        data = self._example_data(eg)
        return [] if data is None else [data]

    def _example_data(self, eg: Example):  # pragma: no cover - abstract
        raise NotImplementedError

    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optional[Optimizer] = None,
        losses: Optional[Dict[str, float]] = None,
    ) -> Dict[str, float]:
        """Queue the batch; the CRF steps run in finish_update(), where the
        optimizer is known (spaCy's loop calls update(sgd=False) first). The
        loss is added to `losses` there."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, f"{type(self).__name__}.update")
        self._require_model()
        for eg in examples:
            if len(eg.predicted) == 0:
                continue
            self._pending.extend(self._example_sequences(eg))
        self._pending_losses.append(losses)
        if sgd not in (None, False):
            self.finish_update(sgd)
        return losses

    def finish_update(self, sgd: Optimizer) -> None:
        pending, self._pending = self._pending, []
        loss_dicts, self._pending_losses = self._pending_losses, []
        if not pending:
            return
        crf = self.crf
        if hasattr(sgd, "sparse_state"):
            state = sgd.sparse_state(self._params_key, crf,
                                     n_examples=self._n_train_sequences())
            if self._adf is not None and state is not self._adf:
                self._adf.flush()  # a new optimizer: settle the old one's lazy decay
            self._adf = state
            loglik = train_crf_online(
                crf, state, self._grad, pending, minibatch=getattr(sgd, "minibatch", 1),
                ctx=self._ctx, perceptron=is_perceptron(sgd, self.name),
            )
            self._dirty = True
        else:
            self._sync()
            self._adf = None
            loglik = 0.0
            for ptr, attrs, gold in pending:
                loglik += crf.accumulate_gradient(
                    [0, len(gold)], ptr, attrs, gold, self._grad, self._ctx
                )
            dense = (-self._grad.to_dense()).astype(numpy.float32)  # thinc minimises
            self._grad.clear()
            weights, _ = sgd(self._params_key, crf.weights, dense)
            crf.set_weights(weights)
        if loss_dicts:
            loss_dicts[-1][self.name] = loss_dicts[-1].get(self.name, 0.0) - loglik

    # ------------------------------------------------------------ batch training

    @property
    def trainable_params(self):
        """The CRF's weights (GroupedParams), for batch optimizers (L-BFGS)."""
        self._require_model()
        return self.crf

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
            if len(eg.predicted):
                for ptr, a, gold in self._example_sequences(eg):
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

    def _n_train_sequences(self) -> int:
        """Training set size in optimizer samples (sets ADF's window q = n/10)."""
        return self.cfg.get("n_train_sequences") or self.cfg.get("n_train_examples", 0)

    def get_loss(self, examples, scores):
        raise NotImplementedError(f"{type(self).__name__} computes its loss inside update()")

    def use_params(self, params: Optional[dict]):
        """Swap in parameters (e.g. optimizer.averages) until the generator
        resumes; a plain generator, as spaCy's Language.use_params expects."""
        yield from swap_in_params(self, self.crf, params)

    def memory_report(self) -> Dict[str, float]:
        """Bytes held by the model and, while training, by the optimizer
        state and gradient buffers; also per weight."""
        self._require_model()
        crf = self.crf
        table = self.model.attrs["table"]
        # preshed map: a 16-byte cell per slot, about 2 slots per key
        table_bytes = table.keys.nbytes + 32 * len(table)
        report = {
            "n_weights": crf.n_weights,
            "n_features": crf.n_attrs,
            "model_bytes": crf.nbytes + table_bytes,
        }
        train = report["model_bytes"]
        if self._grad is not None:
            train += self._grad.nbytes
        if self._adf is not None:
            train += self._adf.nbytes
            report["optimizer_bytes"] = self._adf.nbytes
        report["training_bytes"] = train
        report["inference_bytes_per_weight"] = report["model_bytes"] / max(crf.n_weights, 1)
        report["training_bytes_per_weight"] = train / max(crf.n_weights, 1)
        return report

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

    def _extra_parts(self) -> Dict[str, Tuple[Callable[[], bytes], Callable[[bytes], None]]]:
        """Further files: name -> (dump to bytes, load from bytes)."""
        return {}

    def _parts(self):
        parts = {
            "cfg": (lambda: srsly.json_dumps(self.cfg, indent=2).encode("utf8"),
                    lambda b: self._load_cfg(srsly.json_loads(b))),
        }
        parts.update(self._extra_parts())
        parts["model"] = (self._model_bytes, self._load_model_bytes)
        return parts
