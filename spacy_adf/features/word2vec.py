"""Word vectors from a word2vec text file: a header line "N DIM", then N
lines "word v1 ... vDIM", separated by spaces (so a word cannot contain one;
GloVe files without the header are not this format). What `python -m spacy_adf vectors` reads into a blank
pipeline for ``[initialize] vectors``, as `spacy init vectors` does, but
with errors that name the file and line: an empty file, a bad header, a
line with another number of values than the header says, a value that is
not a finite number, a word given twice, fewer or more lines than the
header says, bytes that are not UTF-8.
"""
import math
import sys
from pathlib import Path
from typing import List, Tuple, Union

import numpy
from spacy.vocab import Vocab

from ..serialization.text_lines import check_file, read_lines


def read_word2vec(path: Union[str, Path]) -> Tuple[List[str], numpy.ndarray]:
    """(words, float32 array (N, DIM)) of a word2vec text file; ValueError
    naming the file (and line) for anything else."""
    path = check_file(path, "word vectors", hint="")
    lines = read_lines(path)
    for lineno, header in lines:
        if header.strip():
            break
    else:
        raise ValueError(f"{path}: the word vectors file is empty (a word2vec text file starts with a line "
                         "'N DIM': the number of words and of dimensions)")
    parts = header.split()
    if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise ValueError(f"{path}, line {lineno}: expected the header 'N DIM' (two positive integers: words "
                         f"and dimensions), got {header[:60]!r}")
    n, dim = int(parts[0]), int(parts[1])
    data = numpy.empty((n, dim), dtype=numpy.float32)
    words: List[str] = []
    seen = {}
    for lineno, line in lines:
        if not line.strip():
            continue
        pieces = [p for p in line.rstrip().split(" ") if p]
        word = pieces[0]
        if len(pieces) != dim + 1:
            raise ValueError(f"{path}, line {lineno}: {len(pieces) - 1} values, but the header says {dim} "
                             "dimensions")
        if len(words) == n:
            raise ValueError(f"{path}, line {lineno}: more words than the {n} the header announces")
        try:
            row = [float(x) for x in pieces[1:]]
        except ValueError:
            bad = next(x for x in pieces[1:] if not _is_number(x))
            raise ValueError(f"{path}, line {lineno}: {bad!r} is not a number") from None
        if not all(math.isfinite(x) and abs(x) < 3.4e38 for x in row):
            raise ValueError(f"{path}, line {lineno}: the vector of {word!r} has a value that is not finite")
        if word in seen:
            raise ValueError(f"{path}, line {lineno}: the word {word!r} has a vector already (line {seen[word]})")
        seen[word] = lineno
        data[len(words)] = row
        words.append(word)
    if len(words) != n:
        raise ValueError(f"{path}: the header announces {n} words, the file has {len(words)}")
    return words, data


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def set_vectors(vocab: Vocab, words: List[str], data: numpy.ndarray, name: str) -> None:
    """Make `data` the vocab's vectors table, row i the vector of words[i]
    (keyed by the word's ORTH hash, as spaCy keys its tables)."""
    from spacy.vectors import Vectors

    keys = [vocab.strings.add(w) for w in words]
    vocab.vectors = Vectors(strings=vocab.strings, data=data, keys=keys, name=name)


def main(argv=None) -> int:
    import argparse

    import spacy

    p = argparse.ArgumentParser(
        prog="python -m spacy_adf vectors",
        description="Read a word2vec text file ('N DIM' header, then 'word v1 ... vDIM' lines) into a blank "
                    "pipeline saved at OUTPUT, for a config's [initialize] vectors (what spacy init vectors "
                    "does, with errors that name the file and line).")
    p.add_argument("lang", help="the pipeline's language code, e.g. en")
    p.add_argument("vectors", help="the word2vec text file (UTF-8)")
    p.add_argument("output", help="the folder to write the pipeline to")
    p.add_argument("--name", default=None, help="the vectors' name (default: LANG_FILE-NAME.vectors)")
    args = p.parse_args(argv)
    try:
        words, data = read_word2vec(args.vectors)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    nlp = spacy.blank(args.lang)
    name = args.name or f"{args.lang}_{Path(args.vectors).stem}.vectors"
    set_vectors(nlp.vocab, words, data, name)
    nlp.to_disk(args.output)
    print(f"{len(words):,} vectors of {data.shape[1]} dimensions in {args.output}", file=sys.stderr)
    return 0
