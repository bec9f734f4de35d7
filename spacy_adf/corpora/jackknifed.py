"""Folds of a corpus and jack-knifed input annotation, for any reader:
``spacy_adf.FoldSplit.v1`` and ``spacy_adf.JackknifedCorpus.v1``. A
sentence's fold is a keyed hash of its words (`fold_of`), so identical
sentences share a fold (docs/corpora.md, "Folds and jack-knifed input")."""
import hashlib
from collections import defaultdict
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Union

from spacy.attrs import IDS as ATTR_IDS
from spacy.tokens import Doc, DocBin, Span
from spacy.training import Example
from spacy.util import registry

# spaCy only: `spacy train --code` loads this file on its own (training/jackknife.py)
PathLike = Union[str, Path]
PARTS = ("all", "train", "heldout")


def fold_of(words: Sequence[str], n_folds: int, seed: int = 0) -> int:
    """The fold (0..n_folds-1) of a sentence with these words under `seed`."""
    key = seed.to_bytes(8, "little", signed=True)
    digest = hashlib.blake2b("\x1f".join(words).encode("utf8"), digest_size=8, key=key).digest()
    return int.from_bytes(digest, "little") % n_folds


def check_split(n_folds: int, folds: Iterable[int], part: str) -> List[int]:
    """`folds` as a sorted list; ValueError for settings that select nothing
    sensible (shared by FoldSplit and the readers with fold settings)."""
    if part not in PARTS:
        raise ValueError(f"part must be one of {list(PARTS)}, not {part!r}")
    folds = sorted(set(int(f) for f in folds))
    if part != "all":
        if n_folds < 2:
            raise ValueError(f"part={part!r} needs n_folds >= 2, not {n_folds}")
        bad = [f for f in folds if not 0 <= f < n_folds]
        if bad or not folds:
            raise ValueError(f"folds {folds} must be a non-empty list of fold numbers in 0..{n_folds - 1}")
    return folds


def select_part(examples: Iterable[Example], n_folds: int, folds: Sequence[int], part: str,
                seed: int = 0) -> Iterator[Example]:
    """The examples whose reference sentence falls in `folds` ("heldout"),
    or not in them ("train"), or all of them ("all")."""
    if part == "all":
        yield from examples
        return
    wanted = frozenset(folds)
    keep_heldout = part == "heldout"
    for eg in examples:
        if (fold_of([t.text for t in eg.reference], n_folds, seed) in wanted) == keep_heldout:
            yield eg


class FoldSplit:
    """Reader: the examples of `corpus` in a part of its folds."""

    def __init__(self, corpus: Callable[..., Iterable[Example]], *, n_folds: int, folds: Sequence[int],
                 part: str, seed: int = 0) -> None:
        self.corpus = corpus
        self.n_folds = n_folds
        self.folds = check_split(n_folds, folds, part)
        self.part = part
        self.seed = seed

    def __call__(self, nlp) -> Iterator[Example]:
        yield from select_part(self.corpus(nlp), self.n_folds, self.folds, self.part, self.seed)


@registry.readers("spacy_adf.FoldSplit.v1")
def create_fold_split(corpus: Callable[..., Iterable[Example]], n_folds: int = 10, folds: List[int] = [0],
                      part: str = "train", seed: int = 0) -> FoldSplit:
    """Keep `corpus`'s examples in `folds` (part "heldout") or in the other
    folds (part "train"); "all" keeps everything."""
    return FoldSplit(corpus, n_folds=n_folds, folds=folds, part=part, seed=seed)


def _words_key(doc: Doc) -> bytes:
    return hashlib.blake2b("\x1f".join(t.text for t in doc).encode("utf8"), digest_size=16).digest()


class JackknifeAnnotations:
    """The annotated Docs a jack-knife run wrote (a DocBin), found by their
    words, and what to copy from them onto a predicted Doc.

    attrs: token attributes by spaCy name ("TAG", "POS", "MORPH", "LEMMA",
    ...); span_keys: span groups; ents: the entities."""

    def __init__(self, path: PathLike, attrs: Sequence[str] = ("TAG",), span_keys: Sequence[str] = (),
                 ents: bool = False) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise ValueError(f"Jack-knifed annotations not found: {str(self.path)!r}; run the "
                             "jack-knife step first (python -m spacy_adf jackknife, see its --help)")
        unknown = [a for a in attrs if a.upper() not in ATTR_IDS]
        if unknown:
            raise ValueError(f"Unknown token attribute(s) {unknown} in attrs; use spaCy names such as TAG, POS, MORPH")
        if not attrs and not span_keys and not ents:
            raise ValueError("JackknifedCorpus copies nothing: give attrs, span_keys or ents")
        self.attrs = [a.upper() for a in attrs]
        self.span_keys = list(span_keys)
        self.ents = ents
        self._vocab = None
        self._docs: Dict[bytes, List[Doc]] = {}

    def _load(self, vocab) -> None:
        if self._vocab is vocab:
            return
        docs: Dict[bytes, List[Doc]] = defaultdict(list)
        for doc in DocBin().from_disk(self.path).get_docs(vocab):
            docs[_words_key(doc)].append(doc)
        self._docs, self._vocab = dict(docs), vocab

    def annotated(self, reference: Doc) -> Doc:
        """The annotated Doc with the reference's words. Identical sentences
        share a fold (see `fold_of`), so any of their Docs was annotated by
        the same models; the first is taken, whatever the reading order."""
        self._load(reference.vocab)
        found = self._docs.get(_words_key(reference))
        if not found:
            words = " ".join(t.text for t in reference[:12])
            raise ValueError(f"{self.path} has no annotated sentence with the words {words!r}...: the "
                             "corpus differs from the one the jack-knife step read (rerun it)")
        return found[0]

    def apply(self, eg: Example) -> Example:
        """`eg` with the annotation copied onto its predicted Doc (a new Doc:
        a reader may hand out the same predicted Doc again)."""
        source = self.annotated(eg.reference)
        pred = eg.predicted
        if [t.text for t in pred] != [t.text for t in source]:
            raise ValueError(f"the predicted Doc's tokens differ from the jack-knifed Doc's: "
                             f"{pred.text[:60]!r} vs {source.text[:60]!r}")
        doc = pred.copy()
        if self.attrs:
            doc.from_array(self.attrs, source.to_array(self.attrs))
        for key in self.span_keys:
            if key not in source.spans:
                doc.spans[key] = []
                continue
            group = source.spans[key]
            doc.spans[key] = [Span(doc, s.start, s.end, label=s.label_) for s in group]
            if "heads" in group.attrs:
                doc.spans[key].attrs["heads"] = list(group.attrs["heads"])
        if self.ents:
            doc.set_ents([Span(doc, e.start, e.end, label=e.label_) for e in source.ents], default="outside")
        return Example(doc, eg.reference)


class JackknifedCorpus:
    """Reader: `corpus`'s examples with jack-knifed input annotation on the
    predicted Doc; ``annotations = null`` leaves them as read."""

    def __init__(self, corpus: Callable[..., Iterable[Example]], annotations: Optional[JackknifeAnnotations]) -> None:
        self.corpus = corpus
        self.annotations = annotations

    def __call__(self, nlp) -> Iterator[Example]:
        examples = self.corpus(nlp)
        yield from examples if self.annotations is None else map(self.annotations.apply, examples)


@registry.readers("spacy_adf.JackknifedCorpus.v1")
def create_jackknifed_corpus(corpus: Callable[..., Iterable[Example]], annotations: Optional[str] = None,
                             attrs: List[str] = ["TAG"], span_keys: List[str] = [],
                             ents: bool = False) -> JackknifedCorpus:
    """`corpus` with the predicted Docs' `attrs`, `span_keys` and `ents`
    taken from the DocBin `annotations` written by spacy_adf jackknife."""
    found = None if annotations is None else JackknifeAnnotations(annotations, attrs, span_keys, ents)
    return JackknifedCorpus(corpus, found)
