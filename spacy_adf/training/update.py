"""`Language.update` without its copy of every Example, where no component
could change one.

spaCy's update starts with `Example(eg.x.copy(), eg.y)` for each example of
the batch: a component or an ``annotates`` step may write to the predicted
Docs, and the caller's Examples must not change. Copying a Doc and building
the Example (a walk over both Docs' tokens) costs more than one ADF step of
a short sentence: about 0.5 s an epoch of CoNLL-2000, a tenth of the epoch.
The sparse-trained components of this package (`SparseTrainedPipe`:
adf_tagger, adf_segmenter, adf_textcat) only read their examples in
update() and each says so (``update_reads_examples_only = True``, required
of every `SparseTrainedPipe`; a component that does not declare it is
taken to write, `contract.reads_examples_only`), so when they
are all that update() would train and nothing annotates, `lean_update(nlp)`
runs spaCy 3.8's update on the caller's Examples as they are: the same calls in the same order, hence the same
weights (tests/training/test_lean_update.py). Any other batch goes to
`Language.update` unchanged. `spacy_adf.lean_update.v1` (an
``[initialize.after_init]`` callback) installs it on the nlp object that
``spacy train`` trains.
"""
from typing import Any, Callable, Dict, Iterable, Optional

from spacy.errors import Errors
from spacy.language import Language
from spacy.pipeline.trainable_pipe import TrainablePipe
from spacy.training import Example, validate_examples

from .contract import Updatable, reads_examples_only
from .evaluation import plain_floats
from .lean_method import is_lean, mark_lean


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
    """An update function for `nlp` with `Language.update`'s signature and
    effect (see the module docstring)."""
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
        if _ is not None:
            raise ValueError(Errors.E989)
        if copy_needed(nlp, exclude, annotates):
            return plain(examples, drop=drop, sgd=sgd, losses=losses, component_cfg=component_cfg,
                         exclude=exclude, annotates=annotates)
        if losses is None:
            losses = {}
        if isinstance(examples, list) and len(examples) == 0:
            return losses
        validate_examples(examples, "Language.update")
        examples = list(examples)
        if sgd is None:
            if nlp._optimizer is None:
                nlp._optimizer = nlp.create_optimizer()
            sgd = nlp._optimizer
        if component_cfg is None:
            component_cfg = {}
        for name, _proc in nlp.pipeline:
            component_cfg.setdefault(name, {})
            component_cfg[name].setdefault("drop", drop)
        for name, proc in nlp.pipeline:
            if name not in exclude and isinstance(proc, Updatable):
                proc.update(examples, sgd=None, losses=losses, **component_cfg[name])
            if sgd not in (None, False):
                if (name not in exclude and isinstance(proc, TrainablePipe) and proc.is_trainable
                        and proc.model not in (True, False, None)):
                    proc.finish_update(sgd)
        return plain_floats(losses)

    update.__doc__ = lean_update.__doc__
    return mark_lean(update)


def install_lean_update(nlp: Language) -> Language:
    """Set `lean_update(nlp)` as `nlp.update` (an instance attribute)."""
    if not is_lean(nlp.__dict__.get("update")):
        nlp.update = lean_update(nlp)
    return nlp
