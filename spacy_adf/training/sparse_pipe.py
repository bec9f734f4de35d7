"""What every trainable spacy-adf component (the CRF ones and `adf_textcat`)
shares: training inside `spacy train`, labels, parameter averaging, the
memory report and serialization.

Training: update() queues the batch's samples; finish_update(sgd) runs them,
because spaCy's loop calls update() before it hands over the optimizer. An
optimizer with `sparse_state()` (spacy_adf.ADF.v1, SGD.v1, Perceptron.v1)
gets sparse on-line steps whose cost is what the samples touch; any other
thinc optimizer gets the dense gradient of the whole queued batch.

A subclass provides:
- `_params`: its GroupedParams (CRFModel, MaxEntModel) or None before
  initialize(), and `_params_name` (part of the optimizer's key);
- `_training_samples(eg)`: the samples of one Example (may be empty);
- `_online_steps(state, samples, minibatch, perceptron)` and
  `_dense_gradient(samples, perceptron)` (which fills `self._grad`), both
  returning the summed log-likelihood (or minus the perceptron's mistakes);
- `_n_train_samples()`: the training set size in samples (ADF's window);
- `_model_bytes()`, `_load_model_bytes()`, `_load_cfg()` and, optionally,
  `_extra_parts()` for files next to "cfg" and "model".
"""
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import numpy
import srsly
from spacy.pipeline import TrainablePipe
from spacy.training import Example, validate_examples
from thinc.api import Optimizer

from ..core.adf import SparseADF
from ..optimizers.adf import is_perceptron
from .averaging import swap_in_params
from ..serialization.parts import SerializedParts


class SparseTrainablePipe(SerializedParts, TrainablePipe):
    _params_name = "weights"

    # ------------------------------------------------------------ state

    @property
    def _params(self):  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def _params_key(self):
        return (self.model.id, self._params_name)

    def _reset_training_state(self) -> None:
        """Forget the optimizer link, caches and queued samples."""
        self._adf: Optional[SparseADF] = None
        self._dirty = False
        self._cache: Dict[int, tuple] = {}
        self._pending: List[tuple] = []
        self._pending_losses: List[Dict[str, float]] = []

    def _require_model(self) -> None:
        if self._params is None:
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

    # ------------------------------------------------------------ labels

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self.cfg["labels"])

    @property
    def label_data(self) -> List[str]:
        return list(self.cfg["labels"])

    def _init_labels(self, labels: Optional[List[str]], found: Iterable[str]) -> None:
        """cfg["labels"] at initialize(): the given `labels` (in order, without
        repeats), else the labels added so far plus those `found` in the
        corpus, sorted. initialize() rebuilds the weights, so unlike
        add_label() this may replace the labels of an existing model."""
        if labels is not None:
            bad = [lab for lab in labels if not isinstance(lab, str) or not lab]
            if bad:
                raise ValueError(f"labels must be non-empty strings, got {bad[0]!r}")
            self.cfg["labels"] = list(dict.fromkeys(labels))
        else:
            self.cfg["labels"] = sorted(set(self.cfg["labels"]).union(found))

    def add_label(self, label: str) -> int:
        if not isinstance(label, str) or not label:
            raise ValueError(f"labels must be non-empty strings, got {label!r}")
        if self._params is not None:
            raise ValueError(
                f"[{self.name}] cannot add label {label!r} after initialization: the "
                "weights are laid out per label. Add labels before nlp.initialize()."
            )
        if label in self.cfg["labels"]:
            return 0
        self.cfg["labels"].append(label)
        return 1

    # ------------------------------------------------------------ training

    def _training_samples(self, eg: Example) -> List[tuple]:  # pragma: no cover - abstract
        raise NotImplementedError

    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optional[Optimizer] = None,
        losses: Optional[Dict[str, float]] = None,
    ) -> Dict[str, float]:
        """Queue the batch; the steps run in finish_update(), where the
        optimizer is known. The loss (-log-likelihood, or the number of
        perceptron mistakes) is added to `losses` there. Dropout is ignored."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, f"{type(self).__name__}.update")
        self._require_model()
        for eg in examples:
            self._pending.extend(self._training_samples(eg))
        self._pending_losses.append(losses)
        if sgd not in (None, False):
            self.finish_update(sgd)
        return losses

    def finish_update(self, sgd: Optimizer) -> None:
        pending, self._pending = self._pending, []
        loss_dicts, self._pending_losses = self._pending_losses, []
        if not pending:
            return
        perceptron = is_perceptron(sgd, self.name)
        params = self._params
        if hasattr(sgd, "sparse_state"):
            state = sgd.sparse_state(self._params_key, params, n_examples=self._n_train_samples())
            if self._adf is not None and state is not self._adf:
                self._adf.flush()  # a new optimizer: settle the old one's lazy decay
            self._adf = state
            total = self._online_steps(state, pending, getattr(sgd, "minibatch", 1), perceptron)
            self._dirty = True
        else:
            self._sync()
            self._adf = None
            total = self._dense_gradient(pending, perceptron)
            dense = (-self._grad.to_dense()).astype(numpy.float32)  # thinc minimises
            self._grad.clear()
            weights, _ = sgd(self._params_key, params.weights, dense)
            params.set_weights(weights)
        if loss_dicts:
            loss_dicts[-1][self.name] = loss_dicts[-1].get(self.name, 0.0) - total

    def get_loss(self, examples, scores):
        raise NotImplementedError(f"{type(self).__name__} computes its loss inside update()")

    @property
    def trainable_params(self):
        """The weights (a GroupedParams), for batch optimizers (L-BFGS)."""
        self._require_model()
        return self._params

    def use_params(self, params: Optional[dict]):
        """Swap in parameters (e.g. optimizer.averages) until the generator
        resumes; a plain generator, as spaCy's Language.use_params expects."""
        yield from swap_in_params(self, self._params, params)

    # ------------------------------------------------------------ memory

    def _memory_report(self, report: Dict[str, float]) -> Dict[str, float]:
        """Complete `report` (which has n_weights and model_bytes) with the
        training-time buffers and the per-weight figures."""
        n_weights = max(report["n_weights"], 1)
        train = report["model_bytes"]
        if self._grad is not None:
            train += self._grad.nbytes
        if self._adf is not None:
            train += self._adf.nbytes
            report["optimizer_bytes"] = self._adf.nbytes
        report["training_bytes"] = train
        report["inference_bytes_per_weight"] = report["model_bytes"] / n_weights
        report["training_bytes_per_weight"] = train / n_weights
        return report

    # ------------------------------------------------------------ serialization

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
