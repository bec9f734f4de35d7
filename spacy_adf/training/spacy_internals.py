"""Everything this package does where spaCy offers no hook, so against spaCy's own code
(docs/architecture.md, "Where spacy-adf reaches into spaCy")."""
import dataclasses
from timeit import default_timer as timer
from types import FunctionType
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from spacy.language import Language, _replace_numpy_floats
from spacy.scorer import Scorer
from spacy.training import Example, validate_examples
from spacy.ty import TrainableComponent

from .contract import Updatable, reads_examples_only
from . import evaluation

LEAN = "lean"  # the mark of an installed lean method


def _marked(function: FunctionType, doc: Optional[str]) -> FunctionType:
    function.__doc__ = doc
    function.lean = True
    return function


def is_lean(method: object) -> bool:
    """Whether `method` (an instance attribute of nlp, or None) is a lean one."""
    return isinstance(method, FunctionType) and method.__dict__.get(LEAN) is True


def copy_needed(nlp: Language, exclude: Iterable[str], annotates: Iterable[str]) -> bool:
    """Whether an update could change the caller's Examples: something
    annotates, or a component that does not say its update only reads the
    examples would be updated."""
    if list(annotates):
        return True
    skipped = set(exclude)
    return any(name not in skipped and isinstance(proc, Updatable) and not reads_examples_only(proc)
               for name, proc in nlp.pipeline)


def lean_update(nlp: Language) -> Callable[..., Dict[str, float]]:
    """An update function for `nlp` with `Language.update`'s signature and effect."""
    plain = nlp.update

    def update(
        examples: Iterable[Example],
        _: Optional[Any] = None,
        *,
        drop: float = 0.0,
        sgd=None,
        losses: Optional[Dict[str, float]] = None,
        component_cfg: Optional[Dict[str, Dict[str, Any]]] = None,
        exclude: Iterable[str] = (),
        annotates: Iterable[str] = (),
    ) -> Dict[str, float]:
        if _ is not None or sgd is None or copy_needed(nlp, exclude, annotates):
            # spaCy's own: its error, its default optimizer, its copies
            return plain(examples, _, drop=drop, sgd=sgd, losses=losses, component_cfg=component_cfg,
                         exclude=exclude, annotates=annotates)
        if losses is None:
            losses = {}
        if isinstance(examples, list) and len(examples) == 0:
            return losses
        validate_examples(examples, "Language.update")
        examples = list(examples)
        if component_cfg is None:
            component_cfg = {}
        for name, _proc in nlp.pipeline:
            component_cfg.setdefault(name, {})
            component_cfg[name].setdefault("drop", drop)
        for name, proc in nlp.pipeline:
            if name not in exclude and isinstance(proc, Updatable):
                proc.update(examples, sgd=None, losses=losses, **component_cfg[name])
            if (sgd is not False and name not in exclude and isinstance(proc, TrainableComponent)
                    and proc.is_trainable and proc.model not in (True, False, None)):
                proc.finish_update(sgd)
        return _replace_numpy_floats(losses)

    return _marked(update, lean_update.__doc__)


def lean_evaluate(nlp: Language) -> Callable[..., Dict[str, Any]]:
    """An evaluate function for `nlp` with `Language.evaluate`'s signature and scores."""

    def evaluate(
        examples: Iterable[Example],
        *,
        batch_size: Optional[int] = None,
        scorer: Optional[Scorer] = None,
        component_cfg: Optional[Dict[str, Dict[str, Any]]] = None,
        scorer_cfg: Optional[Dict[str, Any]] = None,
        per_component: bool = False,
    ) -> Dict[str, Any]:
        with evaluation.collector_paused():
            examples = list(examples)
            validate_examples(examples, "Language.evaluate")
            size = nlp.batch_size if batch_size is None else batch_size
            cfg = evaluation.own_scorer_cfg(nlp, scorer, scorer_cfg)
            found = None
            if cfg is not None and not component_cfg:
                found = evaluation.scores_from_predictions(nlp, examples, size, cfg, per_component)
            if found is None:
                start = timer()
                # copies: the components annotate Docs the dev corpus may hand out again
                docs = list(nlp.pipe((eg.predicted.copy() for eg in examples), batch_size=size,
                                     component_cfg=component_cfg or {}))
                seconds = timer() - start
                references = [eg.reference for eg in examples]
                results = (evaluation.pair_scores(nlp, docs, references, cfg, per_component)
                           if cfg is not None else None)
                if results is None:
                    if scorer is None:
                        scorer = Scorer(**{"nlp": nlp, **(scorer_cfg or {})})
                    scored = [Example(doc, reference) for doc, reference in zip(docs, references)]
                    results = scorer.score(scored, per_component=per_component)
                found = results, seconds, sum(len(doc) for doc in docs)
            results, seconds, n_words = found
            results["speed"] = n_words / seconds if seconds > 0 else 0.0
            return _replace_numpy_floats(results)

    return _marked(evaluate, lean_evaluate.__doc__)


def install_lean_update(nlp: Language) -> Language:
    """Set `lean_update(nlp)` as `nlp.update` (an instance attribute)."""
    if not is_lean(nlp.__dict__.get("update")):
        nlp.update = lean_update(nlp)
    return nlp


def install_lean_evaluate(nlp: Language) -> Language:
    """Set `lean_evaluate(nlp)` as `nlp.evaluate` (an instance attribute)."""
    if not is_lean(nlp.__dict__.get("evaluate")):
        nlp.evaluate = lean_evaluate(nlp)
    return nlp


_ABSENT = object()


class Wrappers:
    """Methods of objects spaCy's training loop calls, each wrapped in
    instance attributes that call `before` / `after` around it until
    `restore()` puts back what the object's __dict__ held."""

    def __init__(self) -> None:
        self._replaced: List[Tuple[Any, str, Any]] = []

    def wrap(self, obj: Any, name: str, before: Optional[Callable[[], None]] = None,
             after: Optional[Callable[[], None]] = None) -> None:
        """obj.<name> (its current method) timed by before / after; an
        object without an instance __dict__ is left as it is."""
        method = getattr(obj, name)

        def wrapper(*args, **kwargs):
            if before is not None:
                before()
            result = method(*args, **kwargs)
            if after is not None:
                after()
            return result

        try:
            previous = vars(obj).get(name, _ABSENT)
            setattr(obj, name, wrapper)
        except (AttributeError, TypeError):
            return
        self._replaced.append((obj, name, previous))

    def restore(self) -> None:
        for obj, name, previous in reversed(self._replaced):
            try:
                if previous is _ABSENT:
                    delattr(obj, name)
                else:
                    setattr(obj, name, previous)
            except AttributeError:
                pass
        self._replaced = []


class _PipeMeta(dict):
    """Language._pipe_meta that gives named instances their own score weights."""

    def __init__(self, data):
        super().__init__(data)
        self.weights: Dict[str, Dict[str, Optional[float]]] = {}

    def __setitem__(self, name, meta):
        weights = self.weights.pop(name, None)
        if weights is not None:
            meta = dataclasses.replace(meta, default_score_weights=weights, scores=list(weights))
        super().__setitem__(name, meta)

    def __reduce__(self):
        # a pickled pipeline keeps the metadata already swapped in
        return (dict, (dict(self),))


def set_score_weights(nlp: Language, name: str, weights: Dict[str, Optional[float]]) -> None:
    """Make the component `name`, which a factory is creating now, report
    `weights` (its factory's default_score_weights are one dict for every
    instance; adf_tagger's depend on its target)."""
    store = nlp._pipe_meta
    if not isinstance(store, _PipeMeta):
        store = nlp._pipe_meta = _PipeMeta(store)
    store.weights[name] = dict(weights)
