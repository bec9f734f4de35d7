"""Read reference docs from ``.spacy`` DocBin files as training examples."""
from pathlib import Path
from typing import Callable, Iterable, Iterator, List, Optional

from spacy.tokens import DocBin
from spacy.training import Example
from spacy.util import registry

from ..serialization.text_lines import PathLike
from .conll import check_input_attrs, check_path, make_predicted


def docbin_files(path: PathLike) -> List[Path]:
    """The ``.spacy`` files at ``path`` (a file, or a directory searched recursively)."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.rglob("*.spacy") if p.is_file())
    if not files:
        raise ValueError(f"No .spacy files found in directory {path}")
    return files


class DocBinCorpus:
    """Callable reader: ``corpus(nlp)`` re-reads the DocBin(s) on every call."""

    def __init__(
        self, path: PathLike, *, input_attrs: Iterable[str] = ("tag",), limit: int = 0
    ) -> None:
        self.path = check_path(path, "path")
        self.input_attrs = check_input_attrs(input_attrs)
        self.limit = limit

    def __call__(self, nlp) -> Iterator[Example]:
        count = 0
        for file_ in docbin_files(self.path):
            for reference in DocBin().from_disk(file_).get_docs(nlp.vocab):
                if len(reference) == 0:
                    continue
                if self.limit and count >= self.limit:
                    return
                yield Example(make_predicted(reference, self.input_attrs), reference)
                count += 1


@registry.readers("spacy_adf.DocBinCorpus.v1")
def create_docbin_reader(
    path: Optional[PathLike],
    *,
    input_attrs: List[str] = ["tag"],
    limit: int = 0,
) -> Callable[..., Iterator[Example]]:
    """Config reader for DocBins written by ``spacy_adf.corpora.convert``."""
    return DocBinCorpus(path, input_attrs=input_attrs, limit=limit)
