"""ADF as a thinc optimizer, `spacy_adf.ADF.v1` (docs/training.md): spacy-adf's
components update through `sparse_state()` (a `SparseADF`, whose cost follows
the weights a batch touches), spaCy's own through the dense `__call__`."""
import math
from typing import Dict, Optional, Tuple, Union

import numpy
from thinc.api import Optimizer
from thinc.backends import get_array_ops
from thinc.config import registry

from ..core.adf import SparseADF
from ..core.params import GroupedParams

KeyT = Tuple[int, str]


class ADF(Optimizer):
    """Feature-frequency-adaptive on-line learning (Sun et al. 2014); the
    settings are in docs/training.md ("spacy_adf.ADF.v1"). On the sparse path
    `minibatch` samples make one step; on the dense path the window counts
    updates (dense_window) and L2 is a decoupled weight decay."""

    def __init__(
        self,
        learn_rate: float = 0.05,
        *,
        alpha: float = 0.995,
        beta: float = 0.6,
        window: Union[int, str] = "auto",
        sigma: Optional[float] = None,
        L2: float = 0.0,
        use_averages: bool = False,
        grad_clip: float = 0.0,
        dense_window: int = 100,
        minibatch: int = 1,
    ):
        if not isinstance(learn_rate, (int, float)) or isinstance(learn_rate, bool):
            raise ValueError(
                "ADF adapts its own per-feature learning rates; learn_rate must be a "
                f"positive number (the paper's c), not {type(learn_rate).__name__}"
            )
        for key, value in (("learn_rate", learn_rate), ("alpha", alpha), ("beta", beta), ("L2", L2),
                           ("grad_clip", grad_clip), ("sigma", 1.0 if sigma is None else sigma)):
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
                raise ValueError(f"optimizer setting {key} must be a finite number, got {value!r}")
        if learn_rate <= 0:
            raise ValueError(f"ADF learn_rate must be positive, got {learn_rate}")
        if grad_clip < 0:
            raise ValueError(f"ADF grad_clip must be >= 0 (0 = no clipping), got {grad_clip}")
        if not (0.0 < beta <= alpha <= 1.0):
            raise ValueError(f"ADF needs 0 < beta <= alpha <= 1, got alpha={alpha}, beta={beta}")
        if window != "auto" and (not isinstance(window, int) or isinstance(window, bool) or window < 1):
            raise ValueError(f"ADF window must be 'auto' or a positive number of samples, got {window!r}")
        if sigma is not None and sigma <= 0:
            raise ValueError(f"ADF sigma must be positive (or null for no prior), got {sigma}")
        if L2 < 0:
            raise ValueError(f"ADF L2 must be non-negative, got {L2}")
        if dense_window < 1:
            raise ValueError(f"ADF dense_window must be >= 1, got {dense_window}")
        if not isinstance(minibatch, int) or minibatch < 1:
            raise ValueError(f"ADF minibatch must be a positive integer, got {minibatch!r}")
        super().__init__(
            float(learn_rate),
            L2=float(L2),
            beta1=0.0,
            beta2=0.0,
            grad_clip=float(grad_clip),
            use_averages=use_averages,
            L2_is_weight_decay=True,
        )
        self.adf_alpha = float(alpha)
        self.adf_beta = float(beta)
        self.window = window
        self.sigma = sigma
        self.dense_window = int(dense_window)
        self.minibatch = int(minibatch)
        self.sparse_states: Dict[KeyT, SparseADF] = {}
        # what the components step along: the log-likelihood gradient, or
        # (Perceptron) f(gold) - f(prediction)
        self.objective = "loglik"
        self._dense_rates: Dict[KeyT, numpy.ndarray] = {}
        self._dense_counts: Dict[KeyT, numpy.ndarray] = {}

    def sparse_state(self, key: KeyT, params: GroupedParams, *, n_examples: int) -> SparseADF:
        """The ADF state of one grouped parameter block, created on first use
        (n_examples: the training set size, for window="auto" and sigma)."""
        state = self.sparse_states.get(key)
        if state is not None and state.params is params:
            return state
        n = max(int(n_examples), 1)
        window = max(n // 10, 1) if self.window == "auto" else int(self.window)
        alpha, beta = self._window_decay(n, window)
        l2 = self.L2 if self.sigma is None else 1.0 / (n * self.sigma ** 2)
        state = SparseADF(
            params,
            c=self.learn_rate,
            alpha=alpha,
            beta=beta,
            window=window,
            inv_n_sigma2=l2,
            grad_clip=self.grad_clip,
            use_averages=self.averages is not None,
        )
        self.sparse_states[key] = state
        if self.averages is not None:
            # spaCy passes optimizer.averages to use_params(); our components
            # read the averaged weights from the state when asked.
            self.averages[key] = state
        return state

    def _window_decay(self, n_examples: int, window: int) -> Tuple[float, float]:
        """(alpha, beta) applied at the end of each window of the sparse path."""
        return self.adf_alpha, self.adf_beta

    def __call__(self, key: KeyT, weights, gradient, *, lr_scale: float = 1.0):
        if len(gradient) < 1:
            return weights, gradient
        ops = get_array_ops(weights)
        self.nr_update[key] += 1
        nr_upd = self.nr_update[key]
        if self.grad_clip:
            gradient = ops.clip_gradient(gradient, self.grad_clip)
        xp = ops.xp
        rates = self._dense_rates.get(key)
        if rates is None or rates.shape != weights.shape:
            rates = xp.full(weights.shape, self.learn_rate, dtype="float32")
            self._dense_rates[key] = rates
            self._dense_counts[key] = xp.zeros(weights.shape, dtype="float32")
        counts = self._dense_counts[key]
        weights -= lr_scale * rates * gradient
        if self.L2 != 0:
            weights -= lr_scale * rates * self.L2 * weights
        counts += gradient != 0
        if nr_upd % self.dense_window == 0:
            u = counts / self.dense_window
            rates *= self.adf_alpha - u * (self.adf_alpha - self.adf_beta)
            counts.fill(0)
        gradient *= 0
        if self.averages is not None:
            if key not in self.averages:
                self.averages[key] = ops.alloc(weights.shape, dtype="float32")
            ops.update_averages(self.averages[key], weights, nr_upd)
        return weights, gradient


OBJECTIVES = ("loglik", "perceptron")


def is_perceptron(sgd, component: str) -> bool:
    """Whether the `SparseOptimizer` `sgd` steps along f(gold) - f(pred)
    (objective "perceptron") instead of the log-likelihood gradient."""
    objective = sgd.objective
    if objective not in OBJECTIVES:
        raise ValueError(
            f"[{component}] optimizer objective {objective!r} is not supported "
            f"(use one of {', '.join(OBJECTIVES)})"
        )
    return objective == "perceptron"


# The class itself is the registered factory: config keys are its arguments.
create_adf = registry.optimizers("spacy_adf.ADF.v1")(ADF)
