"""Registered `[initialize]` callbacks for `spacy train` configs: what each one
does and how to chain them is in docs/training.md ("The lean training loop").
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
