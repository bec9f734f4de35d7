"""Blitzer et al. (2007) sentiment data (``processed_acl``) and the reader `spacy_adf.BlitzerCorpus.v1`
(docs/corpora.md, "Blitzer sentiment reviews")."""
import hashlib
from pathlib import Path
from typing import Dict, Iterator, List, NamedTuple, Optional, Tuple

from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import registry

from ..features.ngrams import FEATURES_KEY
from ..serialization.text_lines import check_file, PathLike, read_lines

LABELS = ("positive", "negative")
SPLITS = ("train", "test", "all")
FOLD_PARTS = ("train", "heldout")
TEST_FRACTION = 0.2


class BlitzerReview(NamedTuple):
    label: str
    features: Dict[str, int]
    line_no: int

    @property
    def words(self) -> List[str]:
        return [feat for feat, count in self.features.items() if "_" not in feat for _ in range(count)]


def parse_line(line: str, where: str = "") -> Tuple[Dict[str, int], str]:
    """({feature: count}, label) of one processed_acl line."""
    parts = line.split()
    if not parts:
        raise ValueError(f"{where}: empty line")
    last = parts[-1]
    if not last.startswith("#label#:"):
        raise ValueError(f"{where}: the line does not end with a '#label#:<label>' field")
    label = last[len("#label#:"):]
    if label not in LABELS:
        raise ValueError(f"{where}: unknown label {label!r} (expected positive or negative)")
    feats: Dict[str, int] = {}
    for pair in parts[:-1]:
        feat, sep, count = pair.rpartition(":")
        if not sep or not feat:
            raise ValueError(f"{where}: {pair[:60]!r} is not a 'feature:count' pair")
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"{where}: the count in {pair[:60]!r} is not a positive integer")
        if feat.startswith("#label#"):
            raise ValueError(f"{where}: '#label#' field before the end of the line")
        feats[feat] = feats.get(feat, 0) + int(count)
    return feats, label


def read_reviews(path: PathLike, expected_label: Optional[str] = None) -> List[BlitzerReview]:
    """Every review of one .review file (line numbers from 1)."""
    out = []
    for i, line in read_lines(check_file(path, "Blitzer", hint="; check --paths.blitzer")):
        if not line.strip():
            continue
        feats, label = parse_line(line, f"{path}, line {i}")
        if expected_label is not None and label != expected_label:
            raise ValueError(
                f"{path}, line {i}: label {label!r} in a file of {expected_label!r} reviews"
            )
        out.append(BlitzerReview(label, feats, i))
    return out


def _rank_key(seed: int, label: str, line_no: int) -> bytes:
    return hashlib.sha256(f"{seed}|{label}|{line_no}".encode("utf8")).digest()


def select_reviews(
    reviews_by_label: Dict[str, List[BlitzerReview]],
    *,
    split: str = "train",
    seed: int = 0,
    n_folds: int = 0,
    fold: int = 0,
    fold_part: str = "train",
) -> List[BlitzerReview]:
    """The reviews of one protocol cell, in hash order (docs/corpora.md)."""
    check_protocol(split, seed, n_folds, fold, fold_part)
    chosen: List[Tuple[bytes, BlitzerReview]] = []
    for label in LABELS:
        ranked = sorted(reviews_by_label.get(label, []),
                        key=lambda r: _rank_key(seed, label, r.line_no))
        n_test = int(round(TEST_FRACTION * len(ranked)))
        part = {"test": ranked[:n_test], "train": ranked[n_test:], "all": ranked}[split]
        if n_folds > 1:
            part = [r for i, r in enumerate(part) if (i % n_folds == fold) == (fold_part == "heldout")]
        chosen.extend((_rank_key(seed, "order|" + label, r.line_no), r) for r in part)
    chosen.sort(key=lambda kr: kr[0])
    return [r for _, r in chosen]


def check_protocol(split: str, seed: int, n_folds: int, fold: int, fold_part: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {', '.join(SPLITS)}; got {split!r}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    if not isinstance(n_folds, int) or isinstance(n_folds, bool) or n_folds < 0 or n_folds == 1:
        raise ValueError(f"n_folds must be 0 (no cross-validation) or at least 2, got {n_folds!r}")
    if n_folds and (not isinstance(fold, int) or isinstance(fold, bool) or not 0 <= fold < n_folds):
        raise ValueError(f"fold must be in [0, {n_folds}), got {fold!r}")
    if fold_part not in FOLD_PARTS:
        raise ValueError(f"fold_part must be 'train' or 'heldout', got {fold_part!r}")


class BlitzerCorpus:
    def __init__(self, path: PathLike, *, split: str = "train", seed: int = 0, n_folds: int = 0,
                 fold: int = 0, fold_part: str = "train", limit: int = 0):
        check_protocol(split, seed, n_folds, fold, fold_part)
        self.path = Path(path)
        if not self.path.is_dir():
            raise ValueError(
                f"Blitzer domain directory {self.path} does not exist (it should hold "
                "positive.review and negative.review); check --paths.blitzer"
            )
        self.protocol = dict(split=split, seed=seed, n_folds=n_folds, fold=fold, fold_part=fold_part)
        self.limit = limit
        self._reviews: Optional[List[BlitzerReview]] = None

    def reviews(self) -> List[BlitzerReview]:
        if self._reviews is None:
            by_label = {lab: read_reviews(self.path / f"{lab}.review", lab) for lab in LABELS}
            selected = select_reviews(by_label, **self.protocol)
            self._reviews = selected[: self.limit] if self.limit else selected
        return self._reviews

    def __call__(self, nlp) -> Iterator[Example]:
        for review in self.reviews():
            yield make_example(nlp.vocab, review)


def make_example(vocab, review: BlitzerReview) -> Example:
    words = review.words
    predicted = Doc(vocab, words=words, user_data={FEATURES_KEY: dict(review.features)})
    reference = Doc(vocab, words=words, user_data={FEATURES_KEY: dict(review.features)})
    reference.cats = {lab: float(lab == review.label) for lab in LABELS}
    return Example(predicted, reference)


@registry.readers("spacy_adf.BlitzerCorpus.v1")
def create_blitzer_reader(
    path: Optional[PathLike],
    split: str = "train",
    seed: int = 0,
    n_folds: int = 0,
    fold: int = 0,
    fold_part: str = "train",
    limit: int = 0,
) -> BlitzerCorpus:
    """path: a domain directory (e.g. .../blitzer_sentiment/books); the options: docs/corpora.md."""
    if path is None:
        raise ValueError("no Blitzer domain directory: pass --paths.blitzer")
    return BlitzerCorpus(path, split=split, seed=seed, n_folds=n_folds, fold=fold,
                         fold_part=fold_part, limit=limit)
