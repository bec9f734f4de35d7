"""`adf_tagger`: a linear-chain CRF sequence labeller trained by ADF.

Targets entities, span groups (e.g. chunks) or a token attribute; see
`targets.py`. Trains inside `spacy train`: with `spacy_adf.ADF.v1` as the
optimizer the update is sparse (cost proportional to the features a batch
touches); any other thinc optimizer gets a dense gradient.
"""
from itertools import islice
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Tuple, Union

import numpy
import srsly
from spacy import util
from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model, Optimizer

from ..core.adf import SparseADF
from ..core.crf import CRFContext
from ..core.online import train_crf_adf
from ..core.params import SparseGrad
from ..features.dictionary import build_crf
from .model import featurize
from .serialize import crf_from_bytes, crf_to_bytes
from .targets import Target, make_target

default_model_config = """
[model]
@architectures = "spacy_adf.CRF.v1"
min_freq = 1
state_features = "all"
edge_features = "observed"
edge_templates = null

[model.templates]
@misc = "spacy_adf.templates.words.v1"
"""
DEFAULT_CRF_MODEL = Config().from_str(default_model_config)["model"]

if not Doc.has_extension("adf_marginals"):
    Doc.set_extension("adf_marginals", default=None)


@Language.factory(
    "adf_tagger",
    assigns=["doc.ents", "doc.spans", "token.tag", "token.pos"],
    default_config={
        "model": DEFAULT_CRF_MODEL,
        "target": "ents",
        "scheme": "BIO",
        "store_marginals": False,
        "scorer": {"@scorers": "spacy_adf.tagger_scorer.v1"},
    },
    default_score_weights={"ents_f": 1.0, "ents_p": 0.0, "ents_r": 0.0},
)
def make_adf_tagger(
    nlp: Language,
    name: str,
    model: Model,
    *,
    target: str,
    scheme: str,
    store_marginals: bool,
    scorer: Optional[Callable],
) -> "ADFTagger":
    """Create an adf_tagger.

    target: "ents", "spans:KEY", "tag", "pos" or "_.EXTENSION".
    scheme: "BIO" or "BILUO" tags for span targets.
    store_marginals: also compute per-token label marginals: they go to
        doc._.adf_marginals[name] (float32, n_tokens x n_tags, columns in
        the order of component.tag_names) and, for span groups, the minimum
        token marginal of each span to doc.spans[KEY].attrs["scores"].
    """
    return ADFTagger(nlp.vocab, model, name, target=target, scheme=scheme,
                     store_marginals=store_marginals, scorer=scorer)


class ADFTagger(TrainablePipe):
    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "adf_tagger",
        *,
        target: str = "ents",
        scheme: str = "BIO",
        store_marginals: bool = False,
        scorer: Optional[Callable] = None,
    ):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.target: Target = make_target(target, scheme)
        self.cfg = {
            "labels": [],
            "target": target,
            "scheme": scheme,
            "store_marginals": bool(store_marginals),
            "n_train_examples": 0,
        }
        self.scorer = scorer
        self._tag_index: Dict[str, int] = {}
        self._grad: Optional[SparseGrad] = None
        self._reset_training_state()

    # ------------------------------------------------------------ labels

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self.cfg["labels"])

    @property
    def tag_names(self) -> List[str]:
        """The CRF's output tags (e.g. O, B-NP, I-NP) in column order."""
        return self.target.tag_names(self.cfg["labels"])

    @property
    def label_data(self) -> List[str]:
        return list(self.cfg["labels"])

    def add_label(self, label: str) -> int:
        if not isinstance(label, str) or not label:
            raise ValueError(f"labels must be non-empty strings, got {label!r}")
        if self.crf is not None:
            raise ValueError(
                f"[{self.name}] cannot add label {label!r} after initialization: the CRF's "
                "weights are laid out per label. Add labels before nlp.initialize()."
            )
        if label in self.cfg["labels"]:
            return 0
        self.cfg["labels"].append(label)
        return 1

    @property
    def crf(self):
        return self.model.attrs["crf"]

    def _set_model(self, table, crf) -> None:
        self.model.attrs["table"] = table
        self.model.attrs["crf"] = crf
        self._tag_index = {t: i for i, t in enumerate(self.tag_names)}
        self._grad = SparseGrad(crf)
        self._reset_training_state()

    def _reset_training_state(self) -> None:
        """Forget the optimizer link, buffers, caches and queued examples."""
        self._ctx = CRFContext()
        self._adf: Optional[SparseADF] = None
        self._dirty = False
        self._cache: Dict[int, tuple] = {}
        self._pending: List[tuple] = []
        self._pending_losses: List[Dict[str, float]] = []

    @property
    def _params_key(self):
        return (self.model.id, "crf_weights")

    # ------------------------------------------------------------ initialize

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        labels: Optional[List[str]] = None,
    ) -> None:
        """Collect labels and build the feature dictionary from the corpus."""
        validate_get_examples(get_examples, f"{self.name}.initialize")
        examples = list(get_examples())
        if not examples:
            raise ValueError(f"[{self.name}] initialize() got no training examples")
        if labels is not None:
            # initialize() rebuilds the CRF, so the label list may be replaced
            # here even when a model already exists (unlike add_label).
            bad = [l for l in labels if not isinstance(l, str) or not l]
            if bad:
                raise ValueError(f"labels must be non-empty strings, got {bad[0]!r}")
            self.cfg["labels"] = list(dict.fromkeys(labels))
        else:
            seen = set(self.cfg["labels"])
            for eg in examples:
                for label in self.target.labels_in(eg):
                    if label not in seen:
                        seen.add(label)
                        self.cfg["labels"].append(label)
            self.cfg["labels"] = sorted(self.cfg["labels"])
        if not self.cfg["labels"]:
            raise ValueError(
                f"[{self.name}] found no labels for target {self.target.spec!r} in the "
                "initialization examples; check the corpus and the target setting"
            )
        self._tag_index = {t: i for i, t in enumerate(self.tag_names)}
        tset = self.model.attrs["templates"]
        hash_mats, golds = [], []
        for eg in examples:
            if len(eg.predicted) == 0:
                continue
            gold = self._gold_ids(eg)
            if gold is None:
                continue
            tset.check_doc(eg.predicted, self.name)
            hash_mats.append(tset.hashes(eg.predicted))
            golds.append(gold)
        table, crf = build_crf(
            hash_mats, golds, len(self.tag_names),
            edge_template_mask=self.model.attrs["edge_mask"],
            min_freq=self.model.attrs["min_freq"],
            state_features=self.model.attrs["state_features"],
            edge_features=self.model.attrs["edge_features"],
        )
        self.cfg["n_train_examples"] = len(examples)
        self._set_model(table, crf)

    def _gold_ids(self, eg: Example) -> Optional[numpy.ndarray]:
        tags = self.target.gold(eg)
        if any(t is None for t in tags):
            return None  # documented: sequences with unlabelled tokens are skipped
        try:
            return numpy.array([self._tag_index[t] for t in tags], dtype=numpy.int32)
        except KeyError as e:
            raise ValueError(
                f"[{self.name}] gold tag {e.args[0]!r} was not seen at initialize "
                f"(known tags: {', '.join(self.tag_names)}). Initialize with a corpus "
                "that contains it, or pass labels=[...] to initialize()."
            ) from None

    # ------------------------------------------------------------ inference

    def _require_model(self):
        if self.crf is None:
            raise ValueError(
                f"[{self.name}] is not initialized: call nlp.initialize() or load a "
                "trained pipeline"
            )

    def _sync(self) -> None:
        """Apply the optimizer's pending lazy updates before weights are read."""
        if self._dirty and self._adf is not None:
            self._adf.flush()
        self._dirty = False

    def predict(self, docs: Iterable[Doc]):
        docs = list(docs)
        self._require_model()
        self._sync()
        crf = self.crf
        ss, ptr, attrs = featurize(self.model, docs, self.name)
        labels = crf.viterbi(ss, ptr, attrs)
        marg = crf.marginals(ss, ptr, attrs) if self.cfg["store_marginals"] else None
        out = []
        for i in range(len(docs)):
            s, e = ss[i], ss[i + 1]
            out.append((labels[s:e], None if marg is None else marg[s:e]))
        return out

    def set_annotations(self, docs: Iterable[Doc], preds) -> None:
        names = self.tag_names
        for doc, (ids, marg) in zip(docs, preds):
            if len(doc) == 0:
                continue
            tags = [names[i] for i in ids]
            conf = None
            if marg is not None:
                conf = marg[numpy.arange(len(ids)), ids]
                if doc._.adf_marginals is None:
                    doc._.adf_marginals = {}
                doc._.adf_marginals[self.name] = marg
            self.target.set(doc, tags, conf)

    # ------------------------------------------------------------ training

    def _example_data(self, eg: Example):
        """(pos_ptr, attrs, gold) of one example, cached across epochs.

        spaCy keeps the same reference Docs for every epoch and copies the
        predicted ones, so the cache is keyed by the reference Doc and checked
        against the predicted Doc's attribute columns: a hit is exact.
        """
        tset = self.model.attrs["templates"]
        doc = eg.predicted
        key = id(eg.reference)
        tset.check_doc(doc, self.name)
        cols = tset.columns_for(doc)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is eg.reference and numpy.array_equal(hit[1], cols):
            return hit[2]
        gold = self._gold_ids(eg)
        if gold is None:
            return None
        ptr, attrs = self.model.attrs["table"].lookup(tset.hash_columns(cols))
        data = (ptr, attrs, gold)
        if len(self._cache) > max(2 * self.cfg["n_train_examples"], 100_000):
            self._cache.clear()  # a streamed corpus: don't hold every Doc
        self._cache[key] = (eg.reference, cols, data)
        return data

    def update(
        self,
        examples: Iterable[Example],
        *,
        drop: float = 0.0,
        sgd: Optional[Optimizer] = None,
        losses: Optional[Dict[str, float]] = None,
    ) -> Dict[str, float]:
        """Queue the batch; the CRF steps run in finish_update(), where the
        optimizer is known (spaCy's loop calls update(sgd=False) first). The
        loss is added to `losses` there."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, "ADFTagger.update")
        self._require_model()
        for eg in examples:
            if len(eg.predicted) == 0:
                continue
            data = self._example_data(eg)
            if data is not None:
                self._pending.append(data)
        self._pending_losses.append(losses)
        if sgd not in (None, False):
            self.finish_update(sgd)
        return losses

    def finish_update(self, sgd: Optimizer) -> None:
        pending, self._pending = self._pending, []
        loss_dicts, self._pending_losses = self._pending_losses, []
        if not pending:
            return
        crf = self.crf
        if hasattr(sgd, "sparse_state"):
            state = sgd.sparse_state(self._params_key, crf,
                                     n_examples=self.cfg["n_train_examples"])
            if self._adf is not None and state is not self._adf:
                self._adf.flush()  # a new optimizer: settle the old one's lazy decay
            self._adf = state
            loglik = train_crf_adf(crf, state, self._grad, pending,
                                   minibatch=getattr(sgd, "minibatch", 1), ctx=self._ctx)
            self._dirty = True
        else:
            self._sync()
            self._adf = None
            loglik = 0.0
            for ptr, attrs, gold in pending:
                loglik += crf.accumulate_gradient(
                    [0, len(gold)], ptr, attrs, gold, self._grad, self._ctx
                )
            dense = (-self._grad.to_dense()).astype(numpy.float32)  # thinc minimises
            self._grad.clear()
            weights, _ = sgd(self._params_key, crf.weights, dense)
            crf.set_weights(weights)
        if loss_dicts:
            loss_dicts[-1][self.name] = loss_dicts[-1].get(self.name, 0.0) - loglik

    def get_loss(self, examples, scores):
        raise NotImplementedError("adf_tagger computes its loss inside update()")

    def use_params(self, params: Optional[dict]):
        """Swap in parameters (e.g. optimizer.averages) until the generator
        resumes; a plain generator, as spaCy's Language.use_params expects."""
        value = params.get(self._params_key) if params else None
        if value is None or self.crf is None:
            yield
            return
        self._sync()
        if isinstance(value, SparseADF):
            new = value.averaged_weights()
        else:
            new = numpy.asarray(value, dtype=numpy.float32)
        backup = self.crf.weights
        self.crf.set_weights(new)
        try:
            yield
        finally:
            self.crf.set_weights(backup)

    def memory_report(self) -> Dict[str, float]:
        """Bytes held by the model and, while training, by the optimizer
        state and gradient buffers; also per weight."""
        self._require_model()
        crf = self.crf
        table = self.model.attrs["table"]
        # preshed map: a 16-byte cell per slot, about 2 slots per key
        table_bytes = table.keys.nbytes + 32 * len(table)
        report = {
            "n_weights": crf.n_weights,
            "n_features": crf.n_attrs,
            "model_bytes": crf.nbytes + table_bytes,
        }
        train = report["model_bytes"]
        if self._grad is not None:
            train += self._grad.nbytes
        if self._adf is not None:
            train += self._adf.nbytes
            report["optimizer_bytes"] = self._adf.nbytes
        report["training_bytes"] = train
        report["inference_bytes_per_weight"] = report["model_bytes"] / max(crf.n_weights, 1)
        report["training_bytes_per_weight"] = train / max(crf.n_weights, 1)
        return report

    # ------------------------------------------------------------ scoring

    def score(self, examples: Iterable[Example], **kwargs) -> Dict:
        validate_examples(examples, "ADFTagger.score")
        if self.scorer is None:
            return {}
        return self.scorer(examples, target=self.target, **kwargs)

    # ------------------------------------------------------------ serialization

    def __reduce__(self):
        # Pickles the trained model, not the optimizer's state or caches.
        self._sync()
        return (_rebuild_tagger, (self.vocab, self.model, self.name, dict(self.cfg), self.scorer))

    def _model_bytes(self) -> bytes:
        self._require_model()
        self._sync()
        return crf_to_bytes(self.model.attrs["table"], self.crf)

    def _load_model_bytes(self, data: bytes) -> None:
        table, crf = crf_from_bytes(data, expected_labels=len(self.tag_names))
        self._set_model(table, crf)

    def _load_cfg(self, cfg: dict) -> None:
        for key in ("labels", "target", "scheme"):
            if key not in cfg:
                raise ValueError(f"[{self.name}] cfg is missing {key!r}: not an adf_tagger cfg")
        if cfg["target"] != self.cfg["target"] or cfg["scheme"] != self.cfg["scheme"]:
            raise ValueError(
                f"[{self.name}] the saved component has target={cfg['target']!r}, "
                f"scheme={cfg['scheme']!r}, but this one was created with "
                f"target={self.cfg['target']!r}, scheme={self.cfg['scheme']!r}"
            )
        self.cfg.update(cfg)
        self.target = make_target(self.cfg["target"], self.cfg["scheme"])

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        serialize = {
            "cfg": lambda: srsly.json_dumps(self.cfg),
            "model": self._model_bytes,
        }
        return util.to_bytes(serialize, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()) -> "ADFTagger":
        deserialize = {
            "cfg": lambda b: self._load_cfg(srsly.json_loads(b)),
            "model": self._load_model_bytes,
        }
        try:
            util.from_bytes(bytes_data, deserialize, exclude)
        except ValueError:
            raise
        except Exception as e:
            raise ValueError(f"[{self.name}] could not read the component data: {e!r}") from None
        return self

    def to_disk(self, path: Union[str, Path], *, exclude=tuple()) -> None:
        serialize = {
            "cfg": lambda p: srsly.write_json(p, self.cfg),
            "model": lambda p: Path(p).write_bytes(self._model_bytes()),
        }
        util.to_disk(path, serialize, exclude)

    def from_disk(self, path: Union[str, Path], *, exclude=tuple()) -> "ADFTagger":
        path = Path(path)
        for name in ("cfg", "model"):
            if name not in exclude and not (path / name).exists():
                raise ValueError(f"[{self.name}] missing file {path / name}: incomplete model directory")
        deserialize = {
            "cfg": lambda p: self._load_cfg(srsly.read_json(p)),
            "model": lambda p: self._load_model_bytes(Path(p).read_bytes()),
        }
        util.from_disk(path, deserialize, exclude)
        return self


def _rebuild_tagger(vocab, model, name, cfg, scorer) -> ADFTagger:
    tagger = ADFTagger(vocab, model, name, target=cfg["target"], scheme=cfg["scheme"],
                       store_marginals=cfg["store_marginals"], scorer=scorer)
    tagger.cfg.update(cfg)
    if model.attrs["crf"] is not None:
        tagger._set_model(model.attrs["table"], model.attrs["crf"])
    return tagger
