"""Training samples of each Example, kept across epochs and checked against a
signature of the predicted Doc; samples computed at initialize are handed to
the first epoch by content (docs/architecture.md, "Example cache")."""
from typing import Any, Callable, Dict, Hashable, Tuple

from spacy.training import Example

from ..corpora.string_columns import ITEM_KEY

MISS = object()


def _entry_key(eg: Example) -> Tuple[Hashable, Any]:
    """(key, reference to hold): the corpus item of a compact reader's Doc
    (nothing held), else the reference Doc itself (held, so that its id is
    not reused while the entry lives)."""
    item = eg.reference.user_data.get(ITEM_KEY) if eg.reference.user_data else None
    if item is not None:
        return ("item", item), None
    return id(eg.reference), eg.reference


class ExampleCache:
    def __init__(self, limit: Callable[[], int]) -> None:
        """limit(): how many entries to keep before starting over (a streamed
        corpus must not hold every Doc)."""
        self._limit = limit
        self._entries: Dict[Hashable, Tuple[Any, Any, Any]] = {}
        self._primed: Dict[Hashable, Any] = {}
        self._n_primed = 0

    def get(self, eg: Example, signature: Any, same: Callable[[Any, Any], bool]) -> Any:
        """The cached value for `eg` if its signature is still the same, else MISS."""
        key, held = _entry_key(eg)
        hit = self._entries.get(key)
        if hit is not None and hit[0] is held and same(hit[1], signature):
            return hit[2]
        return MISS

    def put(self, eg: Example, signature: Any, value: Any) -> None:
        if len(self._entries) > self._limit():
            self._entries.clear()
        key, held = _entry_key(eg)
        self._entries[key] = (held, signature, value)
        if self._primed and len(self._entries) >= self._n_primed:
            self.drop_primed()

    def prime(self, values: Dict[Hashable, Any], n_examples: int) -> None:
        """Values computed before training, by content key (see the module
        doc), for a corpus of n_examples Examples."""
        self._primed = values
        self._n_primed = n_examples

    def take(self, key: Hashable) -> Any:
        """The primed value of `key`, else MISS."""
        return self._primed.get(key, MISS)

    def drop_primed(self) -> None:
        self._primed = {}
        self._n_primed = 0

    def clear(self) -> None:
        self._entries.clear()
        self.drop_primed()
