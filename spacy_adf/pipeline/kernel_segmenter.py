"""`pke_segmenter`: word segmentation as one polynomial-kernel SVM decision per character gap
(`models.boundary_segmenter.BoundarySegmenter`), on a character Doc as `adf_segmenter`
(docs/components.md, "Kernel taggers").
"""
from pathlib import Path
from typing import Callable, Dict, Iterable, Optional, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab

from ..features.boundary import check_window
from ..features.char_units import doc_units
from ..features.dictionary import DEFAULT_MAX_WORD, MIN_WORD, WordDictionary, check_max_word
from ..models.boundary_segmenter import BoundarySegmenter, concat_units
from ..models.char_segmenter import gold_boundaries, read_user_dict
from ..models.kernel_forms import check_classifier_options, check_trainer_settings, trainer_settings
from ..scorers.segmentation import make_segmentation_scorer
from .handled_calls import named_errors
from .kernel_component import KernelComponent
from .segmenter import WordDocsFromUnits
from .trainable import initialize_examples


@Language.factory(
    "pke_segmenter",
    assigns=["token.text"],
    default_config={
        "window": 3,
        "degree": 3,
        "C": 1.0,
        "classifier": "pke",
        "sigma": 0.005,
        "xi": 1,
        "trainer": "libsvm",
        "min_feature_count": 1,
        "cache_size": 1000.0,
        "max_iter": -1,
        "epochs": 0,
        "merge_duplicates": False,
        "dict_features": False,
        "dict_max_word": DEFAULT_MAX_WORD,
        "scorer": {"@scorers": "spacy_adf.segmentation_scorer.v1", "boundaries": True},
    },
    default_score_weights={"token_f": 1.0, "boundary_acc": 0.0, "token_p": 0.0, "token_r": 0.0,
                           "oov_recall": None, "iv_recall": None, "oov_rate": None},
)
def make_pke_segmenter(
    nlp: Language, name: str, *, window: int, degree: int, C: float, classifier: str, sigma: float, xi: int,
    trainer: str, min_feature_count: int, cache_size: float, max_iter: int, scorer: Optional[Callable],
    epochs: int = 0, merge_duplicates: bool = False, dict_features: bool = False, dict_max_word: int = DEFAULT_MAX_WORD,
) -> "KernelSegmenter":
    """Create a pke_segmenter (docs/components.md, "Kernel component settings")."""
    return KernelSegmenter(nlp.vocab, name, window=window, degree=degree, C=C, classifier=classifier,
                           sigma=sigma, xi=xi, trainer=trainer, min_feature_count=min_feature_count,
                           cache_size=cache_size, max_iter=max_iter, scorer=scorer, epochs=epochs,
                           merge_duplicates=merge_duplicates, dict_features=dict_features,
                           dict_max_word=dict_max_word)


def _check_options(window, degree, C, classifier, sigma, xi, trainer, min_feature_count, cache_size, max_iter,
                   epochs, dict_features=False, dict_max_word=DEFAULT_MAX_WORD):
    check_window(window)
    if not isinstance(dict_features, bool):
        raise ValueError(f"dict_features must be true or false, not {dict_features!r}")
    check_max_word(dict_max_word)
    check_classifier_options(classifier, degree, sigma, xi, C)
    check_trainer_settings(trainer, classifier, cache_size, max_iter, epochs)
    if int(min_feature_count) != min_feature_count or min_feature_count < 1:
        raise ValueError(f"min_feature_count must be an integer >= 1, not {min_feature_count!r}")


class KernelSegmenter(WordDocsFromUnits, KernelComponent):
    """``pke_segmenter``: its plain model is a `BoundarySegmenter`."""

    role = "segmenter"

    def __init__(self, vocab: Vocab, name: str = "pke_segmenter", *, window: int = 3, degree: int = 3,
                 C: float = 1.0, classifier: str = "pke", sigma: float = 0.005, xi: int = 1,
                 trainer: str = "libsvm", min_feature_count: int = 1, cache_size: float = 1000.0,
                 max_iter: int = -1, scorer: Optional[Callable] = make_segmentation_scorer(True), epochs: int = 0,
                 merge_duplicates: bool = False, dict_features: bool = False, dict_max_word: int = DEFAULT_MAX_WORD):
        with named_errors(name):
            _check_options(window, degree, C, classifier, sigma, xi, trainer, min_feature_count, cache_size,
                           max_iter, epochs, dict_features, dict_max_word)
        self._init_component(vocab, name, scorer, "pke_segmenter", BoundarySegmenter(window), {
            "window": int(window), "degree": int(degree), "C": float(C), "classifier": classifier,
            "sigma": float(sigma), "xi": int(xi), "trainer": trainer, "min_feature_count": int(min_feature_count),
            "cache_size": float(cache_size), "max_iter": int(max_iter), "stats": {}, "epochs": int(epochs),
            "merge_duplicates": bool(merge_duplicates), "dict_features": dict_features,
            "dict_max_word": int(dict_max_word),
        })

    def add_label(self, label: str) -> int:
        raise ValueError(f"[{self.name}] decides word boundaries; it takes no labels")

    def gold_units(self, eg: Example):
        """(codes, bounds, gold word starts) of an example's predicted Doc."""
        codes, bounds, starts, _ = gold_boundaries(self.name, eg.predicted, eg.reference)
        return codes, bounds, starts

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   user_dict: Optional[Union[str, Path]] = None):
        """Train on the gold words of the examples; user_dict: the file of dict_features."""
        cfg = self.cfg
        cfg["stats"] = {}
        model = BoundarySegmenter(cfg["window"])
        model.dictionary = self._read_dictionary(user_dict)
        examples = initialize_examples(get_examples, f"{self.name}.initialize", nlp)
        # the corpus is read before any SVM line: a large one takes minutes
        items = [self.gold_units(eg) for eg in model.progress.counted(examples, "reading gold words", "documents")
                 if len(eg.predicted)]
        X, y = model.examples(items, min_count=cfg["min_feature_count"])
        if X.shape[0] == 0 or (y > 0).all() or (y < 0).all():
            raise ValueError(
                f"[{self.name}] initialize() needs segmented training examples with words of two or more "
                "characters and more than one word (reference Docs whose words are the gold "
                "segmentation): pass get_examples to nlp.initialize() (spacy train does), or load a "
                "trained pipeline"
            )
        seconds = model.train(X, y, degree=cfg["degree"], C=cfg["C"], **trainer_settings(cfg))
        self._set_plain_model(model)
        sv = model.support_vectors
        cfg["stats"].update({
            "n_examples": int(X.shape[0]), "n_positive": int((y > 0).sum()), "n_features": len(model.vocab),
            "avg_features": float(X.nnz / X.shape[0]), "svm_seconds": seconds,
            "n_sv": sv.n_sv if sv is not None else model.primal.n_sv, "training": model.train_stats,
        })
        self.set_classifier(cfg["classifier"])

    def _read_dictionary(self, user_dict: Optional[Union[str, Path]]) -> Optional[WordDictionary]:
        """The WordDictionary of the user_dict file (None without dict_features)."""
        if not self.cfg["dict_features"]:
            if user_dict is not None:
                raise ValueError(f"[{self.name}] initialize() got user_dict {str(user_dict)!r}, but dict_features "
                                 f"is off: set [components.{self.name}] dict_features = true to use it")
            return None
        if user_dict is None:
            raise ValueError(f"[{self.name}] dict_features is on, but initialize() got no user_dict: name the "
                             f"dictionary file in [initialize.components.{self.name}] user_dict "
                             "(--paths.user_dict FILE with the shipped configs)")
        max_word = self.cfg["dict_max_word"]
        with named_errors(self.name):
            dictionary = WordDictionary(max_word)
            n_usable = dictionary.add_words(read_user_dict(user_dict))
        if n_usable == 0:
            raise ValueError(f"[{self.name}] user dictionary file {str(user_dict)!r} has no word of {MIN_WORD} to "
                             f"{max_word} characters (dict_max_word), the words dictionary features match")
        self.cfg["stats"]["dict_words"] = len(dictionary)
        return dictionary

    def predict(self, docs: Iterable[Doc]):
        """Per Doc: (token index of each unit, word-start flag per unit), from one C call."""
        self.require_trained()
        units = [doc_units(doc) for doc in docs]
        codes, bounds, offsets = concat_units([(c, b) for c, _, b in units])
        starts = self.plain_model.segment(codes, bounds).view(bool)
        return [(u[1], starts[offsets[k]:offsets[k + 1]]) for k, u in enumerate(units)]

    # the dictionary came after the other files: a folder or bytes without it load
    optional_parts = ("dictionary",)

    def _parts(self):
        parts = super()._parts()
        parts["dictionary"] = (lambda: self.plain_model.dictionary_to_bytes(), self._dictionary_from_bytes)
        return parts

    def _dictionary_from_bytes(self, data) -> None:
        self.plain_model.dictionary_from_bytes(data)
        dictionary = self.plain_model.dictionary
        if dictionary is not None and not self.cfg["dict_features"]:
            raise ValueError(f"[{self.name}] the model has a dictionary, but its cfg has dict_features off: "
                             "the model files are mismatched")
        if dictionary is None and self.cfg["dict_features"] and self.is_trained:
            raise ValueError(f"[{self.name}] the cfg has dict_features on, but the model has no dictionary "
                             "(a missing or empty dictionary file)")
        if dictionary is not None and dictionary.max_word != self.cfg["dict_max_word"]:
            raise ValueError(f"[{self.name}] the dictionary matches words of up to {dictionary.max_word} "
                             f"characters, the cfg {self.cfg['dict_max_word']}: the model files are mismatched")

    def _check_cfg(self, cfg: Dict) -> None:
        # a cfg written before dictionary features: a model without them
        cfg.setdefault("dict_features", False)
        cfg.setdefault("dict_max_word", DEFAULT_MAX_WORD)
        _check_options(cfg["window"], cfg["degree"], cfg["C"], cfg["classifier"], cfg["sigma"], cfg["xi"],
                       cfg["trainer"], cfg["min_feature_count"], cfg["cache_size"], cfg["max_iter"],
                       cfg.get("epochs", 0), cfg["dict_features"], cfg["dict_max_word"])

    def _new_plain_model(self) -> BoundarySegmenter:
        return BoundarySegmenter(self.cfg["window"])

    def _check_features(self) -> None:
        if self.plain_model.window != self.cfg["window"]:
            raise ValueError(f"[{self.name}] the feature file has window {self.plain_model.window}, the cfg "
                             f"{self.cfg['window']}: the model files are mismatched")
