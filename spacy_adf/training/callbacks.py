"""Registered `[initialize]` callbacks for `spacy train` configs.

`spacy_adf.freeze_gc.v1` (``[initialize.after_init]``): after initialize,
one full collection and then `gc.freeze()`, so the objects that exist then
(the pipeline, the corpus' Docs and Examples: hundreds of thousands of
objects that live until the process ends anyway) are left out of the
cyclic garbage collector's later scans. Without it a full collection walks
them all every so often in the middle of training or of an evaluation.
Reference counting still frees them; only an object in a reference cycle
that becomes garbage after the freeze stays until the process exits. No
effect on the trained weights.

`spacy_adf.return_freed_memory.v1` (``[initialize.before_init]``): glibc
serves every allocation of 128 KB or more from its own mapping, so a large
block goes back to the system when it is freed. glibc's default raises that
threshold each time a large block is freed (up to 32 MB), so the corpus-sized
temporaries of initialize (hash matrices, feature counts, layout arrays) and
the buffers of later model saves stay in the heap as free but resident
memory (docs/training.md). No effect on the weights;
elsewhere than glibc it does nothing.

`spacy_adf.lean_evaluate.v1` (``[initialize.after_init]``): the nlp object
being trained evaluates through `spacy_internals.lean_evaluate`: spaCy's
scores without its extra Example copies and timing re-tokenization. Only
``speed`` differs (the pipeline's words per second, without tokenization).

`spacy_adf.lean_update.v1` (``[initialize.after_init]``): the nlp object
being trained updates through `spacy_internals.lean_update`, which skips
spaCy's copy of every Example when only this package's sparse-trained
components are updated and nothing annotates (they only read the examples;
the same weights, tested).

`spacy_adf.background_steps.v1` (``[initialize.after_init]``): every
sparse-trained component of the nlp object being trained runs a batch's CRF
steps on a background thread (without the GIL) while spaCy's loop reads
and hashes the next batch; the next read of the weights (the next batch's
steps, an evaluation, a save) waits for them. The same steps in the same
order, so the same weights (tested); a batch's loss reaches its losses dict
when its steps are collected, which in spaCy's loop is before the losses
are logged. Needs a second core to gain anything; it costs nothing without.

`spacy_adf.chain_callbacks.v1`: several callbacks in one slot (spaCy's
``after_init`` takes one), run in the order of their section names::

    [initialize.after_init]
    @callbacks = "spacy_adf.chain_callbacks.v1"

    [initialize.after_init.*.evaluate]
    @callbacks = "spacy_adf.lean_evaluate.v1"

    [initialize.after_init.*.update]
    @callbacks = "spacy_adf.lean_update.v1"

    [initialize.after_init.*.steps]
    @callbacks = "spacy_adf.background_steps.v1"

    [initialize.after_init.*.gc]
    @callbacks = "spacy_adf.freeze_gc.v1"
"""
import ctypes
import ctypes.util
import gc
from typing import Callable

from spacy.language import Language
from spacy.util import registry

from .contract import TrainedByTrainer
from .spacy_internals import install_lean_evaluate, install_lean_update
from .sparse_trainer import SparseTrainer


@registry.callbacks("spacy_adf.freeze_gc.v1")
def make_freeze_gc() -> Callable[[Language], Language]:
    def freeze_gc(nlp: Language) -> Language:
        gc.collect()
        gc.freeze()
        return nlp

    return freeze_gc


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter
MMAP_THRESHOLD = 128 * 1024


def large_blocks_mapped() -> bool:
    """mallopt(M_MMAP_THRESHOLD, 128 KB): fixed, so glibc stops raising it;
    False where the C library is not glibc."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))


@registry.callbacks("spacy_adf.return_freed_memory.v1")
def make_return_freed_memory() -> Callable[[Language], Language]:
    def return_freed_memory(nlp: Language) -> Language:
        large_blocks_mapped()
        return nlp

    return return_freed_memory


@registry.callbacks("spacy_adf.lean_evaluate.v1")
def make_lean_evaluate() -> Callable[[Language], Language]:
    return install_lean_evaluate


@registry.callbacks("spacy_adf.lean_update.v1")
def make_lean_update() -> Callable[[Language], Language]:
    return install_lean_update


def use_background_steps(nlp: Language, enabled: bool = True) -> Language:
    """Set (or clear) background steps on every component of `nlp` trained
    by a SparseTrainer."""
    for _, proc in nlp.components:
        if isinstance(proc, TrainedByTrainer) and isinstance(proc.trainer, SparseTrainer):
            proc.trainer.background = enabled
    return nlp


@registry.callbacks("spacy_adf.background_steps.v1")
def make_background_steps() -> Callable[[Language], Language]:
    return use_background_steps


@registry.callbacks("spacy_adf.chain_callbacks.v1")
def make_chain_callbacks(*callbacks: Callable[[Language], Language]) -> Callable[[Language], Language]:
    for i, callback in enumerate(callbacks):
        if not callable(callback):
            raise ValueError(f"spacy_adf.chain_callbacks.v1: entry {i} is {callback!r}, not a callback; "
                             "give each one a section [....*.NAME] with @callbacks = ...")

    def chain(nlp: Language) -> Language:
        for callback in callbacks:
            result = callback(nlp)
            nlp = nlp if result is None else result
        return nlp

    return chain
