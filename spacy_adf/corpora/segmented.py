"""Word-segmented text (SIGHAN / NLPCC format) and the reader
`spacy_adf.SegmentedCorpus.v1` (docs/corpora.md, "Word-segmented text")."""
from typing import Iterator, List, Optional, Tuple

from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry

from ..serialization.text_lines import check_file, PathLike, read_lines
from .string_columns import shared as shared_compact
from .reader_state import check_held_form, in_call_order, limited
from .reused_docs import shared as shared_reuse


def read_segmented(path: PathLike, limit: int = 0) -> Iterator[List[str]]:
    """The word list of every non-empty line."""
    lines = read_lines(check_file(path, "segmented corpus"))
    sentences = ([w for w in line.replace("\t", " ").split(" ") if w] for _, line in lines)
    yield from limited((words for words in sentences if words), limit)


class SegmentedCorpus:
    """Callable reader: reads the file on every call, unless ``reuse_docs`` (`reused_docs`) or
    ``compact`` (`string_columns`); ``shuffle``: each call in a new random order."""

    def __init__(self, path: PathLike, limit: int = 0, reuse_docs: bool = False, compact: bool = False,
                 shuffle: bool = False):
        self.path = check_file(path, "segmented corpus")
        self.limit = limit
        self.shuffle = shuffle
        check_held_form(reuse_docs, compact)
        key = ("segmented", str(self.path.resolve()), limit)
        self.reused = shared_reuse(key, shuffle) if reuse_docs else None
        self.compact = shared_compact(key, ["words"], shuffle) if compact else None

    def __call__(self, nlp) -> Iterator[Example]:
        if self.reused is not None:
            yield from self.reused.examples(nlp.vocab, [self.path], lambda: self._pairs(nlp))
            return
        if self.compact is not None:
            rows = lambda: ((i, {"words": words}) for i, words in enumerate(read_segmented(self.path, self.limit)))
            build = lambda columns, i, _: segmentation_pair(nlp, columns.strings_of(i, "words"))
            yield from self.compact.examples([self.path], rows, build)
            return
        pairs = self._pairs(nlp)
        for predicted, reference in (in_call_order(list(pairs), True) if self.shuffle else pairs):
            yield Example(predicted, reference)

    def _pairs(self, nlp):
        for words in read_segmented(self.path, self.limit):
            yield segmentation_pair(nlp, words)


def segmentation_pair(nlp, words: List[str], spaces: Optional[List[bool]] = None) -> Tuple[Doc, Doc]:
    """(make_doc of the text, the gold words) of one sentence, with no spaces unless `spaces` gives them."""
    if spaces is None:
        spaces = [False] * len(words)
    text = "".join(word + " " if space else word for word, space in zip(words, spaces))
    return nlp.make_doc(text), Doc(nlp.vocab, words=words, spaces=spaces)


@registry.readers("spacy_adf.SegmentedCorpus.v1")
def create_segmented_reader(path: Optional[PathLike], limit: int = 0, reuse_docs: bool = False,
                            compact: bool = False, shuffle: bool = False) -> SegmentedCorpus:
    """See `SegmentedCorpus` (reuse_docs suits a dev corpus, compact a streamed training corpus)."""
    if path is None:
        raise ValueError("no corpus path: pass --paths.train / --paths.dev")
    return SegmentedCorpus(path, limit=limit, reuse_docs=reuse_docs, compact=compact, shuffle=shuffle)
