"""`pke_tagger`: chunking by a left-to-right tagger voting with polynomial-kernel SVMs, an
adapter around `models.kernel_tagger.KernelTagger` (docs/components.md, "Kernel taggers").
"""
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import numpy
from spacy.attrs import IS_SPACE, POS, TAG
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from ..models.kernel_forms import check_classifier_options, check_trainer, check_trainer_settings, trainer_settings
from ..models.kernel_tagger import FEATURE_GROUPS, KernelTagger
from ..training.spacy_internals import set_score_weights
from .handled_calls import named_errors
from .kernel_component import KernelComponent
from .trainable import initialize_examples
from .targets import SpanTarget, make_target

# scheme names: the paper's IOB2 is spaCy-adf's "BIO" (B, I, O)
SCHEME_ALIASES = {"BIO": "BIO", "IOB2": "BIO", "BILUO": "BILUO"}


def check_scheme(scheme: str) -> str:
    if scheme not in SCHEME_ALIASES:
        raise ValueError(f"scheme must be one of {sorted(SCHEME_ALIASES)}, not {scheme!r}")
    return SCHEME_ALIASES[scheme]


@Language.factory(
    "pke_tagger",
    assigns=["doc.ents", "doc.spans"],
    default_config={
        "target": "spans:chunks",
        "scheme": "BIO",
        "pos_attr": "tag",
        "features": list(FEATURE_GROUPS),
        "window": 2,
        "degree": 2,
        "C": 1.0,
        "classifier": "pke",
        "sigma": 0.005,
        "xi": 1,
        "min_feature_count": 1,
        "trainer": "libsvm",
        "cache_size": 1000.0,
        "max_iter": -1,
        "epochs": 0,
        "merge_duplicates": False,
        "n_jobs": 1,
        "scorer": {"@scorers": "spacy_adf.tagger_scorer.v1"},
    },
    default_score_weights={"spans_chunks_f": 1.0, "spans_chunks_p": 0.0, "spans_chunks_r": 0.0},
)
def make_pke_tagger(
    nlp: Language, name: str, *, target: str, scheme: str, pos_attr: str, features: List[str], window: int,
    degree: int, C: float, classifier: str, sigma: float, xi: int, min_feature_count: int, trainer: str,
    cache_size: float, scorer: Optional[Callable], n_jobs: int = 1, max_iter: int = -1, epochs: int = 0,
    merge_duplicates: bool = False,
) -> "PKETagger":
    """Create a pke_tagger (settings: docs/components.md, "Kernel component settings")."""
    tagger = PKETagger(nlp.vocab, name, target=target, scheme=scheme, pos_attr=pos_attr, features=features,
                       window=window, degree=degree, C=C, classifier=classifier, sigma=sigma, xi=xi,
                       min_feature_count=min_feature_count, trainer=trainer, cache_size=cache_size,
                       scorer=scorer, n_jobs=n_jobs, max_iter=max_iter, epochs=epochs,
                       merge_duplicates=merge_duplicates)
    set_score_weights(nlp, name, tagger.target.score_weights)
    return tagger


class PKETagger(KernelComponent):
    """``pke_tagger``: its plain model is a `KernelTagger` (its ``features`` file holds the tags)."""

    role = "tagger"

    def __init__(
        self, vocab: Vocab, name: str = "pke_tagger", *, target: str = "spans:chunks", scheme: str = "BIO",
        pos_attr: str = "tag", features: Sequence[str] = FEATURE_GROUPS, window: int = 2, degree: int = 2,
        C: float = 1.0, classifier: str = "pke", sigma: float = 0.005, xi: int = 1, min_feature_count: int = 1,
        trainer: str = "libsvm", cache_size: float = 1000.0, scorer: Optional[Callable] = None,
        n_jobs: int = 1, max_iter: int = -1, epochs: int = 0, merge_duplicates: bool = False,
    ):
        check_classifier_options(classifier, degree, sigma, xi, C)
        check_trainer_settings(trainer, classifier, cache_size, max_iter, epochs)
        scheme = check_scheme(scheme)
        if min_feature_count < 1:
            raise ValueError("min_feature_count must be >= 1")
        if int(n_jobs) != n_jobs or n_jobs < 1:
            raise ValueError(f"n_jobs must be an integer >= 1, not {n_jobs!r}")
        self.target = make_target(target, scheme)
        if not isinstance(self.target, SpanTarget):
            raise ValueError(f"target must be 'spans:KEY' or 'ents' (chunks), not {target!r}")
        # KernelTagger checks pos_attr, features and window
        self._init_component(vocab, name, scorer, "pke_tagger", KernelTagger(features, window, pos_attr), {
            "target": target, "scheme": scheme, "pos_attr": pos_attr, "features": list(features),
            "window": int(window), "degree": int(degree), "C": float(C), "classifier": classifier,
            "sigma": float(sigma), "xi": int(xi), "min_feature_count": int(min_feature_count),
            "trainer": trainer, "cache_size": float(cache_size), "n_jobs": int(n_jobs), "labels": [], "stats": {},
            "max_iter": int(max_iter), "epochs": int(epochs), "merge_duplicates": bool(merge_duplicates),
        })

    @property
    def tag_names(self) -> List[str]:
        """The classes: the chunk tags seen in training, in the target's order."""
        return list(self.plain_model.classes)

    def _gold_items(self, examples: Iterable[Example]):
        for eg in examples:
            if len(eg.predicted) == 0:
                continue
            self._check_pos([eg.predicted])
            yield eg.predicted, self.target.gold(eg)

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[Sequence[str]] = None):
        """Train one SVM per pair of the scheme's tags for the examples' labels (or `labels`)."""
        method = f"{self.name}.initialize"
        cfg = self.cfg
        cfg["stats"] = {}
        if labels is None:
            found = set()
            # a pass of its own over the corpus before the decisions: say so
            examples = initialize_examples(get_examples, method, nlp)
            for eg in self.plain_model.progress.counted(examples, "scanning labels", "documents"):
                found.update(self.target.labels_in(eg))
            labels = sorted(found)
        cfg["labels"] = list(labels)
        tag_names = self.target.tag_names(cfg["labels"])
        with named_errors(self.name):
            X, y = self.plain_model.examples(self._gold_items(initialize_examples(get_examples, method, nlp)), tag_names,
                                             min_count=cfg["min_feature_count"])
        if X.shape[0] == 0 or len(self.plain_model.classes) < 2:
            raise ValueError(f"[{self.name}] the training examples need tokens of at least two chunk tags "
                             f"(found {self.plain_model.classes}); check the corpus and the target "
                             f"{cfg['target']!r}")
        seconds = self.plain_model.train(X, y, degree=cfg["degree"], C=cfg["C"], n_jobs=cfg.get("n_jobs", 1),
                                         **trainer_settings(cfg))
        cfg["stats"].update({"n_decisions": int(X.shape[0]), "n_features": len(self.plain_model.vocab),
                             "classes": list(self.plain_model.classes), "svm_seconds": seconds,
                             "training": self.plain_model.train_stats})
        self.set_classifier(cfg["classifier"])

    def _check_pos(self, docs: Sequence[Doc]) -> None:
        if "pos" not in self.cfg["features"]:
            return
        attr = TAG if self.cfg["pos_attr"] == "tag" else POS
        for doc in docs:
            # a Doc of whitespace only has nothing a tagger would tag
            if len(doc) and not doc.to_array([attr]).any() and not doc.to_array(IS_SPACE).all():
                raise ValueError(
                    f"[{self.name}] a Doc has no POS tags (token.{self.cfg['pos_attr']}_ is empty everywhere): "
                    f"put a tagger before {self.name} in the pipeline, or read the POS tags from the corpus "
                    "(e.g. spacy_adf.ConllCorpus.v1 with input_attrs = [\"tag\"]); the features need them"
                )

    def predict(self, docs: Iterable[Doc]) -> List[numpy.ndarray]:
        """The tag ids (int32, columns of `tag_names`) of each Doc's tokens."""
        self.require_trained()
        docs = list(docs)
        full = [doc for doc in docs if len(doc)]
        self._check_pos(full)
        tags = iter(self.plain_model.tag_docs(full) if full else ())
        return [next(tags) if len(doc) else numpy.zeros(0, dtype=numpy.int32) for doc in docs]

    def set_annotations(self, docs: Iterable[Doc], preds: List[numpy.ndarray]) -> None:
        names = self.plain_model.classes
        for doc, ids in zip(docs, preds):
            if len(doc) == 0:
                self.target.set_empty(doc)
                continue
            self.target.set(doc, [names[i] for i in numpy.asarray(ids).tolist()], None)

    def _score_settings(self) -> Dict:
        return {"target": self.target}

    def _check_cfg(self, cfg: Dict) -> None:
        check_classifier_options(cfg["classifier"], cfg["degree"], cfg["sigma"], cfg["xi"], cfg["C"])
        check_trainer(cfg["trainer"], cfg["classifier"])
        cfg["scheme"] = check_scheme(cfg["scheme"])
        make_target(cfg["target"], cfg["scheme"])  # raises for a target it cannot write

    def _cfg_loaded(self) -> None:
        self.target = make_target(self.cfg["target"], self.cfg["scheme"])

    def _new_plain_model(self) -> KernelTagger:
        tagger = KernelTagger(self.cfg["features"], self.cfg["window"], self.cfg["pos_attr"])
        tagger.train_stats = dict(self.cfg.get("stats", {}).get("training", {}))
        return tagger
