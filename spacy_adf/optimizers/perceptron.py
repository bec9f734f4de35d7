"""Structured perceptron (Collins 2002) and its averaged form: a SparseADF state
with c = 1 and alpha = beta = 1 applies the step f(x, gold) - f(x, prediction),
and averaging uses the state's lazy running means. Sparse path only."""
from thinc.config import registry

from .adf import ADF


class Perceptron(ADF):
    """averaged: evaluate and save the running mean of the weights instead of
    the last weights; minibatch: samples per step (predicted with the same weights)."""

    def __init__(self, *, averaged: bool = True, minibatch: int = 1):
        if not isinstance(averaged, bool):
            raise ValueError(f"Perceptron averaged must be true or false, got {averaged!r}")
        super().__init__(1.0, alpha=1.0, beta=1.0, window="auto", sigma=None, L2=0.0,
                         use_averages=averaged, minibatch=minibatch)
        self.averaged = averaged
        self.objective = "perceptron"

    def __call__(self, key, weights, gradient, *, lr_scale: float = 1.0):
        raise ValueError(
            "spacy_adf.Perceptron.v1 trains spacy-adf's components (adf_tagger, "
            "adf_segmenter, adf_textcat) only; it got a dense gradient from another "
            f"component ({key!r}). Give that component its own optimizer, or use "
            "spacy_adf.ADF.v1 / spacy_adf.SGD.v1."
        )


create_perceptron = registry.optimizers("spacy_adf.Perceptron.v1")(Perceptron)
