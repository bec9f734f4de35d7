"""`compact` of the corpus readers: a corpus held as columns of interned strings
(one int32 id per token and column), each call's Examples built from them
(docs/architecture.md, docs/training.md)."""
from array import array
import itertools
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy
from spacy.strings import StringStore
from spacy.tokens import Doc
from spacy.training import Example

from .reader_state import call_order, file_stamp, shared as shared_state

# user_data key of a reference Doc built by a compact reader: (contents id, row)
ITEM_KEY = ("spacy_adf", "corpus_item")
_CONTENTS_IDS = itertools.count(1)

Row = Dict[str, List[str]]


class StringColumns:
    """Rows of named string columns of equal length, one int32 id per value into a table of strings."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self._ids: Dict[str, int] = {}
        self._strings: List[str] = []
        self._values = {name: array("i") for name in self.names}
        self._starts = array("q", [0])

    def append(self, row: Row) -> None:
        if set(row) != set(self.names):
            raise ValueError(f"row columns {sorted(row)} are not {sorted(self.names)}")
        n = len(row[self.names[0]])
        ids, strings = self._ids, self._strings
        for name in self.names:
            column = row[name]
            if len(column) != n:
                raise ValueError(f"column {name!r} has {len(column)} values, the row {n}")
            out = self._values[name]
            for s in column:
                j = ids.get(s)
                if j is None:
                    j = ids[s] = len(strings)
                    strings.append(s)
                out.append(j)
        self._starts.append(self._starts[-1] + n)

    def __len__(self) -> int:
        return len(self._starts) - 1

    def __getitem__(self, i: int) -> Row:
        return {name: self.strings_of(i, name) for name in self.names}

    def strings_of(self, i: int, name: str) -> List[str]:
        s, e = self._starts[i], self._starts[i + 1]
        strings = self._strings
        return [strings[j] for j in self._values[name][s:e]]

    def row_bounds(self, i: int) -> Tuple[int, int]:
        """Row i's first value and the end of its values in every column."""
        return self._starts[i], self._starts[i + 1]

    def hash_table(self, strings: StringStore, names: Sequence[str]) -> numpy.ndarray:
        """uint64 (n values, len(names)): the values of columns `names` as string hashes (added to
        `strings`), for Doc.from_array on rows ``row_bounds(i)``."""
        hashes = numpy.zeros(len(self._strings), dtype=numpy.uint64)  # 0: strings of other columns
        used = set().union(*(self._values[name] for name in names))
        for j in sorted(used):
            hashes[j] = strings.add(self._strings[j])
        table = numpy.empty((self.n_values, len(names)), dtype=numpy.uint64)
        for k, name in enumerate(names):
            table[:, k] = hashes[numpy.frombuffer(self._values[name], dtype=numpy.int32)]
        return table

    def has_empty(self, name: str) -> bool:
        """Whether some value of column `name` is the empty string."""
        j = self._ids.get("")
        return j is not None and j in self._values[name]

    @property
    def n_values(self) -> int:
        return self._starts[-1]


class CompactCorpus:
    """The rows of one reader's files, read when first needed or changed, and each call's Examples."""

    def __init__(self, names: Sequence[str], shuffle: bool = False) -> None:
        self.names = tuple(names)
        self.shuffle = shuffle
        self._stamp: Optional[tuple] = None
        self._columns: Optional[StringColumns] = None
        self._origins = array("q")  # per row: where it came from (a line number), for messages
        self._contents_id = 0

    def columns(self, paths: Sequence[Path], read_rows: Callable[[], Iterable[Tuple[int, Row]]]
                ) -> StringColumns:
        """The rows of `read_rows()` ((origin, row) pairs), read again if a file changed."""
        stamp = file_stamp(paths)
        if self._columns is None or self._stamp != stamp:
            self._columns, self._stamp = None, None  # free the old rows first
            columns, origins = StringColumns(self.names), array("q")
            for origin, row in read_rows():
                columns.append(row)
                origins.append(origin)
            self._columns, self._origins, self._stamp = columns, origins, stamp
            self._contents_id = next(_CONTENTS_IDS)
        return self._columns

    def examples(self, paths: Sequence[Path], read_rows: Callable[[], Iterable[Tuple[int, Row]]],
                 build: Callable[[StringColumns, int, int], Tuple[Doc, Doc]]) -> Iterator[Example]:
        """Examples of `build(columns, i, origin)` -> (predicted, reference) of each row i, maybe shuffled."""
        columns = self.columns(paths, read_rows)
        contents = self._contents_id
        for i in call_order(len(columns), self.shuffle):
            predicted, reference = build(columns, i, self._origins[i])
            reference.user_data[ITEM_KEY] = (contents, i)
            yield Example(predicted, reference)


def shared(key, names: Sequence[str], shuffle: bool) -> CompactCorpus:
    """The CompactCorpus of the readers with settings `key` (`reader_state.shared`)."""
    return shared_state(("compact", key, tuple(names), shuffle), lambda: CompactCorpus(names, shuffle))
