"""`use_params` shared by the sparse-trained components (CRFs, MaxEnt): swap
in the optimizer's averaged weights (a SparseADF state, read lazily) or a
plain weight array until spaCy's `Language.use_params` block ends."""
from typing import Iterator, Optional

import numpy

from ..core.adf import SparseADF


def swap_in_params(component, params_holder, params: Optional[dict]) -> Iterator[None]:
    """Generator body for `component.use_params(params)`: `params_holder` is
    the component's GroupedParams (None if not initialized); the component
    provides `_params_key` and `_sync()` (apply pending lazy updates)."""
    value = params.get(component._params_key) if params else None
    if value is None or params_holder is None:
        yield
        return
    component._sync()
    if isinstance(value, SparseADF):
        new = value.averaged_weights()
    else:
        new = numpy.asarray(value, dtype=numpy.float32)
    backup = params_holder.weights
    params_holder.set_weights(new)
    try:
        yield
    finally:
        params_holder.set_weights(backup)
