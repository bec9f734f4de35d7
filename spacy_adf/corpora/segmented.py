"""Word-segmented text (SIGHAN / NLPCC format): one sentence per line, words
separated by one or more ASCII spaces or tabs (CRLF tolerated). Other
whitespace characters (U+3000, U+00A0), which occur inside the NLPCC data,
stay part of the text.

`spacy_adf.SegmentedCorpus.v1` yields Examples whose reference Doc has the
gold words and whose predicted Doc is `nlp.make_doc` of the unspaced text
(with `spacy_adf.CharTokenizer.v1`, one token per character).
"""
from pathlib import Path
from typing import Iterator, List, Optional, Set, Union

from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry

PathLike = Union[str, Path]


def read_segmented(path: PathLike, limit: int = 0) -> Iterator[List[str]]:
    """Yield the word list of every non-empty line."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"segmented corpus {path} does not exist; check --paths.train/--paths.dev")
    count = 0
    with path.open(encoding="utf8") as f:
        for line in f:
            words = [w for w in line.rstrip("\r\n").replace("\t", " ").split(" ") if w]
            if not words:
                continue
            yield words
            count += 1
            if limit and count >= limit:
                break


def training_lexicon(path: PathLike) -> Set[str]:
    """The set of words of a segmented corpus (for OOV recall and dictionary features)."""
    return {w for words in read_segmented(path) for w in words}


class SegmentedCorpus:
    def __init__(self, path: PathLike, limit: int = 0):
        self.path = Path(path)
        if not self.path.exists():
            raise ValueError(f"segmented corpus {self.path} does not exist; check --paths.train/--paths.dev")
        self.limit = limit

    def __call__(self, nlp) -> Iterator[Example]:
        for words in read_segmented(self.path, self.limit):
            reference = Doc(nlp.vocab, words=words, spaces=[False] * len(words))
            yield Example(nlp.make_doc(reference.text), reference)


@registry.readers("spacy_adf.SegmentedCorpus.v1")
def create_segmented_reader(path: Optional[PathLike], limit: int = 0) -> SegmentedCorpus:
    if path is None:
        raise ValueError("no corpus path: pass --paths.train / --paths.dev")
    return SegmentedCorpus(path, limit=limit)
