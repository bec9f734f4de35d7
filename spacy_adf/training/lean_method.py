"""The mark on the lean `nlp.evaluate` / `nlp.update` installed by the
training callbacks: installing twice keeps the first, and tests can tell
spaCy's method from the lean one."""
from types import FunctionType

LEAN_MARK = "lean"


def mark_lean(function: FunctionType) -> FunctionType:
    """`function`, marked as a lean replacement (``function.lean``)."""
    function.lean = True
    return function


def is_lean(method: object) -> bool:
    """Whether `method` (an instance attribute of nlp, or None) is marked."""
    return isinstance(method, FunctionType) and method.__dict__.get(LEAN_MARK) is True
