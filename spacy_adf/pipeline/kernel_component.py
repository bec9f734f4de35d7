"""The shell shared by the kernel components (`pke_dependency`, `pke_tagger`, `pke_segmenter`):
the plain model carried by ``self.model``, `set_classifier`, and the files ``cfg`` (loading it
makes a new, untrained plain model), ``features``, ``support_vectors`` and ``classifier``,
checked against each other. A subclass gives `_check_cfg` and `_new_plain_model`."""
from typing import Dict, Optional

from spacy.pipeline import Pipe

from ..ml import PLAIN_MODEL, carrier
from ..models.kernel_forms import KernelModel, MismatchedPartsError, check_classifier_options, check_trainer
from ..serialization.parts import Parts, SerializedParts, read_versioned_cfg, versioned_cfg_bytes
from .handled_calls import HandledCalls, ScoredByScorer, named_errors

# the "format_version" of a kernel component's cfg file; the other files carry their own formats
FORMAT_VERSION = 1


class KernelComponent(HandledCalls, ScoredByScorer, SerializedParts, Pipe):
    role = "model"  # what the component is, in the untrained error ("parser", "tagger", ...)

    name: str
    cfg: Dict

    def _init_component(self, vocab, name: str, scorer, component: str, plain: KernelModel, cfg: Dict) -> None:
        """What every kernel component's __init__ sets, after its option checks."""
        self.vocab = vocab
        self.name = name
        self.scorer = scorer
        self.model = carrier(f"spacy_adf_{component}", plain, component)
        self.cfg = cfg

    @property
    def plain_model(self) -> KernelModel:
        return self.model.attrs[PLAIN_MODEL]

    def _set_plain_model(self, plain: KernelModel) -> None:
        self.model.attrs[PLAIN_MODEL] = plain

    @property
    def is_trained(self) -> bool:
        return self.plain_model.classifier is not None

    def require_trained(self) -> None:
        if not self.is_trained:
            raise ValueError(f"[{self.name}] the {self.role} is not trained: run nlp.initialize() or load a model")

    def set_classifier(self, kind: str, sigma: Optional[float] = None, xi: Optional[int] = None) -> float:
        """Rebuild the classifier in another form (or sigma / xi) without retraining; the seconds."""
        sigma = self.cfg["sigma"] if sigma is None else float(sigma)
        xi = self.cfg["xi"] if xi is None else int(xi)
        with named_errors(self.name):
            check_classifier_options(kind, self.cfg["degree"], sigma, xi, self.cfg["C"])
            check_trainer(self.cfg["trainer"], kind)
            seconds = self.plain_model.build(kind, sigma=sigma, xi=xi)
        self.cfg.update({"classifier": kind, "sigma": sigma, "xi": xi})
        self.cfg["stats"]["build_seconds"] = seconds
        return seconds

    def _parts(self) -> Parts:
        # in load order; the lambdas reach the model that loading the cfg made
        return {
            "cfg": (self._cfg_to_bytes, self._cfg_from_bytes),
            "features": (lambda: self.plain_model.features_to_bytes(), self._features_from_bytes),
            "support_vectors": (lambda: self.plain_model.support_vectors_to_bytes(),
                                lambda data: self._named(self.plain_model.support_vectors_from_bytes, data)),
            "classifier": (lambda: self.plain_model.classifier_to_bytes(),
                           lambda data: self._named(self.plain_model.classifier_from_bytes, data,
                                                    kind=self.cfg["classifier"], degree=self.cfg["degree"])),
        }

    def _named(self, load, data, **kwargs) -> None:
        with named_errors(self.name, MismatchedPartsError):  # corrupt data speaks for itself
            load(data, **kwargs)

    def _cfg_to_bytes(self) -> bytes:
        return versioned_cfg_bytes(self.cfg, FORMAT_VERSION)

    def _cfg_from_bytes(self, data: bytes) -> None:
        cfg = read_versioned_cfg(data, FORMAT_VERSION, self.name)
        try:
            with named_errors(self.name):
                self._check_cfg(cfg)
        except (KeyError, TypeError) as e:
            raise ValueError(f"[{self.name}] the cfg is incomplete ({e!r})") from None
        self.cfg.update(cfg)
        self._cfg_loaded()
        self._set_plain_model(self._new_plain_model())

    def _features_from_bytes(self, data: bytes) -> None:
        self.plain_model.features_from_bytes(data)
        self._check_features()

    def _check_cfg(self, cfg: Dict) -> None:
        """ValueError / KeyError for a loaded cfg this component cannot use (may normalise `cfg`)."""
        raise NotImplementedError

    def _cfg_loaded(self) -> None:
        """Update what the component derives from its cfg."""

    def _new_plain_model(self) -> KernelModel:
        """An untrained plain model of the current cfg."""
        raise NotImplementedError

    def _check_features(self) -> None:
        """ValueError if the loaded features disagree with the cfg."""
