"""What every sparsely trained model (the linear-chain CRF, the MaxEnt text
model) shares: weights in a GroupedParams and the optimizer state whose lazy
updates may still be pending on them.

ADF, SGD and the averaged perceptron decay the weights lazily: a weight that
no recent sample touched is brought up to date only when it is read. The
trainer hands the model that state after its steps (`hold_pending`); every
read of the weights goes through `params`, which applies the pending updates
first, so no caller can see stale weights.

The CRF's steps may also run on a background thread (`online_steps` with
an `on_done` callback) while Python prepares the next batch; every read of the
weights, the optimizer state or the model's buffers waits for them first
(`await_steps`), so no caller can see weights mid-update either.
"""
from contextlib import contextmanager
from typing import Iterator, Optional

import numpy

from ..core.adf import SparseADF
from ..core.params import GroupedParams


class SparseModel:
    name = "model"  # for error messages; components set their own name

    def __init__(self) -> None:
        self._params: Optional[GroupedParams] = None
        self._pending: Optional[SparseADF] = None
        self._running = None  # on-line steps started on the background thread, not yet collected

    @property
    def is_built(self) -> bool:
        return self._params is not None

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
        """Wait for the on-line steps running in the background, if any (their
        loss reaches its losses dict now; a failure in them is raised here)."""
        running, self._running = self._running, None
        if running is not None:
            running.wait()

    @property
    def training_params(self) -> GroupedParams:
        """The weights as the optimizer state sees them, lazy updates still
        pending: only the trainer reads this (settling after every batch
        would cost O(all weights))."""
        self.require_built()
        self.await_steps()
        return self._params

    def hold_pending(self, state: Optional[SparseADF]) -> None:
        """Remember an optimizer state whose lazy updates are not yet applied
        (settling the previous one first if it is another)."""
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
        """Use other weights (e.g. averages; a SparseADF gives its averaged
        weights) until the block ends."""
        params = self.params
        if isinstance(weights, SparseADF):
            weights = weights.averaged_weights()
        backup = params.weights
        params.set_weights(numpy.asarray(weights, dtype=numpy.float32))
        try:
            yield
        finally:
            params.set_weights(backup)
