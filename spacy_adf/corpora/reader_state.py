"""What the corpus readers keep between calls, shared by the readers of the same
settings (spaCy resolves ``[corpora]`` twice: initialize's reader and the training
loop's), and the checks of the readers' options."""
from collections import OrderedDict
import itertools
import os
from pathlib import Path
import random
from typing import Callable, Hashable, Iterable, Iterator, List, Sequence, TypeVar

T = TypeVar("T")

# the most recent states by reader settings (a training run needs two: train and dev)
_SHARED: "OrderedDict[Hashable, object]" = OrderedDict()
_SHARED_MAX = 4


def shared(key: Hashable, factory: Callable[[], T]) -> T:
    """The state of the readers with settings `key` (made by factory() the
    first time); the least recently used beyond the last four are dropped."""
    entry = _SHARED.pop(key, None)
    if entry is None:
        entry = factory()
    _SHARED[key] = entry
    while len(_SHARED) > _SHARED_MAX:
        _SHARED.popitem(last=False)
    return entry  # type: ignore[return-value]


def file_stamp(paths: Sequence[Path]) -> tuple:
    """What says a corpus file is unchanged: path, size and mtime of each."""
    return tuple((str(p), os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in paths)


def call_order(n: int, shuffle: bool) -> List[int]:
    """The row order of one call: file order, or random.shuffle of it (as spaCy's Corpus(shuffle=True))."""
    order = list(range(n))
    if shuffle:
        random.shuffle(order)
    return order


def in_call_order(items: Sequence[T], shuffle: bool) -> Iterator[T]:
    """The items of one call, in `call_order`."""
    for i in call_order(len(items), shuffle):
        yield items[i]


def limited(items: Iterable[T], limit: int) -> Iterator[T]:
    """The first `limit` of `items` (all of them for 0)."""
    return itertools.islice(items, limit) if limit else iter(items)


def check_choice(name: str, value: str, choices: Sequence[str]) -> None:
    """ValueError unless the reader option ``name`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {list(choices)}, not {value!r}")


def check_held_form(reuse_docs: bool, compact: bool) -> None:
    """A reader holds its corpus as Docs (reuse_docs) or as string columns (compact), not both."""
    if reuse_docs and compact:
        raise ValueError(
            "reuse_docs and compact are both set: reuse_docs keeps the Docs between calls, compact keeps "
            "only string columns and builds the Docs on each call; set one of them (compact for a training "
            "corpus streamed with [training] max_epochs = -1, reuse_docs for a dev corpus)")
