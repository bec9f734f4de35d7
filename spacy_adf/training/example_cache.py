"""Training samples of each Example, kept across epochs.

spaCy's training loop hands over the same reference Docs every epoch and
fresh copies of the predicted ones, so an entry is keyed by the reference
Doc and checked against a signature of the predicted Doc (what its features
are a function of): a hit is exact, a changed input (e.g. tags from an
upstream component that is still training) is recomputed.
"""
from typing import Any, Callable, Dict, Tuple

from spacy.training import Example

MISS = object()


class ExampleCache:
    def __init__(self, limit: Callable[[], int]) -> None:
        """limit(): how many entries to keep before starting over (a streamed
        corpus must not hold every Doc)."""
        self._limit = limit
        self._entries: Dict[int, Tuple[Any, Any, Any]] = {}

    def get(self, eg: Example, signature: Any, same: Callable[[Any, Any], bool]) -> Any:
        """The cached value for `eg` if its signature is still the same, else MISS."""
        hit = self._entries.get(id(eg.reference))
        if hit is not None and hit[0] is eg.reference and same(hit[1], signature):
            return hit[2]
        return MISS

    def put(self, eg: Example, signature: Any, value: Any) -> None:
        if len(self._entries) > self._limit():
            self._entries.clear()
        self._entries[id(eg.reference)] = (eg.reference, signature, value)

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)
