"""What every kernel model (bunsetsu parser, kernel tagger, boundary
segmenter) shares: the classifier forms and trainers with their option
checks, `train_binary`, `build_forms`, the checks of loaded parts, the base
class `KernelModel` and `BinaryKernelModel` (the parser's and the segmenter's
training, forms and files). Trainers and settings: docs/components.md."""
import time
from typing import List, Optional, Sequence, Tuple, Union

import numpy

from ..kernels import (KernelClassifier, PrimalSVM, SupportVectors, load_classifier, make_classifier, train_online,
                       train_primal, train_svm)
from ..kernels.classifiers import PKE
from ..kernels.online import DEFAULT_EPOCHS
from ..kernels.pairwise import PairwiseClassifier
from ..kernels.progress import Progress

# what a trainer gives: support vectors (libsvm) or subset weights (primal, online)
TrainedSVM = Union[SupportVectors, PrimalSVM]

KINDS = ("pkb", "pki", "pke")
# "libsvm": support vectors, any classifier form; "primal" (`kernels/primal.py`)
# and "online" (`kernels/online.py`): subset weights, PKE only
TRAINERS = ("libsvm", "primal", "online")
# the trainers whose result is subset weights (PKE), not support vectors
SUBSET_TRAINERS = ("primal", "online")
# `train_binary`'s settings and defaults: every kernel component's options (`trainer_settings`)
TRAINER_SETTINGS = {"trainer": "libsvm", "cache_size": 1000.0, "max_iter": -1, "epochs": 0, "merge_duplicates": False}


class MismatchedPartsError(ValueError):
    """Serialized parts that belong to different models (or another configuration)."""


def check_classifier_options(kind: str, degree: int, sigma: float, xi: int, C: float) -> None:
    """ValueError for a classifier kind, degree, sigma, xi or C the kernel models do not support."""
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


class KernelModel:
    """What every kernel model holds: a classifier (None before training) that `build`
    rebuilds in any form from the trained SVMs, and `PARTS` in load order (checked
    against the features) by ``<part>_to_bytes`` / ``_from_bytes``, b"" if untrained."""

    PARTS = ("features", "support_vectors", "classifier")

    def __init__(self, label: str) -> None:
        # lists for the tagger: one per pair of classes
        self.support_vectors: Optional[Union[SupportVectors, List[SupportVectors]]] = None
        self.primal: Optional[Union[PrimalSVM, List[PrimalSVM]]] = None  # trainers "primal", "online" (not saved)
        self.classifier: Optional[Union[KernelClassifier, PairwiseClassifier]] = None
        self.train_stats: dict = {}
        self.progress = Progress(label)  # training's console lines


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


def check_epochs(epochs: int) -> int:
    """The online trainer's passes: an integer >= 1 (0 or less: `DEFAULT_EPOCHS`)."""
    if int(epochs) != epochs:
        raise ValueError(f"the number of passes (epochs) must be an integer, not {epochs!r}")
    return int(epochs) if epochs > 0 else DEFAULT_EPOCHS


def check_trainer_settings(trainer: str, kind: str, cache_size: float, max_iter: int, epochs: int) -> None:
    """ValueError for trainer settings (`TRAINER_SETTINGS`) that `train_binary` cannot use."""
    check_trainer(trainer, kind)
    if not cache_size > 0:
        raise ValueError(f"cache_size (MB) must be > 0, not {cache_size!r}")
    if int(max_iter) != max_iter:
        raise ValueError(f"max_iter must be an integer, not {max_iter!r}")
    check_epochs(epochs)


def trainer_settings(cfg: dict) -> dict:
    """The `train_binary` settings of a kernel component's cfg."""
    return {key: cfg[key] for key in TRAINER_SETTINGS}


def train_binary(X, y, trainer: str, degree: int, C: float, cache_size: float = 1000.0, max_iter: int = -1,
                 epochs: int = 0, seed: int = 0, merge_duplicates: bool = False,
                 progress: Optional[Progress] = None, stats: Optional[dict] = None) -> TrainedSVM:
    """One binary SVM on binary X (CSR) and labels y, settings as in docs/components.md
    ("Kernel component settings"; ``seed``: the online passes' order); `stats` gets the details."""
    epochs = check_epochs(epochs)
    if trainer == "online":
        return train_online(X, y, degree=degree, C=C, epochs=epochs, seed=seed, progress=progress, stats=stats)
    if trainer == "primal":
        return train_primal(X, y, degree=degree, C=C, merge=True, max_iter=max_iter if max_iter > 0 else 1000,
                            stats=stats, progress=progress)
    return train_svm(X, y, degree=degree, C=C, merge=merge_duplicates, stats=stats, progress=progress,
                     cache_size=cache_size, max_iter=max_iter)[0]


def build_forms(what: str, kind: str, trained: Sequence[TrainedSVM], sigma: float, xi: int, progress: Progress,
                loaded=None) -> Tuple[List[KernelClassifier], float]:
    """The classifiers of form `kind` of trained binary SVMs (one, or one per
    pair of classes), and the seconds. ValueError without SVMs (untrained, or
    the `loaded` classifier came from a subset trainer) or for a form they cannot give."""
    if not trained:
        # only a subset trainer leaves a PKE without support vectors
        trainer = loaded.stats.get("trainer") if isinstance(loaded, PKE) else None
        if trainer in SUBSET_TRAINERS:
            raise ValueError(f"this {what} was trained by the {trainer} trainer: its PKE cannot be rebuilt after "
                             "loading (the full subset weights are not saved) and PKB / PKI need support vectors "
                             '(trainer = "libsvm"): retrain')
        raise ValueError(f"the {what} has no trained SVMs: initialize / train it first")
    pairs = f" of {len(trained)} pairs" if len(trained) > 1 else ""
    if isinstance(trained[0], PrimalSVM):
        check_trainer(trained[0].trainer, kind)
        note = f"PKE{pairs} from {sum(p.n_subsets for p in trained):,} subset weights (sigma {sigma}, xi {xi})"
    else:
        note = f"{kind.upper()}{pairs} from {sum(sv.n_sv for sv in trained):,} support vectors"
    start = time.perf_counter()
    with progress.running(note):
        forms = [make_classifier(kind, t, sigma=sigma, xi=xi) if isinstance(t, SupportVectors)
                 else t.to_pke(sigma=sigma, xi=xi) for t in trained]
    return forms, time.perf_counter() - start


class BinaryKernelModel(KernelModel):
    """A kernel model with one binary SVM (the bunsetsu parser, the boundary
    segmenter), its parts checked against its `n_inputs` property; `what` names it in
    errors, `one_class_error` is the error for training labels of one class."""

    what = "model"
    one_class_error = "the training data must contain both classes"

    def train(self, X, y, degree: int = 3, C: float = 1.0, trainer: str = "libsvm", cache_size: float = 1000.0,
              max_iter: int = -1, epochs: int = 0, seed: int = 0, merge_duplicates: bool = False) -> float:
        """Fit the SVM by `train_binary`; returns the seconds (`train_stats`:
        the details; ``support_vectors`` or ``primal``: the result)."""
        check_trainer(trainer, "pke")
        if len(set(numpy.asarray(y).tolist())) < 2:
            raise ValueError(self.one_class_error)
        start = time.perf_counter()
        self.train_stats = {"trainer": trainer}
        trained = train_binary(X, y, trainer, degree, C, cache_size=cache_size, max_iter=max_iter, epochs=epochs,
                               seed=seed, merge_duplicates=merge_duplicates, progress=self.progress,
                               stats=self.train_stats)
        self.support_vectors, self.primal = (trained, None) if trainer == "libsvm" else (None, trained)
        return time.perf_counter() - start

    def build(self, kind: str = "pke", sigma: float = 0.0, xi: int = 1) -> float:
        """(Re)build the classifier in form `kind` without retraining; returns the seconds."""
        trained = [t for t in (self.support_vectors, self.primal) if t is not None]
        (self.classifier,), seconds = build_forms(self.what, kind, trained, sigma, xi, self.progress, self.classifier)
        return seconds

    def support_vectors_to_bytes(self) -> bytes:
        return self.support_vectors.to_bytes() if self.support_vectors is not None else b""

    def support_vectors_from_bytes(self, data: bytes):
        """Load the support vectors (after the features), checked against them."""
        sv = SupportVectors.from_bytes(data) if data else None
        if sv is not None:
            check_support_vectors([sv], self.n_inputs)
        self.support_vectors = sv
        return self

    def classifier_to_bytes(self) -> bytes:
        return self.classifier.to_bytes() if self.classifier is not None else b""

    def classifier_from_bytes(self, data: bytes, kind: Optional[str] = None, degree: Optional[int] = None):
        """Load the classifier (after the features); `MismatchedPartsError` for
        another ``kind`` or ``degree`` (if given), or another number of features."""
        clf = load_classifier(data) if data else None
        if clf is not None:
            check_classifier(type(clf).__name__.lower(), clf.n_features, clf.degree, self.n_inputs, kind, degree)
        self.classifier = clf
        return self
