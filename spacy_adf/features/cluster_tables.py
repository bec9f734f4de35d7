"""Word cluster tables (`templates.cluster_key` -> bit path) named by a source
string (docs/training.md, "Word clusters")."""
import weakref
from typing import Dict, Iterable, Optional, Tuple

from ..serialization.text_lines import check_file, read_lines
from .templates import ClusterTable, cluster_key
from .vector_clusters import is_vector_source, vector_clusters

LOOKUPS_PREFIX = "lookups:"


_SHARED: "weakref.WeakValueDictionary[str, ClusterTable]" = weakref.WeakValueDictionary()


def shared_table(table: Dict[str, str], checksum: str) -> ClusterTable:
    """One object for equal tables (components reading the same clusters)."""
    found = _SHARED.get(checksum)
    if found is not None and found == table:
        return found
    made = ClusterTable(table)
    _SHARED[checksum] = made
    return made


def bit_path(value: int) -> Optional[str]:
    """The bit path of spaCy's integer cluster (a leading 1, then the path); None for 0."""
    if not isinstance(value, int) or value < 0:
        raise ValueError(f"a lookups cluster is an integer >= 0, not {value!r}")
    return (bin(value)[3:] or "0") if value else None


def _keyed(pairs: Iterable[Tuple[str, str]], max_words: int) -> Dict[str, str]:
    """{key: path} of (word, path) pairs in frequency order."""
    table: Dict[str, str] = {}
    for word, path in pairs:
        key = cluster_key(word)
        if path is not None and key and key not in table:
            table[key] = path
            if max_words and len(table) >= max_words:
                break
    return table


def lookups_clusters(lang: str, table: str = "lexeme_cluster", max_words: int = 0) -> Dict[str, str]:
    """The cluster table of spaCy's lookups for ``lang``, in its file's order."""
    from spacy.util import load_language_data, registry

    files = registry.lookups.get(lang) if lang in registry.lookups else {}
    if table not in files:
        raise ValueError(f"no spaCy lookups table {table!r} for language {lang!r}: install "
                         "spacy-lookups-data (pip install \"spacy-adf[resources]\")")
    values = load_language_data(files[table])
    if not isinstance(values, dict) or not values:
        raise ValueError(f"the spaCy lookups table {table!r} for {lang!r} ({files[table]}) is empty")
    return _keyed(((w, bit_path(v)) for w, v in values.items()), max_words)


def read_cluster_file(path, max_words: int = 0) -> Dict[str, str]:
    """The table of a ``PATH<TAB>WORD[<TAB>COUNT]`` file (or ``pkg:PACKAGE/PATH``)."""
    path = check_file(path, "cluster table", hint="")
    rows = []
    for n, line in read_lines(path):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) not in (2, 3) or not cols[0] or cols[0].strip("01") or not cols[1]:
            raise ValueError(f"cluster table {path}, line {n}: expected PATH<TAB>WORD[<TAB>COUNT] "
                             f"with a path of 0 and 1, got {line[:80]!r}")
        count = int(cols[2]) if len(cols) == 3 and cols[2].strip().isdigit() else None
        if len(cols) == 3 and count is None:
            raise ValueError(f"cluster table {path}, line {n}: the count {cols[2]!r} is not a number")
        rows.append((-(count or 0), n, cols[1], cols[0]))
    if not rows:
        raise ValueError(f"cluster table {path} is empty")
    rows.sort()  # by count, highest first; else in file order
    return _keyed(((word, bits) for _, _, word, bits in rows), max_words)


def load_clusters(source: str, lang: str, max_words: int = 0, vocab=None) -> Dict[str, str]:
    """The table of a source string; ``vocab``: the pipeline's, for ``"vectors"``."""
    if max_words < 0:
        raise ValueError(f"cluster_words must be >= 0 (0: all), not {max_words}")
    if source.startswith(LOOKUPS_PREFIX):
        return lookups_clusters(lang, source[len(LOOKUPS_PREFIX):], max_words)
    if is_vector_source(source):
        return vector_clusters(source, vocab, max_words)
    return read_cluster_file(source, max_words)
