"""What every sparsely trained model (the linear-chain CRF, the MaxEnt text
model) shares: weights in a GroupedParams, read only through `params`, which
settles pending lazy updates and background steps first (docs/architecture.md,
"Lazy updates")."""
from contextlib import contextmanager
from typing import Iterator, Optional

import numpy

from ..core.adf import SparseADF
from ..core.params import GroupedParams


class SparseModel:
    def __init__(self, name: str) -> None:
        self.name = name  # for error messages: the component's name
        self._params: Optional[GroupedParams] = None
        self._pending: Optional[SparseADF] = None
        self._running = None  # on-line steps started on the background thread, not yet collected

    @property
    def is_built(self) -> bool:
        return self._params is not None

    def _set_params(self, params: Optional[GroupedParams]) -> None:
        self.await_steps()
        self._params = params
        self._pending = None

    def require_built(self) -> None:
        if self._params is None:
            raise ValueError(
                f"[{self.name}] is not initialized: call nlp.initialize() or load a trained pipeline"
            )

    @property
    def params(self) -> GroupedParams:
        """The weights, with every pending lazy update applied."""
        self.require_built()
        self.settle()
        return self._params

    def await_steps(self) -> None:
        """Wait for the on-line steps running in the background, if any (a failure in them is raised here)."""
        running, self._running = self._running, None
        if running is not None:
            running.wait()

    @property
    def training_params(self) -> GroupedParams:
        """The weights with lazy updates still pending: only the trainer reads
        this (settling after every batch would cost O(all weights))."""
        self.require_built()
        self.await_steps()
        return self._params

    def hold_pending(self, state: Optional[SparseADF]) -> None:
        """Keep the lazy updates of `state` pending (settling another one's first)."""
        self.await_steps()
        if self._pending is not None and self._pending is not state:
            self._pending.flush()
        self._pending = state

    def settle(self) -> None:
        """Apply the pending lazy updates (cheap when there are none)."""
        self.await_steps()
        if self._pending is not None:
            self._pending.flush()
            self._pending = None

    @contextmanager
    def swapped_weights(self, weights) -> Iterator[None]:
        """Use other weights (a SparseADF: its averages) until the block ends."""
        params = self.params
        if isinstance(weights, SparseADF):
            weights = weights.averaged_weights()
        backup = params.weights
        params.set_weights(numpy.asarray(weights, dtype=numpy.float32))
        try:
            yield
        finally:
            params.set_weights(backup)


def checked_label_count(meta: dict, expected: int, what: str) -> int:
    """The label count of a model file's metadata, checked against `expected` (if >= 0)."""
    n_labels = meta.get("n_labels")
    if not isinstance(n_labels, int):
        raise ValueError(f"the {what} data is incomplete or corrupt (no label count)")
    if expected >= 0 and n_labels != expected:
        raise ValueError(
            f"the {what} has {n_labels} labels but the component config lists "
            f"{expected}: model file and cfg do not belong together"
        )
    return n_labels
