"""SGD with an exponentially decaying learning rate (the ADF paper's on-line
baseline): ADF with alpha = beta, so every rate shrinks by the same factor at
each window end and SGD shares ADF's sparse machinery (docs/training.md)."""
from typing import Optional, Tuple, Union

from thinc.config import registry

from .adf import ADF


class SGD(ADF):
    """gamma_t = learn_rate * decay^(t / n), t in samples, n the training set
    size; the rate is held constant within a window. The dense path shrinks
    it by decay^(1/10) every dense_window updates. The signature repeats
    ADF's (less alpha, beta) because thinc validates config keys against it."""

    def __init__(
        self,
        learn_rate: float = 0.1,
        *,
        decay: float = 0.9,
        window: Union[int, str] = "auto",
        sigma: Optional[float] = None,
        L2: float = 0.0,
        use_averages: bool = False,
        grad_clip: float = 0.0,
        dense_window: int = 100,
        minibatch: int = 1,
    ):
        if not isinstance(decay, (int, float)) or isinstance(decay, bool) or not (0.0 < decay <= 1.0):
            raise ValueError(f"SGD decay (the rate factor per pass) must be in (0, 1], got {decay!r}")
        per_window = float(decay) ** 0.1
        super().__init__(
            learn_rate, alpha=per_window, beta=per_window, window=window, sigma=sigma, L2=L2,
            use_averages=use_averages, grad_clip=grad_clip, dense_window=dense_window,
            minibatch=minibatch,
        )
        self.decay = float(decay)

    def _window_decay(self, n_examples: int, window: int) -> Tuple[float, float]:
        factor = self.decay ** (window / max(n_examples, 1))
        return factor, factor


create_sgd = registry.optimizers("spacy_adf.SGD.v1")(SGD)
