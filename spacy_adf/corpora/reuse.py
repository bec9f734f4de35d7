"""`reuse_docs` of the corpus readers: keep the Examples a reader built
and hand them out again on later calls, as long as the files are unchanged.

spaCy's training loop calls the dev reader before every evaluation, and
`Language.evaluate` copies each Example (and its predicted Doc) before it
runs the pipeline and only reads the references, so re-reading and
re-building the same Docs each time is wasted work: more than half of an
evaluation of CoNLL-2000 (building an Example alone walks the tokens of both
Docs). A caller that changes an Example or a Doc in place changes it for the
next call too, so the readers do it only when asked (`reuse_docs = true`,
meant for dev corpora).
"""
import os
from pathlib import Path
from typing import Callable, Iterable, Iterator, List, Optional, Sequence, Tuple

from spacy.tokens import Doc
from spacy.training import Example


class ReusedDocs:
    def __init__(self) -> None:
        self._stamp: Optional[tuple] = None
        self._vocab = None
        self._examples: List[Example] = []

    def examples(self, vocab, paths: Sequence[Path],
                 read: Callable[[], Iterable[Tuple[Doc, Doc]]]) -> Iterator[Example]:
        """The Examples of the (predicted, reference) pairs `read()` gave,
        the same objects for the same vocab and the same files (path,
        size, mtime)."""
        stamp = tuple((str(p), os.stat(p).st_size, os.stat(p).st_mtime_ns) for p in paths)
        if self._vocab is not vocab or self._stamp != stamp:
            self._examples, self._stamp, self._vocab = [], None, None  # free the old Docs first
            examples = [Example(predicted, reference) for predicted, reference in read()]
            self._examples, self._stamp, self._vocab = examples, stamp, vocab
        yield from self._examples
