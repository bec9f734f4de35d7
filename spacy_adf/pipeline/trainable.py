"""The spaCy side of sparse training (`adf_tagger`, `adf_segmenter`, `adf_textcat`): forwards to
the component's SparseTrainer (`self.trainer`)."""
from typing import Callable, Dict, Iterable, Iterator, Optional

import srsly
from spacy.errors import Errors
from spacy.pipeline import TrainablePipe
from spacy.training import Example, validate_examples
from thinc.api import Optimizer

from ..core.params import GroupedParams
from ..ml import PLAIN_MODEL
from ..serialization.parts import SerializedParts
from ..training.sparse_trainer import SparseTrainer
from .handled_calls import HandledCalls, ScoredByScorer

READS_EXAMPLES_ONLY = "update_reads_examples_only"


class SparseTrainedPipe(HandledCalls, ScoredByScorer, SerializedParts, TrainablePipe):
    """The base of the sparse-trained components. A subclass gives ``self.model``, ``self.trainer``
    and must declare ``update_reads_examples_only`` (True: update() changes neither Doc, so
    `training.update` skips spaCy's copy of every Example); no default, as a wrong one breaks Docs."""

    trainer: SparseTrainer

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        declared = any(READS_EXAMPLES_ONLY in vars(klass) for klass in cls.__mro__ if klass is not SparseTrainedPipe)
        if not declared:
            raise TypeError(
                f"{cls.__name__} (a SparseTrainedPipe) must declare the class attribute {READS_EXAMPLES_ONLY}: "
                "True if its update() only reads the Examples, False if it may change a Doc"
            )

    @property
    def plain_model(self):
        """The component's model outside spaCy (SequenceCRF, CharSegmenter, MaxEntText)."""
        return self.model.attrs[PLAIN_MODEL]

    def update(self, examples: Iterable[Example], *, drop: float = 0.0, sgd: Optional[Optimizer] = None,
               losses: Optional[Dict[str, float]] = None) -> Dict[str, float]:
        """Queue the batch; the steps and the loss run in finish_update(). Dropout is ignored."""
        if losses is None:
            losses = {}
        losses.setdefault(self.name, 0.0)
        examples = list(examples)
        validate_examples(examples, f"{type(self).__name__}.update")
        self.trainer.model.require_built()
        self.trainer.queue(examples, losses)
        if sgd not in (None, False):
            self.finish_update(sgd)
        return losses

    def finish_update(self, sgd: Optimizer) -> None:
        self.trainer.finish(sgd)

    def get_loss(self, examples, scores):
        raise NotImplementedError(f"{type(self).__name__} computes its loss inside update()")

    def use_params(self, params: Optional[dict]):
        """Swap in parameters (e.g. optimizer.averages) until the generator resumes."""
        yield from self.trainer.use_params(params)

    @property
    def trainable_params(self) -> GroupedParams:
        """The weights, for batch optimizers (L-BFGS)."""
        return self.trainer.model.params

    def batch_objective(self, examples: Iterable[Example]) -> Callable:
        """f(w) -> (summed log-likelihood of `examples`, gradient), for spacy_adf.training.lbfgs."""
        self.trainer.model.require_built()
        return self.trainer.batch_objective(examples)

    def _parts(self):
        return {"cfg": (lambda: srsly.json_dumps(self.cfg, indent=2).encode("utf8"), self._load_cfg),
                "model": (self._model_bytes, self._load_model)}

    def _saved_cfg(self, data: bytes, kind: str, required: Iterable[str], mine: Dict) -> Dict:
        """A saved cfg file's dict, checked: it has the `required` keys and the settings `mine`."""
        cfg = srsly.json_loads(data)
        for key in required:
            if not isinstance(cfg, dict) or key not in cfg:
                raise ValueError(f"[{self.name}] cfg is missing {key!r}: not an {kind} cfg")
        if any(cfg[k] != v for k, v in mine.items()):
            saved = ", ".join(f"{k}={cfg[k]!r}" for k in mine)
            here = ", ".join(f"{k}={v!r}" for k, v in mine.items())
            raise ValueError(f"[{self.name}] the saved component has {saved}, but this one was created with {here}")
        return cfg

    def _init_settings(self) -> Dict:
        """The keyword arguments (besides vocab, model, name, scorer) that make this component again."""
        return {}

    def __reduce__(self):
        # Pickles the trained model, not the optimizer's state or caches.
        data = self.to_bytes() if self.plain_model.is_built else None
        return (_unpickled, (type(self), self.vocab, self.model, self.name, self._init_settings(),
                             dict(self.cfg), self.scorer, data))

    def memory_report(self) -> Dict[str, float]:
        """Bytes held by the model and, while training, the optimizer state; also per weight."""
        self.trainer.model.require_built()
        return self.trainer.memory_report(self.trainer.model.memory())


def _unpickled(cls, vocab, model, name, settings, cfg, scorer, data) -> SparseTrainedPipe:
    pipe = cls(vocab, model, name, scorer=scorer, **settings)
    pipe.cfg.update(cfg)
    if data is not None:
        pipe.from_bytes(data)
    return pipe


def initialize_examples(get_examples, method: str, nlp=None, corpus: Optional[str] = None) -> Iterator[Example]:
    """get_examples()'s Examples, or every Example of the reader `corpus` (e.g. "corpora.train")
    of nlp.config (docs/training.md); first a ValueError for a [training.batcher] size that makes no batches."""
    size = nlp.config.get("training", {}).get("batcher", {}).get("size") if nlp is not None else None
    if isinstance(size, (int, float)) and not isinstance(size, bool) and size <= 0:
        raise ValueError(f"{method}: [training.batcher] size = {size!r} makes no batches, so training would "
                         "never update the model: set a positive size (e.g. 64 sequences or 1000 words)")
    if corpus is None:
        return checked_examples(get_examples, method)
    if nlp is None:
        raise ValueError(f"{method}: corpus={corpus!r} needs nlp (nlp.initialize passes it)")
    from spacy.util import resolve_dot_names

    try:
        reader = resolve_dot_names(nlp.config.interpolate(), [corpus])[0]
    except Exception as err:
        raise ValueError(
            f"{method}: corpus={corpus!r} does not name a corpus reader of the pipeline's config "
            f"(e.g. \"corpora.train\"): {err}") from err
    if not callable(reader):
        raise ValueError(f"{method}: corpus={corpus!r} is not a corpus reader but {type(reader).__name__}")
    return checked_examples(lambda: reader(nlp), method)


def checked_examples(get_examples, method: str) -> Iterator[Example]:
    """get_examples()'s Examples, checked as they stream by (not in an extra pass, as spaCy's)."""
    if not callable(get_examples):
        raise TypeError(Errors.E930.format(method=method, obj=type(get_examples)))
    examples = get_examples()
    if not examples:
        raise TypeError(Errors.E930.format(method=method, obj=examples))
    if not isinstance(examples, Iterable):
        raise TypeError(Errors.E978.format(name=method, types=type(examples)))
    for eg in examples:
        if not isinstance(eg, Example):
            raise TypeError(Errors.E978.format(name=method, types={type(eg)}))
        yield eg
