"""Registered `[initialize]` callbacks for `spacy train` configs.

`spacy_adf.freeze_gc.v1` (``[initialize.after_init]``): after initialize,
one full collection and then `gc.freeze()`, so the objects that exist then
(the pipeline, the corpus' Docs and Examples: hundreds of thousands of
objects that live until the process ends anyway) are left out of the
cyclic garbage collector's later scans. Without it a full collection walks
them all every so often in the middle of training or of an evaluation
(CoNLL-2000 base NP: evaluations took 0.45 s instead of 0.25 s when one ran).
Reference counting still frees them; only an object in a reference cycle
that becomes garbage after the freeze stays until the process exits. No
effect on the trained weights.
"""
import gc
from typing import Callable

from spacy.language import Language
from spacy.util import registry


@registry.callbacks("spacy_adf.freeze_gc.v1")
def make_freeze_gc() -> Callable[[Language], Language]:
    def freeze_gc(nlp: Language) -> Language:
        gc.collect()
        gc.freeze()
        return nlp

    return freeze_gc
