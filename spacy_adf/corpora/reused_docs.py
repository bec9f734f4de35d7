"""`reuse_docs` of the corpus readers: the Examples a reader built, handed out
again while the files are unchanged (docs/training.md)."""
from pathlib import Path
from typing import Callable, Hashable, Iterable, Iterator, List, Optional, Sequence, Tuple

from spacy.tokens import Doc
from spacy.training import Example

from .reader_state import file_stamp, in_call_order, shared as shared_state


class ReusedDocs:
    def __init__(self, shuffle: bool = False) -> None:
        self.shuffle = shuffle
        self._stamp: Optional[tuple] = None
        self._vocab = None
        self._examples: List[Example] = []

    def examples(self, vocab, paths: Sequence[Path],
                 read: Callable[[], Iterable[Tuple[Doc, Doc]]]) -> Iterator[Example]:
        """The Examples of the pairs `read()` gave, the same objects for the same vocab and
        unchanged files; in file order, or in a new random order each call (`shuffle`)."""
        stamp = file_stamp(paths)
        if self._vocab is not vocab or self._stamp != stamp:
            self._examples, self._stamp, self._vocab = [], None, None  # free the old Docs first
            examples = [Example(predicted, reference) for predicted, reference in read()]
            self._examples, self._stamp, self._vocab = examples, stamp, vocab
        yield from in_call_order(self._examples, self.shuffle)


def shared(key: Hashable, shuffle: bool = False) -> ReusedDocs:
    """The ReusedDocs of the readers with settings `key` (`reader_state.shared`)."""
    return shared_state(("docs", key, shuffle), lambda: ReusedDocs(shuffle))
