"""How many epochs a shipped training config runs, and the overrides that
change it: shared by the segmentation and training-process benchmarks (one
module, so neither imports the other)."""
from pathlib import Path
from typing import List


def epochs_of(config: Path) -> int:
    """The config's number of epochs: max_epochs, or for a streamed corpus
    (max_epochs = -1) its steps over the steps of one epoch (the shipped
    streaming configs evaluate once per epoch)."""
    from spacy.util import load_config

    t = load_config(config, interpolate=False)["training"]
    if int(t["max_epochs"]) >= 0:
        return int(t["max_epochs"])
    return (int(t["max_steps"]) + 1) // int(t["eval_frequency"])


def epoch_overrides(config: Path, epochs: int, steps_per_epoch: int) -> List[str]:
    """Overrides for `epochs` epochs of `steps_per_epoch` steps: max_epochs,
    or max_steps where the config streams its corpus."""
    from spacy.util import load_config

    if int(load_config(config, interpolate=False)["training"]["max_epochs"]) >= 0:
        return ["--training.max_epochs", str(epochs)]
    return ["--training.max_steps", str(epochs * steps_per_epoch - 1)]
