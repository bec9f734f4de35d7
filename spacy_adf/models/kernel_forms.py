"""What every kernel model (bunsetsu parser, kernel tagger, boundary
segmenter) offers and checks the same way: the classifier forms, the
trainers that can give them, option checks, and loading a binary classifier
file checked against the model it belongs to."""
from typing import Optional

from ..kernels import KernelClassifier, load_classifier
from ..kernels.online import DEFAULT_EPOCHS

KINDS = ("pkb", "pki", "pke")
# "libsvm": the kernel SVM (support vectors, any classifier form); "primal":
# a linear SVM on the explicit subset features (`kernels/primal.py`), PKE
# only; "online": averaged passive-aggressive steps over the subset features,
# streamed example by example (`kernels/online.py`), PKE only, memory
# following the updated examples rather than the whole expansion
TRAINERS = ("libsvm", "primal", "online")
# the trainers whose result is subset weights (PKE), not support vectors
SUBSET_TRAINERS = ("primal", "online")


class MismatchedPartsError(ValueError):
    """Serialized parts that belong to different models (or to another
    configuration): a classifier of another kind, degree or vocabulary."""


def check_classifier_options(kind: str, degree: int, sigma: float, xi: int, C: float) -> None:
    """ValueError for a classifier kind, kernel degree, sigma, xi or C that
    the kernel models do not support."""
    if kind not in KINDS:
        raise ValueError(f"classifier must be one of {list(KINDS)}, not {kind!r}")
    if degree not in (1, 2, 3, 4):
        raise ValueError(f"degree must be 1, 2, 3 or 4 (the paper uses 2 and 3), not {degree!r}")
    if not sigma >= 0:
        raise ValueError(f"sigma must be >= 0, not {sigma!r}")
    if int(xi) != xi or xi < 1:
        raise ValueError(f"xi (minimum support of a PKE subset) must be an integer >= 1, not {xi!r}")
    if not C > 0:
        raise ValueError(f"C must be > 0, not {C!r}")


def check_trainer(trainer: str, kind: str) -> None:
    """ValueError for an unknown trainer, or a classifier form it cannot give."""
    if trainer not in TRAINERS:
        raise ValueError(f"trainer must be one of {list(TRAINERS)}, not {trainer!r}")
    if trainer in SUBSET_TRAINERS and kind != "pke":
        raise ValueError(f'the {trainer} trainer gives PKE only (subset weights, no support vectors): '
                         f'classifier {kind!r} needs trainer = "libsvm"')


def check_epochs(epochs: int, default: int = DEFAULT_EPOCHS) -> int:
    """The online trainer's passes: an integer >= 1 (0 or less: `default`)."""
    if int(epochs) != epochs:
        raise ValueError(f"the number of passes (epochs) must be an integer, not {epochs!r}")
    return int(epochs) if epochs > 0 else int(default)


def rebuild_error(what: str, classifier) -> Optional[str]:
    """The message for rebuilding a loaded model whose PKE came from a
    subset trainer (its full weights are not saved), else None."""
    trainer = (getattr(classifier, "stats", None) or {}).get("trainer")
    if trainer not in SUBSET_TRAINERS:
        return None
    return (f"this {what} was trained by the {trainer} trainer: its PKE cannot be rebuilt after loading "
            "(the full subset weights are not saved) and PKB / PKI need support vectors "
            '(trainer = "libsvm"): retrain')


def load_checked_classifier(data: bytes, n_features: int, kind: Optional[str] = None,
                            degree: Optional[int] = None) -> Optional[KernelClassifier]:
    """The binary classifier in `data` (None for b"", an untrained part).
    ValueError for corrupt data; `MismatchedPartsError` if it is not of
    ``kind`` ("pkb", "pki", "pke"), or its number of features or (given)
    ``degree`` differ from the model's: parts of different models."""
    clf = load_classifier(data) if data else None
    if clf is not None:
        if kind is not None and type(clf).__name__.lower() != kind:
            raise MismatchedPartsError(f"the classifier file holds {type(clf).__name__}, "
                                       f"the config says {kind!r}")
        if clf.n_features != n_features or (degree is not None and clf.degree != degree):
            raise MismatchedPartsError("the classifier does not match the feature vocabulary or "
                                       "degree: the model files are mismatched")
    return clf
