"""`adf_textcat`: a MaxEnt text classifier over bag-of-n-gram features trained by ADF, for
exclusive classes (docs/components.md, "Text classification").
"""
import operator
from typing import Callable, Dict, Iterable, List, Optional

import numpy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..ml import PLAIN_MODEL
from ..models.maxent_text import MaxEntText
from ..training.example_cache import MISS
from ..training.sparse_trainer import SparseTrainer
from .handled_calls import named_errors
from .labels import LabelsInCfg, initial_labels
from .trainable import SparseTrainedPipe

FEATURE_SETTINGS = ("ngram_sizes", "lowercase", "value", "min_count")

default_model_config = """
[model]
@architectures = "spacy_adf.MaxEntTextcat.v1"
ngram_sizes = [1, 2]
lowercase = true
value = "count"
min_count = 1
"""
DEFAULT_MAXENT_MODEL = Config().from_str(default_model_config)["model"]


@Language.factory(
    "adf_textcat",
    assigns=["doc.cats"],
    default_config={
        "model": DEFAULT_MAXENT_MODEL,
        "scorer": {"@scorers": "spacy_adf.textcat_scorer.v1"},
    },
    # accuracy is weighed, the other scores only shown
    default_score_weights={"cats_accuracy": 1.0, "cats_score": 0.0, **dict.fromkeys((
        "cats_score_desc", "cats_micro_p", "cats_micro_r", "cats_micro_f", "cats_macro_p", "cats_macro_r",
        "cats_macro_f", "cats_macro_auc", "cats_f_per_type", "cats_auc_per_type"), None)},
)
def make_adf_textcat(nlp: Language, name: str, model: Model, *, scorer: Optional[Callable]) -> "ADFTextCat":
    """Create an adf_textcat; feature options live in the model block (spacy_adf.MaxEntTextcat.v1)."""
    return ADFTextCat(nlp.vocab, model, name, scorer=scorer)


class ADFTextCat(LabelsInCfg, SparseTrainedPipe):
    """Classifies Docs with a MaxEntText model into doc.cats (exclusive classes, cfg["labels"])."""

    def __init__(self, vocab: Vocab, model: Model, name: str = "adf_textcat", *,
                 scorer: Optional[Callable] = None):
        plain = model.attrs.get(PLAIN_MODEL) if isinstance(model, Model) else None
        if not isinstance(plain, MaxEntText):
            raise ValueError(
                f"[{name}] the model must be built by spacy_adf.MaxEntTextcat.v1 "
                f"(got {model.name if isinstance(model, Model) else type(model).__name__!r})"
            )
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        plain.name = name
        self.cfg = {"labels": [], **plain.featurizer.settings, "n_train_examples": 0}
        self.trainer = SparseTrainer(name, plain, (model.id, "maxent_weights"), self.training_samples,
                                     lambda: max(int(self.cfg.get("n_train_examples", 0)), 1))

    update_reads_examples_only = True  # update() changes neither Doc of an Example

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, labels: Optional[List[str]] = None) -> None:
        """Collect the labels (unless given) and build the feature index; weights start at zero."""
        validate_get_examples(get_examples, f"{self.name}.initialize")
        # held, not streamed: the gold ids are checked against the labels of
        # all examples before the index is built (the errors' order)
        examples = list(get_examples())
        if not examples:
            raise ValueError(f"[{self.name}] initialize() got no training examples")
        found = (lab for eg in examples for lab in eg.reference.cats)
        self.cfg["labels"] = initial_labels(self.cfg["labels"], labels, found)
        if len(self.cfg["labels"]) < 2:
            raise ValueError(
                f"[{self.name}] needs at least two labels for exclusive classes, found "
                f"{self.cfg['labels']}; check the corpus's doc.cats or pass labels=[...]"
            )
        n_gold = sum(self._gold_id(eg) is not None for eg in examples)
        self.plain_model.build([eg.predicted for eg in examples], len(self.cfg["labels"]))
        self.cfg["n_train_examples"] = n_gold
        self.trainer.reset()

    def _gold_id(self, eg: Example) -> Optional[int]:
        cats = eg.reference.cats
        if not cats:
            return None
        positive = [lab for lab, v in cats.items() if v is not None and v >= 0.5]
        if len(positive) != 1:
            raise ValueError(
                f"[{self.name}] exclusive classes need exactly one gold label with a value "
                f">= 0.5 per Doc, got cats {dict(list(cats.items())[:10])}"
            )
        try:
            return self.cfg["labels"].index(positive[0])
        except ValueError:
            raise ValueError(
                f"[{self.name}] gold label {positive[0]!r} is not one of the component's labels "
                f"({', '.join(self.labels)}). Initialize with a corpus that contains it, or pass "
                "labels=[...] to initialize()."
            ) from None

    def predict(self, docs: Iterable[Doc]) -> numpy.ndarray:
        """P(label | doc), float64 (n_docs, n_labels), columns in label order."""
        return self.plain_model.predict_proba(list(docs))

    def set_annotations(self, docs: Iterable[Doc], scores) -> None:
        labels = self.labels
        for doc, row in zip(docs, scores):
            for label, p in zip(labels, row):
                doc.cats[label] = float(p)

    def training_samples(self, eg: Example) -> List[tuple]:
        """[(ids, vals, gold)] of one example (empty without gold cats), cached across epochs."""
        signature = self.plain_model.training_signature(eg.predicted)
        samples = self.trainer.cache.get(eg, signature, operator.eq)
        if samples is MISS:
            gold = self._gold_id(eg)
            samples = [] if gold is None else [self.plain_model.training_sample(eg.predicted, gold)]
            self.trainer.cache.put(eg, signature, samples)
        return samples

    def _score_settings(self) -> Dict:
        return {"labels": self.labels}

    def _load_cfg(self, data: bytes) -> None:
        settings = self.plain_model.featurizer.settings
        mine = {k: settings[k] for k in FEATURE_SETTINGS}
        cfg = self._saved_cfg(data, "adf_textcat", ["labels", *FEATURE_SETTINGS], mine)
        labels = cfg["labels"]
        if not isinstance(labels, list) or not all(isinstance(x, str) and x for x in labels):
            raise ValueError(f"[{self.name}] cfg 'labels' must be a list of non-empty strings")
        self.cfg.update(cfg)

    def _model_bytes(self) -> bytes:
        return self.plain_model.to_bytes()

    def _load_model(self, data: bytes) -> None:
        with named_errors(self.name):
            self.plain_model.from_bytes(data, expected_labels=len(self.cfg["labels"]))
        self.trainer.reset()
