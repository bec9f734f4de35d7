"""Training of a sparse model inside `spacy train`: update() queues the batch's samples,
finish_update(sgd) runs them (docs/components.md, "Training inside spacy train")."""
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy
from spacy.training import Example

from ..core.adf import SparseADF
from ..core.params import GroupedParams, SparseGrad
from ..optimizers.adf import is_perceptron
from .contract import SparseOptimizer, TrainableModel
from .example_cache import ExampleCache


class SparseTrainer:
    """A component's training (a `contract.Trainer`)."""

    def __init__(self, name: str, model: TrainableModel, params_key: Tuple[int, str],
                 samples_of: Callable[[Example], List[Any]], n_samples: Callable[[], int], *,
                 preparation: Optional[Tuple[Callable[[], Any], Callable[[Any], None]]] = None) -> None:
        """samples_of(eg): the training samples of one Example (may be none);
        n_samples(): the training set size in samples; preparation: (get, set)
        of what preparing the examples needs beyond the saved model."""
        self.name = name
        self.model = model
        self.params_key = params_key
        self.samples_of = samples_of
        self._n_samples = n_samples
        self._sample_fraction = 1.0
        self._preparation = preparation
        self.cache = ExampleCache(lambda: max(2 * self.n_samples(), 100_000))
        self.background = False  # set by spacy_adf.background_steps.v1
        self.reset()

    def reset(self) -> None:
        """Forget the optimizer link, gradient buffer, cache and queue (after
        the model's weights were rebuilt or loaded)."""
        self.model.await_steps()
        self.state: Optional[SparseADF] = None
        self.grad: Optional[SparseGrad] = None
        self.cache.clear()
        self._queue: List[Any] = []
        self._losses: List[Dict[str, float]] = []

    def n_samples(self) -> int:
        """The training set size the optimizer sees, scaled by `train_on_fraction`."""
        full = self._n_samples()
        if self._sample_fraction == 1.0:
            return full
        return max(1, round(full * self._sample_fraction))

    def train_on_fraction(self, fraction: float) -> None:
        if not 0.0 < fraction <= 1.0:
            raise ValueError(f"{self.name}: the trained fraction must be in (0, 1], not {fraction}")
        self._sample_fraction = float(fraction)

    def export_state(self) -> Dict[str, Optional[numpy.ndarray]]:
        """What parameter mixing exchanges; the weights are the model's own array."""
        weights = self.model.params.weights  # .params applies the pending lazy updates
        state = self.state
        return {
            "weights": weights,
            "rates": state.learning_rates() if state is not None else None,
            "averages": state.averaged_weights() if state is not None and state.use_averages else None,
        }

    def bind_weights(self, weights: numpy.ndarray) -> None:
        self.model.params.set_weights(weights)

    def export_preparation(self) -> Any:
        """adf_segmenter: the lexicon's folds (see `contract.Trainer`)."""
        return self._preparation[0]() if self._preparation is not None else None

    def import_preparation(self, state: Any) -> None:
        if state is None:
            return
        if self._preparation is None:
            raise ValueError(f"[{self.name}] has no example preparation state to import")
        self._preparation[1](state)

    def queue(self, examples: Iterable[Example], losses: Dict[str, float]) -> None:
        for eg in examples:
            self._queue.extend(self.samples_of(eg))
        self._losses.append(losses)

    def finish(self, sgd) -> None:
        """Run the queued samples with `sgd`; the loss (-log-likelihood, or
        the number of perceptron mistakes) goes to the last losses dict."""
        samples, self._queue = self._queue, []
        loss_dicts, self._losses = self._losses, []
        if not samples:
            return
        if isinstance(sgd, SparseOptimizer):
            perceptron = is_perceptron(sgd, self.name)
            params = self.model.training_params
            state = sgd.sparse_state(self.params_key, params, n_examples=self.n_samples())
            self.state = state
            grad = self._grad_for(params)
            if self.background:
                self.model.online_steps(state, grad, samples, sgd.minibatch, perceptron,
                                        on_done=lambda total: self._add_loss(loss_dicts, total))
                return
            total = self.model.online_steps(state, grad, samples, sgd.minibatch, perceptron)
        else:
            self.model.hold_pending(None)  # settles the last sparse optimizer's updates
            self.state = None
            params = self.model.params
            grad = self._grad_for(params)
            total = self.model.accumulate_gradient(grad, samples, False)  # the log-likelihood's
            dense = (-grad.to_dense()).astype(numpy.float32)  # thinc minimises
            grad.clear()
            weights, _ = sgd(self.params_key, params.weights, dense)
            params.set_weights(weights)
        self._add_loss(loss_dicts, total)

    def _add_loss(self, loss_dicts: List[Dict[str, float]], total: float) -> None:
        if loss_dicts:
            loss_dicts[-1][self.name] = loss_dicts[-1].get(self.name, 0.0) - total

    def _grad_for(self, params: GroupedParams) -> SparseGrad:
        if self.grad is None or self.grad.params is not params:
            self.grad = SparseGrad(params)
        return self.grad

    def batch_objective(self, examples: Iterable[Example]) -> Callable:
        """The exact objective over `examples` for a batch optimizer (L-BFGS)."""
        self.model.settle()
        self.state = None
        return self.model.batch_objective([s for eg in examples for s in self.samples_of(eg)])

    def use_params(self, params: Optional[dict]) -> Iterator[None]:
        """Generator body of component.use_params(): the optimizer's averages
        swapped in until it resumes."""
        value = params.get(self.params_key) if params else None
        if value is None or not self.model.is_built:
            yield
            return
        with self.model.swapped_weights(value):
            yield

    def memory_report(self, report: Dict[str, float]) -> Dict[str, float]:
        """The model's report with the training buffers and per-weight figures."""
        n_weights = max(report["n_weights"], 1)
        train = report["model_bytes"]
        if self.grad is not None:
            train += self.grad.nbytes
        if self.state is not None:
            train += self.state.nbytes
            report["optimizer_bytes"] = self.state.nbytes
        report["training_bytes"] = train
        report["inference_bytes_per_weight"] = report["model_bytes"] / n_weights
        report["training_bytes_per_weight"] = train / n_weights
        return report

    def restart_from(self, exported: Dict[str, Optional[numpy.ndarray]], optimizer: SparseOptimizer) -> None:
        """Continue from `exported` with a new state of `optimizer` that starts
        from the exported rates: what follows depends on `exported` alone, so
        a distributed epoch can be redone or resumed with the same result."""
        if not isinstance(optimizer, SparseOptimizer):
            raise ValueError(f"{self.name}: restart_from needs a sparse on-line optimizer, "
                             f"not {type(optimizer).__name__}")
        self.model.settle()
        params = self.model.params  # the exported weights (read-only ones too, e.g. Ray's) copied in
        if params.weights.flags.writeable:
            numpy.copyto(params.weights, exported["weights"])
        else:  # weights loaded from bytes may be a read-only buffer
            params.set_weights(numpy.array(exported["weights"], dtype=numpy.float32))
        params = self.model.training_params
        self.state = optimizer.sparse_state(self.params_key, params, n_examples=self.n_samples())
        if exported.get("rates") is not None:
            self.state.set_learning_rates(exported["rates"])
