"""`adf_textcat`: a MaxEnt (multinomial logistic regression) text classifier
over bag-of-n-gram features, trained by ADF (Sun et al. 2014, section 4.4).

Exclusive classes: ``doc.cats`` gets every label, with probabilities that sum
to 1. Features come from `spacy_adf.features.ngrams` (token n-grams, or the
precomputed ``doc.user_data["spacy_adf.features"]`` dict of the Blitzer
reader); features not seen at initialize() are ignored, so an empty Doc or a
Doc without any known feature gets the bias-only prediction (the label prior
the model learned).

Training inside `spacy train`: update() queues the batch, finish_update(sgd)
runs the on-line loop. An optimizer with ``sparse_state()`` (spacy_adf.ADF.v1,
spacy_adf.SGD.v1 and spacy_adf.Perceptron.v1) trains sparsely, one step per
``sgd.minibatch`` Docs, with the perceptron update when
``sgd.objective == "perceptron"``; any other thinc optimizer gets a dense
gradient of the whole spaCy batch. Dropout is ignored. Examples whose gold
cats are empty are skipped; gold cats must otherwise have exactly one label
with a value >= 0.5.

Batch training (L-BFGS): ``trainable_params`` and ``batch_objective()``.
"""
import zlib
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import numpy
import srsly
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.util import registry
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..core.maxent import MaxEntModel, train_maxent_online
from ..core.params import SparseGrad
from ..features.ngrams import FEATURES_KEY, FeatureIndex, NgramFeaturizer, stack_rows
from ..training.sparse_pipe import SparseTrainablePipe

FORMAT = "spacy_adf.maxent"
VERSION = 1
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


@registry.architectures("spacy_adf.MaxEntTextcat.v1")
def build_maxent_textcat(
    ngram_sizes: List[int] = [1, 2],
    lowercase: bool = True,
    value: str = "count",
    min_count: int = 1,
) -> Model:
    """The thinc Model that carries adf_textcat's feature settings and, once
    initialized, its feature index and MaxEnt weights.

    ngram_sizes: token n-gram sizes (tokens joined by "_").
    lowercase: lower-case tokens before forming n-grams.
    value: feature value: "count", "binary" (1) or "log1p" (log(1 + count)).
    min_count: keep features that occur in at least this many training Docs.
    Precomputed features in doc.user_data["spacy_adf.features"] are used
    instead of n-grams when present (value and min_count still apply).
    The model is trained by its component, not by backprop; model.predict(docs)
    returns P(label | doc) as a float64 (n_docs, n_labels) array.
    """
    featurizer = NgramFeaturizer(ngram_sizes, lowercase, value, min_count)
    return Model("spacy_adf_maxent", _forward,
                 attrs={"featurizer": featurizer, "index": None, "maxent": None})


def _forward(model: Model, docs: List[Doc], is_train: bool):
    if is_train:
        raise NotImplementedError(
            "spacy_adf.MaxEntTextcat.v1 is trained by its component (adf_textcat), not by backprop"
        )
    maxent = model.attrs["maxent"]
    if maxent is None:
        raise ValueError("the MaxEnt model is not initialized: call nlp.initialize() first")
    ptr, ids, vals = model.attrs["featurizer"].featurize(docs, model.attrs["index"])
    return maxent.predict_proba(ptr, ids, vals), None


@Language.factory(
    "adf_textcat",
    assigns=["doc.cats"],
    default_config={
        "model": DEFAULT_MAXENT_MODEL,
        "scorer": {"@scorers": "spacy_adf.textcat_scorer.v1"},
    },
    default_score_weights={
        "cats_accuracy": 1.0,
        "cats_score": 0.0,
        "cats_score_desc": None,
        "cats_micro_p": None,
        "cats_micro_r": None,
        "cats_micro_f": None,
        "cats_macro_p": None,
        "cats_macro_r": None,
        "cats_macro_f": None,
        "cats_macro_auc": None,
        "cats_f_per_type": None,
        "cats_auc_per_type": None,
    },
)
def make_adf_textcat(nlp: Language, name: str, model: Model, *, scorer: Optional[Callable]) -> "ADFTextCat":
    """Create an adf_textcat (exclusive classes). Feature options live in the
    model block (spacy_adf.MaxEntTextcat.v1); labels come from initialize()
    (the cats of the training examples, sorted) or add_label()."""
    return ADFTextCat(nlp.vocab, model, name, scorer=scorer)


class ADFTextCat(SparseTrainablePipe):
    _params_name = "maxent_weights"

    def __init__(self, vocab: Vocab, model: Model, name: str = "adf_textcat", *,
                 scorer: Optional[Callable] = None):
        if not isinstance(model, Model) or not isinstance(model.attrs.get("featurizer"), NgramFeaturizer):
            raise ValueError(
                f"[{name}] the model must be built by spacy_adf.MaxEntTextcat.v1 "
                f"(got {getattr(model, 'name', type(model).__name__)!r})"
            )
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg = {"labels": [], **self.featurizer.settings, "n_train_examples": 0}
        self._label_cache: Tuple[tuple, Dict[str, int]] = ((), {})
        self._grad: Optional[SparseGrad] = None
        self._reset_training_state()
        if model.attrs.get("maxent") is not None:
            self._set_model(model.attrs["index"], model.attrs["maxent"])

    # ------------------------------------------------------------ state

    @property
    def featurizer(self) -> NgramFeaturizer:
        return self.model.attrs["featurizer"]

    @property
    def maxent(self) -> Optional[MaxEntModel]:
        return self.model.attrs["maxent"]

    @property
    def _params(self) -> Optional[MaxEntModel]:
        return self.maxent

    def _set_model(self, index: Optional[FeatureIndex], maxent: Optional[MaxEntModel]) -> None:
        self.model.attrs["index"] = index
        self.model.attrs["maxent"] = maxent
        self._grad = SparseGrad(maxent) if maxent is not None else None
        self._reset_training_state()

    # ------------------------------------------------------------ initialize

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *,
                   nlp: Optional[Language] = None, labels: Optional[List[str]] = None) -> None:
        """Collect the labels (unless given) and build the feature index from
        the predicted Docs of the training examples; weights start at zero."""
        validate_get_examples(get_examples, f"{self.name}.initialize")
        examples = list(get_examples())
        if not examples:
            raise ValueError(f"[{self.name}] initialize() got no training examples")
        self._init_labels(labels, (lab for eg in examples for lab in eg.reference.cats))
        if len(self.cfg["labels"]) < 2:
            raise ValueError(
                f"[{self.name}] needs at least two labels for exclusive classes, found "
                f"{self.cfg['labels']}; check the corpus's doc.cats or pass labels=[...]"
            )
        n_gold = sum(self._gold_id(eg) is not None for eg in examples)
        index = self.featurizer.build_index(eg.predicted for eg in examples)
        self.cfg["n_train_examples"] = n_gold
        self._set_model(index, MaxEntModel(len(self.cfg["labels"]), len(index)))

    def _label_ids(self) -> Dict[str, int]:
        labels = tuple(self.cfg["labels"])
        if self._label_cache[0] != labels:
            self._label_cache = (labels, {lab: i for i, lab in enumerate(labels)})
        return self._label_cache[1]

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
            return self._label_ids()[positive[0]]
        except KeyError:
            raise ValueError(
                f"[{self.name}] gold label {positive[0]!r} is not one of the component's labels "
                f"({', '.join(self.labels)}). Initialize with a corpus that contains it, or pass "
                "labels=[...] to initialize()."
            ) from None

    # ------------------------------------------------------------ inference

    def predict(self, docs: Iterable[Doc]) -> numpy.ndarray:
        """P(label | doc), float64 (n_docs, n_labels), columns in label order."""
        docs = list(docs)
        self._require_model()
        self._sync()
        if not docs:
            return numpy.zeros((0, len(self.labels)), dtype=numpy.float64)
        ptr, ids, vals = self.featurizer.featurize(docs, self.model.attrs["index"])
        return self.maxent.predict_proba(ptr, ids, vals)

    def set_annotations(self, docs: Iterable[Doc], scores) -> None:
        labels = self.labels
        for doc, row in zip(docs, scores):
            for label, p in zip(labels, row):
                doc.cats[label] = float(p)

    # ------------------------------------------------------------ training

    def _example_data(self, eg: Example) -> Optional[tuple]:
        """(ids, vals, gold) of one example, cached across epochs (spaCy
        reuses the reference Docs; the predicted Doc's features are checked,
        so a hit is exact)."""
        doc = eg.predicted
        pre = doc.user_data.get(FEATURES_KEY) if doc.user_data else None
        sig = pre if pre is not None else doc.text
        key = id(eg.reference)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is eg.reference and hit[1] == sig:
            return hit[2]
        gold = self._gold_id(eg)
        if gold is None:
            data = None
        else:
            ids, vals = self.model.attrs["index"].lookup(*self.featurizer.hashes(doc))
            data = (ids, vals, gold)
        self._cache_put(key, (eg.reference, sig, data))
        return data

    def _training_samples(self, eg: Example) -> List[tuple]:
        data = self._example_data(eg)
        return [] if data is None else [data]

    def _batch(self, examples: Iterable[Example]):
        return self._stack([s for eg in examples for s in self._training_samples(eg)])

    @staticmethod
    def _stack(samples):
        ptr, ids, vals = stack_rows([(s[0], s[1]) for s in samples])
        return ptr, ids, vals, numpy.array([s[2] for s in samples], dtype=numpy.int32)

    def _online_steps(self, state, samples, minibatch: int, perceptron: bool) -> float:
        return train_maxent_online(self.maxent, state, self._grad, *self._stack(samples),
                                   minibatch=minibatch, perceptron=perceptron)

    def _dense_gradient(self, samples, perceptron: bool) -> float:
        return self.maxent.accumulate_gradient(*self._stack(samples), self._grad,
                                               perceptron=perceptron)

    def _n_train_samples(self) -> int:
        """Training set size in samples (ADF's window q = n/10 and prior 1/(n sigma^2))."""
        return max(int(self.cfg.get("n_train_examples", 0)), 1)

    def batch_objective(self, examples: Iterable[Example]) -> Callable[[numpy.ndarray], Tuple[float, numpy.ndarray]]:
        """f(w) -> (summed log-likelihood, gradient) over `examples` for a batch
        optimizer: w is a float64 vector of trainable_params.n_weights; f sets
        the component's weights to w (as float32) and evaluates at w in float64.
        No prior (the driver adds it). Features are extracted once, here.
        Examples without gold cats are left out."""
        self._require_model()
        self._sync()
        self._adf = None
        maxent = self.maxent
        ptr, ids, vals, gold = self._batch(examples)

        def objective(w: numpy.ndarray) -> Tuple[float, numpy.ndarray]:
            w = numpy.ascontiguousarray(w, dtype=numpy.float64)
            if w.shape != (maxent.n_weights,):
                raise ValueError(f"w has shape {w.shape}, the model has {maxent.n_weights} weights")
            maxent.set_weights(w.astype(numpy.float32))
            return maxent.dense_objective(w, ptr, ids, vals, gold)

        return objective

    def memory_report(self) -> Dict[str, float]:
        """Bytes held by the model (weights + feature index) and, while
        training, by the optimizer state and gradient buffer; also per weight."""
        self._require_model()
        maxent = self.maxent
        index = self.model.attrs["index"]
        report = {
            "n_weights": maxent.n_weights,
            "n_features": maxent.n_features,
            "n_labels": maxent.n_labels,
            "model_bytes": maxent.nbytes + index.nbytes,
        }
        return self._memory_report(report)

    # ------------------------------------------------------------ scoring

    def score(self, examples: Iterable[Example], **kwargs) -> Dict:
        validate_examples(examples, f"{type(self).__name__}.score")
        if self.scorer is None:
            return {}
        kwargs.setdefault("labels", self.labels)
        return self.scorer(examples, **kwargs)

    # ------------------------------------------------------------ serialization

    def _load_cfg(self, cfg: dict) -> None:
        if not isinstance(cfg, dict) or "labels" not in cfg:
            raise ValueError(f"[{self.name}] cfg is missing 'labels': not an adf_textcat cfg")
        missing = [k for k in FEATURE_SETTINGS if k not in cfg]
        if missing:
            raise ValueError(f"[{self.name}] cfg is missing {missing[0]!r}: not an adf_textcat cfg")
        mine = self.featurizer.settings
        if any(cfg[k] != mine[k] for k in FEATURE_SETTINGS):
            saved = ", ".join(f"{k}={cfg[k]!r}" for k in FEATURE_SETTINGS)
            here = ", ".join(f"{k}={mine[k]!r}" for k in FEATURE_SETTINGS)
            raise ValueError(
                f"[{self.name}] the saved component has {saved}, but this one was created with {here}"
            )
        labels = cfg["labels"]
        if not isinstance(labels, list) or not all(isinstance(x, str) and x for x in labels):
            raise ValueError(f"[{self.name}] cfg 'labels' must be a list of non-empty strings")
        self.cfg.update(cfg)

    def _model_bytes(self) -> bytes:
        self._sync()
        if self.maxent is None:
            return srsly.msgpack_dumps({"format": FORMAT, "version": VERSION, "initialized": False})
        arrays = {"keys": (self.model.attrs["index"].keys, numpy.uint64),
                  "weights": (self.maxent.weights, numpy.float32)}
        packed, crc = {}, 0
        for name, (arr, dtype) in arrays.items():
            data = numpy.ascontiguousarray(arr, dtype=numpy.dtype(dtype).newbyteorder("<")).tobytes()
            crc = zlib.crc32(data, crc)
            packed[name] = data
        msg = {"format": FORMAT, "version": VERSION, "initialized": True,
               "n_labels": self.maxent.n_labels, "arrays": packed, "crc32": crc}
        return srsly.msgpack_dumps(msg)

    def _load_model_bytes(self, data: bytes) -> None:
        try:
            msg = srsly.msgpack_loads(data)
        except Exception as e:  # msgpack raises several types on garbage input
            raise ValueError(f"[{self.name}] the model data is corrupt or not an adf_textcat model ({e})") from None
        if not isinstance(msg, dict) or msg.get("format") != FORMAT:
            raise ValueError(f"[{self.name}] the data is not an adf_textcat model (wrong format marker)")
        if msg.get("version") != VERSION:
            raise ValueError(
                f"[{self.name}] model format version {msg.get('version')} is not supported "
                f"(expects {VERSION}); retrain or install the matching spacy-adf"
            )
        if not msg.get("initialized"):
            self._set_model(None, None)
            return
        try:
            raw = {name: msg["arrays"][name] for name in ("keys", "weights")}
            n_labels = int(msg["n_labels"])
            crc = zlib.crc32(raw["weights"], zlib.crc32(raw["keys"]))
            if crc != msg.get("crc32"):
                raise ValueError("checksum mismatch")
            keys = numpy.frombuffer(raw["keys"], dtype=numpy.dtype(numpy.uint64).newbyteorder("<"))
            weights = numpy.frombuffer(raw["weights"], dtype=numpy.dtype(numpy.float32).newbyteorder("<"))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"[{self.name}] the model data is incomplete or corrupt ({e})") from None
        if n_labels != len(self.cfg["labels"]):
            raise ValueError(
                f"[{self.name}] the model has {n_labels} labels but the cfg lists "
                f"{len(self.cfg['labels'])}: model file and cfg do not belong together"
            )
        try:
            index = FeatureIndex(keys.astype(numpy.uint64))
            maxent = MaxEntModel(n_labels, len(index), weights.astype(numpy.float32))
        except ValueError as e:
            raise ValueError(f"[{self.name}] the model data is inconsistent: {e}") from None
        self._set_model(index, maxent)

    def __reduce__(self):
        # Pickles the trained model, not the optimizer's state or caches.
        self._sync()
        return (_rebuild_textcat, (self.vocab, self.model, self.name, dict(self.cfg), self.scorer))


def _rebuild_textcat(vocab, model, name, cfg, scorer) -> ADFTextCat:
    pipe = ADFTextCat(vocab, model, name, scorer=scorer)
    pipe.cfg.update(cfg)
    return pipe
