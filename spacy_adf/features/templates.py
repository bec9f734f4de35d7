"""Feature templates (``w[-1]``, ``w[0]|t[1]``; docs/training.md, "adf_tagger
settings"): parsing, token-attribute columns and hashing."""
import functools
import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import IS_SPACE, LEMMA, LOWER, MORPH, NORM, ORTH, POS, SHAPE, TAG
from spacy.strings import hash_string
from spacy.tokens import Doc

from ..registry import extractors
from .extract import WordCache, template_hashes

MAX_OFFSET = 1000  # a window wider than any sentence needs; keeps offsets in int32
_CELL_RE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\[([+-]?\d+)\]$")
_AFFIX_RE = re.compile(r"^(prefix|suffix)(\d+)$")
_MORPH_RE = re.compile(r"^morph_([A-Za-z0-9_]+)$")
_CLUSTER_RE = re.compile(r"^cluster(\d*)$")

# name -> (spaCy attribute id, annotation that must be present or None)
_DOC_ATTRS: Dict[str, Tuple[int, Optional[str]]] = {
    "w": (ORTH, None),
    "orth": (ORTH, None),
    "lower": (LOWER, None),
    "norm": (NORM, None),
    "shape": (SHAPE, None),
    "t": (TAG, "TAG"),
    "tag": (TAG, "TAG"),
    "pos": (POS, "POS"),
    "lemma": (LEMMA, "LEMMA"),
}

# token attributes every built-in column is a function of
_SOURCE_ATTRS = [ORTH, NORM, TAG, POS, LEMMA, MORPH]
# annotations the templates may need, by the attribute that holds them
_ANNOTATION_ATTRS = {"TAG": TAG, "POS": POS, "LEMMA": LEMMA, "MORPH": MORPH}

_ANNOTATION_HINT = {
    "TAG": "token.tag_ (add a tagger before this component, or read corpora with the tag column as input)",
    "POS": "token.pos_ (add a tagger/morphologizer or attribute_ruler before this component)",
    "LEMMA": "token.lemma_ (add a lemmatizer before this component)",
    "MORPH": "token.morph (add a morphologizer before this component, or read a corpus that has morphs)",
}


def parse_template(text: str) -> Tuple[Tuple[str, int], ...]:
    """Parse ``"w[-1]|t[0]"`` into ``(("w", -1), ("t", 0))``."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"feature template must be a non-empty string, got {text!r}")
    cells = []
    for part in text.split("|"):
        m = _CELL_RE.match(part.strip())
        if m is None:
            raise ValueError(
                f"cannot parse feature template {text!r}: each cell must look like "
                f"'name[offset]', e.g. 'w[-1]' or 'w[0]|t[1]'"
            )
        name, offset = m.group(1), int(m.group(2))
        if abs(offset) > MAX_OFFSET:
            raise ValueError(
                f"feature template {text!r}: offset {offset} is out of range; offsets reach at "
                f"most {MAX_OFFSET} tokens either side (the paper's windows use 2)"
            )
        _check_column_name(name, text)
        cells.append((name, offset))
    if len(cells) > 16:
        raise ValueError(f"feature template {text!r} has more than 16 cells")
    return tuple(cells)


def _check_column_name(name: str, template: str) -> None:
    if name in _DOC_ATTRS:
        return
    m = _AFFIX_RE.match(name)
    if m:
        n = int(m.group(2))
        if not 1 <= n <= 10:
            raise ValueError(f"{name!r} in template {template!r}: affix length must be 1..10")
        return
    m = _CLUSTER_RE.match(name)
    if m:
        if m.group(1) and not 1 <= int(m.group(1)) <= 64:
            raise ValueError(f"{name!r} in template {template!r}: a cluster prefix has 1..64 bits")
        return
    if _MORPH_RE.match(name) or name in ("ortho", "form") or name in extractors.get_all():
        return
    known = (sorted(_DOC_ATTRS) + ["ortho", "form", "prefixN", "suffixN", "morph_FIELD", "cluster", "clusterN"]
             + sorted(extractors.get_all()))
    raise ValueError(
        f"unknown attribute {name!r} in feature template {template!r}. Known: "
        f"{', '.join(known)}. Register custom ones with spacy_adf.registry.extractors."
    )


class TemplateSet:
    """Compiled templates: which columns to build and how to hash them."""

    def __init__(self, templates: Sequence[str]):
        if isinstance(templates, str):
            raise ValueError("templates must be a list of strings, not a single string")
        if not templates:
            raise ValueError("at least one feature template is needed")
        self.templates: List[str] = [str(t) for t in templates]
        if len(set(self.templates)) != len(self.templates):
            raise ValueError("feature templates must be unique")
        parsed = [parse_template(t) for t in self.templates]
        self.columns: List[str] = list(dict.fromkeys(name for cells in parsed for name, _ in cells))
        T = len(parsed)
        width = max(len(c) for c in parsed)
        self.tcols = numpy.zeros((T, width), dtype=numpy.int32)
        self.toffs = numpy.zeros((T, width), dtype=numpy.int32)
        self.tlen = numpy.zeros(T, dtype=numpy.int32)
        self.tseed = numpy.zeros(T, dtype=numpy.uint64)
        for j, cells in enumerate(parsed):
            self.tlen[j] = len(cells)
            # The seed ties a value to its template, so "w[-1]=x" != "w[1]=x".
            self.tseed[j] = hash_string("spacy_adf.template:" + self.templates[j])
            for c, (name, off) in enumerate(cells):
                self.tcols[j, c] = self.columns.index(name)
                self.toffs[j, c] = off
        self._morph_cache: Dict[str, Dict[int, int]] = {}
        self.clusters: Optional[Dict[str, str]] = None
        self._plan_columns()

    @property
    def uses_clusters(self) -> bool:
        """Whether a column reads the word clusters (the model then needs a table)."""
        return any(_CLUSTER_RE.match(name) for name in self.columns)

    def set_clusters(self, table: Optional[Dict[str, str]]) -> None:
        """The word -> bit path table the cluster columns read; the word cache starts afresh."""
        if table is not None:
            bad = next((w for w, p in table.items() if not isinstance(w, str) or not isinstance(p, str)
                        or not p or p.strip("01")), None)
            if bad is not None:
                raise ValueError(f"a cluster table maps words to bit paths of 0 and 1; "
                                 f"the entry {bad!r} is not one")
            if not isinstance(table, ClusterTable):  # a shared table stays shared
                table = dict(table)
        self.clusters = table
        self._plan_columns()

    def _check_clusters(self, component: Optional[str]) -> None:
        if self.clusters is None and self.uses_clusters:
            raise ValueError(
                f"[{component or 'adf_tagger'}] the feature templates read word clusters, but the model "
                "has no cluster table: initialize the component (it induces the table from the "
                "training text) or load a trained model")

    def _plan_columns(self) -> None:
        """How columns_for_docs builds each column: from Doc.to_array, a WordCache row, or other."""
        read = [ORTH]
        self._copy_cols: List[Tuple[int, int]] = []   # (column, index in read)
        self._word_fns: List[Callable[[str], int]] = []
        word_cols = []
        self._other_cols: List[int] = []               # morph_ and extractor columns
        for i, name in enumerate(self.columns):
            if name in _DOC_ATTRS:
                attr = _DOC_ATTRS[name][0]
                if attr not in read:
                    read.append(attr)
                self._copy_cols.append((i, read.index(attr)))
                continue
            fn = self._word_fn(name)
            if fn is not None:
                word_cols.append(i)
                self._word_fns.append(fn)
            else:
                self._other_cols.append(i)
        # annotation checks read the same arrays
        self._check_attrs: List[Tuple[str, int]] = []
        for ann in self.required_annotations:
            attr = _ANNOTATION_ATTRS[ann]
            if attr not in read:
                read.append(attr)
            self._check_attrs.append((ann, read.index(attr)))
        self._read_attrs = read
        self._word_cols = numpy.array(word_cols, dtype=numpy.int32)
        self._word_cache = WordCache(len(word_cols)) if word_cols else None

    def _word_fn(self, name: str) -> Optional[Callable[[str], int]]:
        """The hash function of a word-derived column (partials: picklable), or None."""
        m = _AFFIX_RE.match(name)
        if m:
            return functools.partial(_affix_hash, m.group(1), int(m.group(2)))
        m = _CLUSTER_RE.match(name)
        if m:
            return functools.partial(_cluster_hash, self.clusters or {}, int(m.group(1) or 0))
        return {"ortho": _ortho_hash, "form": _form_hash}.get(name)

    def __len__(self) -> int:
        return len(self.templates)

    @property
    def required_annotations(self) -> List[str]:
        anns = (_DOC_ATTRS[name][1] if name in _DOC_ATTRS else "MORPH" if _MORPH_RE.match(name) else None
                for name in self.columns)
        return list(dict.fromkeys(ann for ann in anns if ann is not None))

    def check_doc(self, doc: Doc, component: str = "adf_tagger") -> None:
        # a Doc of whitespace only has nothing an annotator would label
        if len(doc) == 0 or doc.to_array(IS_SPACE).all():
            return
        for ann in self.required_annotations:
            if not doc.has_annotation(ann):
                raise ValueError(
                    f"[{component}] the feature templates need {_ANNOTATION_HINT[ann]}, "
                    f"but a Doc has no {ann} annotation (text starts {doc.text[:40]!r}). "
                    f"Either provide the annotation or remove templates that use it."
                )

    def columns_for(self, doc: Doc) -> numpy.ndarray:
        """uint64 array (n_tokens, n_columns) of attribute hashes (0 = absent)."""
        return self.columns_for_docs([doc])[1]

    def columns_for_docs(self, docs: Sequence[Doc], component: Optional[str] = None
                         ) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(seq_starts int64 (n_docs + 1), the `columns_for` rows of every Doc
        stacked); with `component`, also check_doc every Doc."""
        self._check_clusters(component)
        lengths = numpy.fromiter((len(doc) for doc in docs), dtype=numpy.int64, count=len(docs))
        seq_starts = numpy.zeros(len(docs) + 1, dtype=numpy.int64)
        numpy.cumsum(lengths, out=seq_starts[1:])
        n = int(seq_starts[-1])
        out = numpy.zeros((n, len(self.columns)), dtype=numpy.uint64)
        if n == 0:
            return seq_starts, out
        nonempty = [doc for doc in docs if len(doc)]
        arrays = [doc.to_array(self._read_attrs) for doc in nonempty]
        arr = arrays[0] if len(arrays) == 1 else numpy.concatenate(arrays)
        arr = arr.reshape(n, len(self._read_attrs))
        starts = seq_starts[:-1][lengths > 0]
        if component is not None and self._check_attrs:
            for ann, k in self._check_attrs:
                annotated = numpy.logical_or.reduceat(arr[:, k] != 0, starts)
                for j in numpy.flatnonzero(~annotated).tolist():
                    self.check_doc(nonempty[j], component)  # raises
        for i, k in self._copy_cols:
            out[:, i] = arr[:, k]
        if self._word_cache is not None:
            orths = numpy.ascontiguousarray(arr[:, 0])
            missing = self._word_cache.gather(orths, out, self._word_cols)
            if len(missing):
                self._fill_words(nonempty, starts, orths, missing, out)
        if self._other_cols:
            for doc, start in zip(nonempty, starts.tolist()):
                stop = start + len(doc)
                for i in self._other_cols:
                    name = self.columns[i]
                    m = _MORPH_RE.match(name)
                    if m:
                        out[start:stop, i] = self._morph_column(doc, m.group(1))
                    else:
                        out[start:stop, i] = _extractor_column(doc, name, extractors.get(name))
        return seq_starts, out

    def _fill_words(self, docs: List[Doc], starts: numpy.ndarray, orths: numpy.ndarray,
                    missing: numpy.ndarray, out: numpy.ndarray) -> None:
        """The word-derived columns of the words the cache did not have."""
        cache = self._word_cache
        doc_of = numpy.searchsorted(starts, missing, side="right") - 1
        rows: Dict[int, numpy.ndarray] = {}
        for pos, d in zip(missing.tolist(), doc_of.tolist()):
            orth = int(orths[pos])
            row = rows.get(orth)
            if row is None:
                text = docs[d].vocab.strings[orth]
                row = numpy.array([fn(text) for fn in self._word_fns], dtype=numpy.uint64)
                rows[orth] = row
                cache.add(orth, row)
            out[pos, self._word_cols] = row

    def _morph_column(self, doc: Doc, field: str) -> numpy.ndarray:
        # Cached per morph analysis: a corpus has few distinct ones.
        cache = self._morph_cache.setdefault(field, {})
        keys = doc.to_array(MORPH)
        col = numpy.empty(len(doc), dtype=numpy.uint64)
        strings = doc.vocab.strings
        for i, key in enumerate(keys.tolist()):
            h = cache.get(key)
            if h is None:
                h = 0
                for feat in (strings[key].split("|") if key else ()):
                    name, _, value = feat.partition("=")
                    if name == field and value:
                        h = hash_string(f"morph_{field}:{value}")
                if len(cache) < 1_000_000:
                    cache[key] = h
            col[i] = h
        return col

    def source_attributes(self, doc: Doc) -> Optional[numpy.ndarray]:
        """The raw token attributes every column is a function of, or None
        when a column comes from a registered extractor (training cache key)."""
        builtin_only = all(_MORPH_RE.match(self.columns[i]) for i in self._other_cols)
        return doc.to_array(_SOURCE_ATTRS) if builtin_only else None

    def hashes(self, doc: Doc) -> numpy.ndarray:
        """uint64 array (n_tokens, n_templates) of template hashes (0 = off)."""
        return self.hash_columns(self.columns_for(doc))

    def hash_columns(self, cols: numpy.ndarray, seq_starts: Optional[numpy.ndarray] = None) -> numpy.ndarray:
        """Template hashes of one sequence's columns, or of several stacked (`template_hashes`)."""
        return template_hashes(cols, self.tcols, self.toffs, self.tlen, self.tseed, seq_starts)


def _affix_hash(kind: str, size: int, text: str) -> int:
    return hash_string(f"{kind}{size}:{text[:size] if kind == 'prefix' else text[-size:]}")


# Penn Treebank tokens and the running-text characters they stand for (a quote's direction is in the tag)
_FORMS = {"``": '"', "''": '"', "\u201c": '"', "\u201d": '"', "\u201e": '"',
          "-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}", "-LSB-": "[", "-RSB-": "]",
          "`": "'", "\u2018": "'", "\u2019": "'"}


def word_form(text: str) -> str:
    """The ``form`` column's value: treebank and typographic quotes and brackets made plain."""
    return _FORMS.get(text, text)


def _form_hash(text: str) -> int:
    return hash_string("w:" + word_form(text))


class ClusterTable(dict):
    """A word -> bit path table models share (`cluster_tables.shared_table`; never changed)."""


def cluster_key(text: str) -> str:
    """The key of a word in a cluster table: its ``form``, lower-cased."""
    return word_form(text).lower()


def _cluster_value(table: Dict[str, str], bits: int, text: str) -> Optional[str]:
    path = table.get(cluster_key(text))
    if path is None:
        return None
    return path[:bits] if bits else path


def _cluster_hash(table: Dict[str, str], bits: int, text: str) -> int:
    value = _cluster_value(table, bits, text)
    return 0 if value is None else hash_string(f"cluster{bits}:{value}")


def _ortho_hash(text: str) -> int:
    return hash_string("ortho:" + ortho_class(text))


def _extractor_column(doc: Doc, name: str, fn: Callable) -> numpy.ndarray:
    values = fn(doc)
    if len(values) != len(doc):
        raise ValueError(
            f"extractor {name!r} returned {len(values)} values for a Doc of {len(doc)} tokens"
        )
    col = numpy.zeros(len(doc), dtype=numpy.uint64)
    for i, v in enumerate(values):
        if v is None or v == "":
            continue
        col[i] = hash_string(f"{name}:{v}")
    return col


GREEK_LETTERS = frozenset(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron "
    "pi rho sigma tau upsilon phi chi psi omega".split()
)
_ROMAN_RE = re.compile(r"^(?=[IVXLC])(C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")
_NUMBER_RE = re.compile(r"^[+-]?(\d+([.,]\d+)*|[.,]\d+)%?$")
_PIECE_RE = re.compile(r"[A-Za-z]+")


def ortho_class(text: str) -> str:
    """Orthography class of a word, in the spirit of Settles (2004) and
    Okanohara et al. (2006): the classes are in docs/training.md, "adf_tagger
    settings" ("IL-2" -> ``ALLCAPS+D+H+E``, "TNF-alpha" -> ``MIXED+H+G``)."""
    if not text:
        return "EMPTY"
    low = text.lower()
    if low in GREEK_LETTERS:
        return "GREEK"
    if _ROMAN_RE.match(text):
        return "ROMAN"
    if text.isdigit():
        return "DIGITS"
    if _NUMBER_RE.match(text):
        return "NUMBER"
    has_alpha = any(c.isalpha() for c in text)
    has_digit = any(c.isdigit() for c in text)
    if not has_alpha and not has_digit:
        return "PUNCT"
    if len(text) == 1:
        return "UPPER1" if text.isupper() else "LOWER1"
    letters = [c for c in text if c.isalpha()]
    if not letters:
        case = "NOLETTER"
    elif all(c.islower() for c in letters):
        case = "LOWER"
    elif all(c.isupper() for c in letters):
        case = "ALLCAPS"
    elif letters[0].isupper() and all(c.islower() for c in letters[1:]) and text[0].isalpha():
        case = "INITCAP"
    else:
        case = "MIXED"
    flags = (("D", has_digit), ("H", "-" in text), ("S", "/" in text),
             ("P", any(not c.isalnum() and c not in "-/" for c in text)),
             ("G", any(p.lower() in GREEK_LETTERS for p in _PIECE_RE.findall(text))), ("E", text[-1].isdigit()))
    return case + "".join("+" + f for f, on in flags if on)
