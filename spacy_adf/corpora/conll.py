"""Read CoNLL-style column files into spaCy docs and training examples
(the format: docs/corpora.md, "CoNLL column files")."""
from array import array
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy
from spacy.attrs import LEMMA, ORTH, POS, SPACY, TAG
from spacy.parts_of_speech import IDS as _POS_IDS
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry
from spacy.vocab import Vocab

from ..serialization.text_lines import check_file, PathLike, read_lines
from ..tags.iob import iob_to_spans
from .string_columns import StringColumns, shared as shared_compact
from .jackknifed import JackknifeAnnotations, check_split, select_part
from .reader_state import check_held_form, in_call_order, limited
from .reused_docs import shared as shared_reuse

COLUMN_NAMES = ("words", "tag", "pos", "lemma", "iob", "_")
# input attribute: (its Doc() keyword, its attribute id)
_INPUT_KWARGS = {"tag": ("tags", TAG), "pos": ("pos", POS), "lemma": ("lemmas", LEMMA)}
INPUT_ATTRS = tuple(_INPUT_KWARGS)
_SKIP_PREFIXES = ("-DOCSTART-", "###MEDLINE:")
# spaCy's UPOS symbols ("" and "EOL" are internal, not tags).
UPOS_TAGS = frozenset(k for k in _POS_IDS if k not in ("", "EOL"))


def _read_sentences(
    path: PathLike, n_columns: int, sep: Optional[str]
) -> Iterator[Tuple[int, List[List[str]]]]:
    """Yield ``(first_line_number, columns)`` per sentence."""
    rows: List[List[str]] = []
    first = 0
    for lineno, line in read_lines(check_file(path, "CoNLL")):
        is_boundary = not line.strip() or line.startswith(_SKIP_PREFIXES)
        if is_boundary:
            if rows:
                yield first, [list(col) for col in zip(*rows)]
                rows = []
            continue
        fields = line.split() if sep is None else [f.strip() for f in line.split(sep)]
        if len(fields) != n_columns:
            raise ValueError(
                f"{path}, line {lineno}: expected {n_columns} columns, "
                f"found {len(fields)}: {line!r}"
            )
        if not rows:
            first = lineno
        rows.append(fields)
    if rows:  # last sentence without a trailing blank line
        yield first, [list(col) for col in zip(*rows)]


def read_conll(
    path: PathLike, columns: Union[int, Sequence[str]], *, sep: Optional[str] = None
) -> Iterator[List[List[str]]]:
    """Each sentence as a list of columns; ``columns``: their number or names, ``sep=None``: any whitespace."""
    n_columns = columns if isinstance(columns, int) else len(columns)
    yield from (sentence for _, sentence in _read_sentences(path, n_columns, sep))


def _check_columns(columns: Sequence[str]) -> List[str]:
    if isinstance(columns, str):
        raise ValueError(f"columns must be a list of names, not the string {columns!r}")
    cols = list(columns)
    unknown = [c for c in cols if c not in COLUMN_NAMES]
    if unknown:
        raise ValueError(f"Unknown column name(s) {unknown}; use {list(COLUMN_NAMES)}")
    for name in COLUMN_NAMES[:-1]:
        if cols.count(name) > 1:
            raise ValueError(f"Column {name!r} is given more than once in {cols}")
    if "words" not in cols:
        raise ValueError(f"columns {cols} must include 'words'")
    return cols


def check_input_attrs(input_attrs: Iterable[str]) -> Tuple[str, ...]:
    """``input_attrs`` as a tuple; ValueError for a name not in `INPUT_ATTRS`."""
    attrs = tuple(input_attrs)
    unknown = [a for a in attrs if a not in INPUT_ATTRS]
    if unknown:
        raise ValueError(f"Unknown input_attrs {unknown}; use some of {list(INPUT_ATTRS)}")
    return attrs


def parse_iob_target(iob_target: str) -> Optional[str]:
    """Return ``None`` for ``"ents"`` or the span key of ``"spans:KEY"``."""
    if iob_target == "ents":
        return None
    kind, colon, key = iob_target.partition(":")
    if kind == "spans" and colon and key:
        return key
    raise ValueError(f"iob_target must be 'ents' or 'spans:KEY', not {iob_target!r}")


def check_path(path: Optional[PathLike], what: str = "file") -> Path:
    """``path`` as a Path; a ValueError that says how to pass it if it is missing or does not exist."""
    if path is None or not Path(path).exists():
        problem = f"No corpus {what} given" if path is None else f"Corpus {what} not found: {str(path)!r}"
        raise ValueError(
            f"{problem}. Pass it on the command line, "
            "e.g. `spacy train config.cfg --paths.train TRAIN --paths.dev DEV`, "
            "or set it in the [paths] section of the config."
        )
    return Path(path)


def make_predicted(reference: Doc, input_attrs: Iterable[str] = ("tag",)) -> Doc:
    """A fresh doc with the reference's words and spaces plus those ``input_attrs`` it has."""
    attrs = check_input_attrs(input_attrs)
    return copy_tokens(reference, [attr_id for name, (_, attr_id) in _INPUT_KWARGS.items() if name in attrs])


def copy_tokens(reference: Doc, attr_ids: Sequence[int] = ()) -> Doc:
    """A fresh Doc with the reference's words, spaces and the values of `attr_ids`
    (e.g. TAG, POS, MORPH, LEMMA), copied as arrays: no Token object is made."""
    columns = reference.to_array([ORTH, SPACY, *attr_ids])
    strings = reference.vocab.strings
    doc = Doc(reference.vocab, words=[strings[orth] for orth in columns[:, 0].tolist()],
              spaces=columns[:, 1].astype(bool).tolist())
    if attr_ids and len(doc):
        doc.from_array(list(attr_ids), columns[:, 2:])
    return doc


def _predicted_from_fields(vocab: Vocab, fields: Dict[str, List[str]], attrs: Tuple[str, ...]) -> Doc:
    """`make_predicted` of `_make_reference`'s reference, without walking its tokens."""
    # has_annotation: some token has a non-empty value
    kwargs = {key: fields[attr] for attr, (key, _) in _INPUT_KWARGS.items()
              if attr in attrs and any(fields.get(attr, ()))}
    words = fields["words"]
    return Doc(vocab, words=words, spaces=[True] * len(words), **kwargs)


def _make_reference(
    vocab: Vocab,
    fields: Dict[str, List[str]],
    span_key: Optional[str],
    keep_labels: Optional[frozenset],
) -> Doc:
    words = fields["words"]
    pos = fields.get("pos")
    if pos is not None:
        bad = sorted({p for p in pos if p not in UPOS_TAGS})
        if bad:
            raise ValueError(
                f"invalid UPOS value(s) {bad} in the 'pos' column; it takes "
                f"{sorted(UPOS_TAGS)}. Name a fine-grained (e.g. PTB) column 'tag'."
            )
    doc = Doc(
        vocab,
        words=words,
        # no spaces given: a column file has no whitespace, so spaCy marks the
        # spacing unknown and its evaluation skips the tokenization score (1.0
        # by construction here, and costly)
        tags=fields.get("tag"),
        pos=pos,
        lemmas=fields.get("lemma"),
    )
    if "iob" in fields:
        set_spans(doc, [Span(doc, start, end, label=label) for start, end, label in iob_to_spans(fields["iob"])
                        if keep_labels is None or label in keep_labels], span_key)
    return doc


def set_spans(doc: Doc, spans: List[Span], span_key: Optional[str]) -> None:
    """``spans`` as ``doc.ents`` (span_key None: tokens outside them gold O, not missing) or ``doc.spans[span_key]``."""
    if span_key is None:
        doc.set_ents(spans, default="outside")
    else:
        doc.spans[span_key] = spans


def conll_to_docs(
    vocab: Vocab,
    path: PathLike,
    *,
    columns: Sequence[str],
    iob_target: str = "ents",
    keep_labels: Optional[Iterable[str]] = None,
    input_attrs: Iterable[str] = ("tag",),
    limit: int = 0,
    sep: Optional[str] = None,
) -> Iterator[Tuple[Doc, Doc]]:
    """``(predicted, reference)`` doc pairs, one per sentence: the reference holds every
    annotated column, the ``iob`` column as ``doc.ents`` or ``doc.spans[KEY]``
    (``iob_target="spans:KEY"``) of ``keep_labels``; the predicted doc the words and
    ``input_attrs`` (``limit=0``: all)."""
    build = _pair_builder(vocab, path, iob_target, keep_labels, input_attrs)
    for lineno, fields in _read_fields(path, columns, limit, sep):
        yield build(lineno, fields)


def _read_fields(path: PathLike, columns: Sequence[str], limit: int, sep: Optional[str]
                 ) -> Iterator[Tuple[int, Dict[str, List[str]]]]:
    """(first line number, {column name: values}) of each sentence with words."""
    cols = _check_columns(columns)
    for lineno, sentence in limited(_read_sentences(path, len(cols), sep), limit):
        yield lineno, {name: col for name, col in zip(cols, sentence) if name != "_"}


def _pair_builder(vocab: Vocab, path: PathLike, iob_target: str, keep_labels: Optional[Iterable[str]],
                  input_attrs: Iterable[str]) -> Callable[[int, Dict[str, List[str]]], Tuple[Doc, Doc]]:
    """build(lineno, fields) -> (predicted, reference) of one sentence."""
    span_key = parse_iob_target(iob_target)
    attrs = check_input_attrs(input_attrs)
    keep = None if keep_labels is None else frozenset(keep_labels)

    def build(lineno: int, fields: Dict[str, List[str]]) -> Tuple[Doc, Doc]:
        try:
            reference = _make_reference(vocab, fields, span_key, keep)
        except ValueError as err:
            raise ValueError(f"{path}, sentence starting at line {lineno}: {err}") from err
        return _predicted_from_fields(vocab, fields, attrs), reference

    return build


def _compact_pair_builder(vocab: Vocab, path: PathLike, iob_target: str, keep_labels: Optional[Iterable[str]],
                          input_attrs: Iterable[str]) -> Callable[[StringColumns, int, int], Tuple[Doc, Doc]]:
    """build(columns, i, lineno) -> the pair `_pair_builder` gives row i, tag and lemma set by
    Doc.from_array from their hashes; a POS column or an empty value goes the general way."""
    slow = _pair_builder(vocab, path, iob_target, keep_labels, input_attrs)
    span_key = parse_iob_target(iob_target)
    attrs = check_input_attrs(input_attrs)
    keep = None if keep_labels is None else frozenset(keep_labels)
    cache: Dict[str, Any] = {}

    def prepare(columns: StringColumns):
        """The token attribute tables and span labels of all rows, once."""
        if cache.get("columns") is not columns:
            cache.clear()
            fast = "pos" not in columns.names and not any(columns.has_empty(c) for c in columns.names)
            ref = [(a, c) for a, c in ((LEMMA, "lemma"), (TAG, "tag")) if c in columns.names]
            pred = [(a, c) for a, c in ref if c in attrs]
            spans = None
            if fast and "iob" in columns.names:
                row_spans, labels = _row_spans(columns, keep)
                spans = row_spans, [vocab.strings.add(label) for label in labels]
            ref_table = _attr_table(vocab, columns, ref) if fast else None
            pred_table = ref_table if pred == ref or not fast else _attr_table(vocab, columns, pred)
            cache.update(columns=columns, fast=fast, spans=spans, ref=ref_table, pred=pred_table)
        return cache

    def build(columns: StringColumns, i: int, lineno: int) -> Tuple[Doc, Doc]:
        state = prepare(columns)
        if not state["fast"]:
            return slow(lineno, columns[i])
        words = columns.strings_of(i, "words")
        start, end = columns.row_bounds(i)
        reference = Doc(vocab, words=words)
        ref_attrs, ref_table = state["ref"]
        if ref_attrs:
            reference.from_array(ref_attrs, ref_table[start:end])
        if state["spans"] is not None:
            row_spans, labels = state["spans"]
            set_spans(reference, [Span(reference, s, e, label=labels[label]) for s, e, label in row_spans(i)], span_key)
        predicted = Doc(vocab, words=words, spaces=[True] * len(words))
        pred_attrs, pred_table = state["pred"]
        if pred_attrs:
            predicted.from_array(pred_attrs, pred_table[start:end])
        return predicted, reference

    return build


def _attr_table(vocab: Vocab, columns: StringColumns, pairs) -> Tuple[List[int], numpy.ndarray]:
    """(attribute ids, every token's values as string hashes) of (attribute, column) pairs."""
    names = [c for _, c in pairs]
    return [a for a, _ in pairs], columns.hash_table(vocab.strings, names)


def _row_spans(columns: StringColumns, keep: Optional[frozenset]):
    """(spans_of(i) -> [(start, end, label id)], labels): every row's kept IOB spans, decoded once."""
    label_ids: Dict[str, int] = {}
    flat, ptr = array("i"), array("q", [0])
    for i in range(len(columns)):
        for start, end, label in iob_to_spans(columns.strings_of(i, "iob")):
            if keep is None or label in keep:
                flat.extend((start, end, label_ids.setdefault(label, len(label_ids))))
        ptr.append(len(flat) // 3)
    labels: List[str] = list(label_ids)
    table = numpy.frombuffer(flat, dtype=numpy.int32).reshape(-1, 3) if len(flat) else numpy.zeros((0, 3), numpy.int32)

    def spans_of(i: int) -> List[List[int]]:
        return table[ptr[i]:ptr[i + 1]].tolist()

    return spans_of, labels


# the options up to `sep` are conll_to_docs's, a reader's own follow: one signature each, as thinc validates
class ConllCorpus:
    """Callable reader: re-reads the file on every call, unless ``reuse_docs`` or ``compact``.
    ``part`` "train" or "heldout": the sentences outside or inside ``folds`` (`jackknifed.fold_of`);
    ``annotations``: a ``python -m spacy_adf jackknife`` DocBin giving ``annotation_attrs``."""

    def __init__(
        self,
        path: PathLike,
        *,
        columns: Sequence[str],
        iob_target: str = "ents",
        keep_labels: Optional[Iterable[str]] = None,
        input_attrs: Iterable[str] = ("tag",),
        limit: int = 0,
        sep: Optional[str] = None,
        reuse_docs: bool = False,
        compact: bool = False,
        shuffle: bool = False,
        n_folds: int = 10,
        folds: Sequence[int] = (0,),
        part: str = "all",
        fold_seed: int = 0,
        annotations: Optional[PathLike] = None,
        annotation_attrs: Sequence[str] = ("TAG",),
    ) -> None:
        self.path = check_path(path)
        if self.path.is_dir():
            raise ValueError(f"{self.path} is a directory; ConllCorpus reads one file")
        # Validate the settings now so config mistakes fail before training.
        self.columns = _check_columns(columns)
        self.iob_target = iob_target
        parse_iob_target(iob_target)
        self.keep_labels = None if keep_labels is None else list(keep_labels)
        self.input_attrs = check_input_attrs(input_attrs)
        self.limit = limit
        self.sep = sep
        self.shuffle = shuffle
        self.n_folds, self.part, self.fold_seed = n_folds, part, fold_seed
        self.folds = check_split(n_folds, folds, part)
        self.annotations = None if annotations is None else JackknifeAnnotations(annotations, annotation_attrs)
        check_held_form(reuse_docs, compact)
        self.reused = self.compact = None
        self._builder = None  # (vocab, compact pair builder)
        # every setting the Docs depend on: a compact reader's Docs of the same key share corpus items
        key = ("conll", str(self.path.resolve()), tuple(self.columns), iob_target,
               None if self.keep_labels is None else tuple(self.keep_labels), tuple(self.input_attrs), limit, sep)
        if reuse_docs:
            self.reused = shared_reuse(key, shuffle)
        if compact:
            self.compact = shared_compact(key, [c for c in self.columns if c != "_"], shuffle)

    def __call__(self, nlp) -> Iterator[Example]:
        examples = select_part(self._examples(nlp), self.n_folds, self.folds, self.part, self.fold_seed)
        yield from examples if self.annotations is None else map(self.annotations.apply, examples)

    def _examples(self, nlp) -> Iterator[Example]:
        rows = lambda: _read_fields(self.path, self.columns, self.limit, self.sep)  # noqa: E731
        if self.compact is not None:
            # one builder per vocab: it holds the per-token attribute tables and decoded spans
            if self._builder is None or self._builder[0] is not nlp.vocab:
                self._builder = (nlp.vocab, _compact_pair_builder(
                    nlp.vocab, self.path, self.iob_target, self.keep_labels, self.input_attrs))
            yield from self.compact.examples([self.path], rows, self._builder[1])
            return
        build = _pair_builder(nlp.vocab, self.path, self.iob_target, self.keep_labels, self.input_attrs)
        pairs = lambda: (build(lineno, fields) for lineno, fields in rows())  # noqa: E731
        if self.reused is not None:
            yield from self.reused.examples(nlp.vocab, [self.path], pairs)
            return
        for predicted, reference in (in_call_order(list(pairs()), True) if self.shuffle else pairs()):
            yield Example(predicted, reference)


# the config's own signature (thinc validates List/Optional types against it), ConllCorpus the reader
@registry.readers("spacy_adf.ConllCorpus.v1")
def create_conll_reader(
    path: Optional[PathLike],
    *,
    columns: List[str],
    iob_target: str = "ents",
    keep_labels: Optional[List[str]] = None,
    input_attrs: List[str] = ["tag"],
    limit: int = 0,
    sep: Optional[str] = None,
    reuse_docs: bool = False,
    compact: bool = False,
    shuffle: bool = False,
    n_folds: int = 10,
    folds: List[int] = [0],
    part: str = "all",
    fold_seed: int = 0,
    annotations: Optional[str] = None,
    annotation_attrs: List[str] = ["TAG"],
) -> Callable[..., Iterator[Example]]:
    """Config reader for a CoNLL column file (`ConllCorpus`; reuse_docs suits a dev corpus, compact a
    streamed training corpus)."""
    return ConllCorpus(
        path, columns=columns, iob_target=iob_target, keep_labels=keep_labels, input_attrs=input_attrs,
        limit=limit, sep=sep, reuse_docs=reuse_docs, compact=compact, shuffle=shuffle, n_folds=n_folds,
        folds=folds, part=part, fold_seed=fold_seed, annotations=annotations, annotation_attrs=annotation_attrs,
    )
