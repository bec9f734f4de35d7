"""`reuse_docs` of the corpus readers: keep the Examples a reader built and
hand them out again on later calls, as long as the files are unchanged
(`Language.evaluate` copies them anyway). A caller that changes an Example
in place changes it for the next call too, so the readers do it only when
asked (docs/training.md)."""
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
        """The Examples of the (predicted, reference) pairs `read()` gave,
        the same objects for the same vocab and the same files (path,
        size, mtime); in file order, or in a new random order each call
        (`shuffle`, as `spacy_adf.corpora.string_columns`)."""
        stamp = file_stamp(paths)
        if self._vocab is not vocab or self._stamp != stamp:
            self._examples, self._stamp, self._vocab = [], None, None  # free the old Docs first
            examples = [Example(predicted, reference) for predicted, reference in read()]
            self._examples, self._stamp, self._vocab = examples, stamp, vocab
        yield from in_call_order(self._examples, self.shuffle)


def shared(key: Hashable, shuffle: bool = False) -> ReusedDocs:
    """The ReusedDocs of the readers with settings `key` (see the module
    docstring and `reader_state.shared`)."""
    return shared_state(("docs", key, shuffle), lambda: ReusedDocs(shuffle))
