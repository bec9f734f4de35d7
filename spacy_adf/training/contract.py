"""Everything `training/` and `distributed/` call on what they train, as protocols
(docs/architecture.md, "The component contract"). Properties are left out of the runtime
checks (isinstance would read a model's weights); they are documented on the protocol."""
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Protocol, Tuple, runtime_checkable

import numpy

from ..core.adf import SparseADF
from ..core.params import GroupedParams, SparseGrad


@runtime_checkable
class SparseOptimizer(Protocol):
    """What an optimizer provides for sparse on-line training."""

    minibatch: int  # samples per step (the paper's on-line setting is 1)
    objective: str  # "loglik" (ADF, SGD) or "perceptron"

    def sparse_state(self, key: Tuple[int, str], params: GroupedParams, *, n_examples: int) -> SparseADF:
        """The optimizer state of one parameter block (created on first use)."""


class TrainableModel(Protocol):
    """A model a SparseTrainer trains (`models.sparse_model.SparseModel`)."""

    name: str

    @property
    def is_built(self) -> bool:
        """Whether the feature table and weights exist (initialize or load)."""

    def require_built(self) -> None:
        """ValueError naming the component if not `is_built`."""

    def await_steps(self) -> None:
        """Collect on-line steps still running in the background, if any."""

    @property
    def training_params(self) -> GroupedParams:
        """The weights with lazy updates still pending (for the optimizer)."""

    @property
    def params(self) -> GroupedParams:
        """The weights, with pending lazy updates applied."""

    def online_steps(self, state: SparseADF, grad: SparseGrad, samples: List[Any], minibatch: int,
                     perceptron: bool, *, on_done: Optional[Callable[[float], None]] = None) -> float:
        """On-line steps; the summed log-likelihood (perceptron: -mistakes).
        With on_done, the steps may run in the background and on_done gets it."""

    def accumulate_gradient(self, grad: SparseGrad, samples: List[Any], perceptron: bool) -> float:
        """Add the batch gradient to grad; the summed log-likelihood."""

    def batch_objective(self, samples: List[Any]) -> Callable:
        """f(w) -> (log-likelihood, gradient) in float64 over all weights."""

    def hold_pending(self, state: Optional[SparseADF]) -> None:
        """Keep the lazy updates of `state` pending (None: settle them)."""

    def settle(self) -> None:
        """Apply every pending lazy update to the weights."""

    def swapped_weights(self, weights) -> Iterator[None]:
        """A context in which the model predicts with `weights`."""

    def memory(self) -> Dict[str, float]:
        """{"n_weights", "model_bytes", ...}: what the model holds."""


@runtime_checkable
class DeclaresUpdateEffects(Protocol):
    """A component that says whether its update() only reads the Examples
    (then `spacy_internals.lean_update` need not copy them)."""

    update_reads_examples_only: bool


def reads_examples_only(component: object) -> bool:
    """Whether `component` declared that its update() only reads the
    examples (declaring nothing counts as writing)."""
    return isinstance(component, DeclaresUpdateEffects) and component.update_reads_examples_only is True


@runtime_checkable
class Updatable(Protocol):
    """A component spaCy's update loop calls (spaCy's TrainablePipe API)."""

    def update(self, examples: Iterable, *, drop: float = 0.0, sgd=None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]: ...


@runtime_checkable
class FinishesUpdates(Protocol):
    """A component spaCy's loop steps (``finish_update(sgd)`` when ``is_trainable``)."""

    is_trainable: bool

    def finish_update(self, sgd) -> None: ...


@runtime_checkable
class BatchTrainable(Protocol):
    """A component a batch optimizer trains (`training.lbfgs`); it also has
    the property ``trainable_params`` (the weights the objective maps to)."""

    def batch_objective(self, examples: Iterable) -> Callable:
        """f(w) -> (summed log-likelihood of `examples`, gradient), float64."""


class Trainer(Protocol):
    """What training/ and distributed/ call on a component's `SparseTrainer`."""

    background: bool  # run a batch's steps in the background while the next batch is read

    def train_on_fraction(self, fraction: float) -> None:
        """Train on `fraction` of the corpus (a shard)."""

    def export_state(self) -> Dict[str, Optional[numpy.ndarray]]:
        """{"weights", "rates", "averages"} (None where the optimizer keeps none)."""

    def restart_from(self, exported: Dict[str, Optional[numpy.ndarray]], optimizer: SparseOptimizer) -> None:
        """Continue from `exported` with a new state of `optimizer`."""

    def bind_weights(self, weights: numpy.ndarray) -> None:
        """Predict with `weights` from now on (no copy)."""

    def export_preparation(self) -> Any:
        """What preparing the examples needs beyond the saved model, or None."""

    def import_preparation(self, state: Any) -> None:
        """Restore what export_preparation gave (None: nothing)."""


@runtime_checkable
class TrainedByTrainer(Protocol):
    """A component trained through a `Trainer` (``trainer``)."""

    trainer: Trainer


@runtime_checkable
class Scoring(Protocol):
    """Anything with spaCy's score(examples, **cfg) (components, tokenizers)."""

    def score(self, examples: Iterable, **kwargs) -> Dict[str, Any]: ...


@runtime_checkable
class PairScoring(Protocol):
    """A component that can score (annotated, reference) Doc pairs."""

    def pair_scorer(self, **kwargs) -> Optional[Callable[[List], Dict]]:
        """score() over DocPairs, or None where it needs real Examples."""


@runtime_checkable
class PredictionScoring(Protocol):
    """A component that can score predict()'s output without annotating."""

    def predict(self, docs: Iterable) -> Any: ...

    def prediction_scorer(self, **kwargs) -> Optional[Callable]:
        """f(docs, preds, references) -> scores, or None."""
