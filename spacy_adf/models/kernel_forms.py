"""What every kernel model (bunsetsu parser, kernel tagger, boundary
segmenter) offers and checks the same way: the classifier forms, the
trainers that can give them, option checks, the `KernelModel` protocol the
kernel components call, and the mismatch checks of loaded parts against the
model they belong to (`check_support_vectors`, `check_classifier`): the
same checks, with the same errors, for the three models."""
from typing import Optional, Protocol, Sequence

from ..kernels import KernelClassifier, SupportVectors, load_classifier
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


class KernelModel(Protocol):
    """A kernel model as its component sees it: a classifier (None before
    training) rebuilt in any form by `build`, and three serialized parts
    loaded in order (features, then what is checked against them)."""

    classifier: object

    def build(self, kind: str = "pke", sigma: float = 0.0, xi: int = 1) -> float: ...

    def features_to_bytes(self) -> bytes: ...

    def features_from_bytes(self, data: bytes) -> "KernelModel": ...

    def support_vectors_to_bytes(self) -> bytes: ...

    def support_vectors_from_bytes(self, data: bytes) -> "KernelModel": ...

    def classifier_to_bytes(self) -> bytes: ...

    def classifier_from_bytes(self, data: bytes, kind: Optional[str] = None,
                              degree: Optional[int] = None) -> "KernelModel": ...


def check_support_vectors(svs: Sequence[SupportVectors], n_features: int, n_sets: int = 1) -> None:
    """`MismatchedPartsError` unless there are `n_sets` trained SVMs (one,
    or one per pair of classes) over the model's `n_features` features."""
    if len(svs) != n_sets or any(sv.n_features != n_features for sv in svs):
        raise MismatchedPartsError("the support vectors do not match the classes or the feature "
                                   "vocabulary: the model files are mismatched")


def check_classifier(kind_found: str, n_features_found: int, degree_found: int, n_features: int,
                     kind: Optional[str] = None, degree: Optional[int] = None) -> None:
    """`MismatchedPartsError` if a loaded classifier is not of `kind` (the
    cfg's), or its number of features or its degree differ from the model's."""
    if kind is not None and kind_found != kind:
        raise MismatchedPartsError(f"the classifier file holds {kind_found.upper()}, the config says {kind!r}")
    if n_features_found != n_features or (degree is not None and degree_found != degree):
        raise MismatchedPartsError("the classifier does not match the feature vocabulary or the degree: "
                                   "the model files are mismatched")


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
        check_classifier(type(clf).__name__.lower(), clf.n_features, clf.degree, n_features, kind, degree)
    return clf
