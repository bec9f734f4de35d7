"""Read reference docs from ``.spacy`` DocBin files as training examples."""
from pathlib import Path
from typing import Callable, Iterator, List, Optional

from spacy.tokens import DocBin
from spacy.training import Example
from spacy.util import registry

from ..serialization.text_lines import PathLike
from .conll import check_input_attrs, check_path, make_predicted
from .reader_state import limited


def docbin_files(path: PathLike) -> List[Path]:
    """The ``.spacy`` files at ``path`` (a file, or a directory searched recursively)."""
    path = Path(path)
    if not path.is_dir():
        return [path]
    files = sorted(p for p in path.rglob("*.spacy") if p.is_file())
    if not files:
        raise ValueError(f"No .spacy files found in directory {path}")
    return files


@registry.readers("spacy_adf.DocBinCorpus.v1")
def create_docbin_reader(
    path: Optional[PathLike],
    *,
    input_attrs: List[str] = ["tag"],
    limit: int = 0,
) -> Callable[..., Iterator[Example]]:
    """Config reader for DocBins written by ``spacy_adf.corpora.convert``: re-read on every call."""
    path = check_path(path, "path")
    attrs = check_input_attrs(input_attrs)

    def read(nlp) -> Iterator[Example]:
        docs = (doc for file_ in docbin_files(path) for doc in DocBin().from_disk(file_).get_docs(nlp.vocab))
        for reference in limited((doc for doc in docs if len(doc)), limit):
            yield Example(make_predicted(reference, attrs), reference)

    return read
