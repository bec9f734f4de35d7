"""The one reader of word2vec/fastText text files (docs/training.md, "Word vectors")."""
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Tuple, Union

import numpy
from spacy.vocab import Vocab

from ..serialization.text_lines import check_file, read_lines
from ..command_line import run_command


def open_word2vec(path: Union[str, Path]) -> Tuple[Path, int, int, Iterator[Tuple[str, numpy.ndarray]]]:
    """(the file, the header's numbers of vectors and dimensions, an iterator
    of (word, float32 vector), checked as it reads; errors name the line)."""
    path = check_file(path, "word2vec vectors", hint="")
    lines = _lines(path)
    header = next((item for item in lines if item[1].strip()), None)
    if header is None:
        raise ValueError(f"word2vec file {path} is empty (a word2vec text file starts with a line 'N DIM': "
                         "the numbers of vectors and dimensions)")
    lineno, line = header
    cols = line.split()
    if len(cols) != 2 or not all(c.isdigit() and int(c) > 0 for c in cols):
        raise ValueError(f"word2vec file {path}, line {lineno}: expected the header 'N DIM' (the numbers of "
                         f"vectors and dimensions, as word2vec and fastText write it), got {line[:80]!r}")
    n, dims = int(cols[0]), int(cols[1])
    return path, n, dims, _vectors(path, lines, n, dims)


def _lines(path: Path) -> Iterator[Tuple[int, str]]:
    try:
        yield from read_lines(path)
    except ValueError as e:  # bytes that are not UTF-8
        raise ValueError(f"word2vec file {e} (the binary word2vec format is not read: save the vectors as "
                         "text)") from None


def _vectors(path: Path, lines: Iterator[Tuple[int, str]], n: int, dims: int
             ) -> Iterator[Tuple[str, numpy.ndarray]]:
    line_of: Dict[str, int] = {}
    for lineno, line in lines:
        if not line.strip():
            continue
        if len(line_of) == n:
            raise ValueError(f"word2vec file {path}, line {lineno}: more vectors than the {n:,} of its header")
        # split at the space alone: a word may be another whitespace character (U+3000 in Japanese text)
        cols = [c for c in line.rstrip(" ").split(" ") if c]
        word = cols[0]
        if len(cols) != dims + 1:
            raise ValueError(f"word2vec file {path}, line {lineno}: {len(cols) - 1} values after the word "
                             f"{word!r}, but the header says {dims} dimensions")
        try:
            vector = numpy.array(cols[1:], dtype=numpy.float32)
        except ValueError as e:
            raise ValueError(f"word2vec file {path}, line {lineno}: a value of {word!r} is not a number "
                             f"({e})") from None
        if not numpy.isfinite(vector).all():
            raise ValueError(f"word2vec file {path}, line {lineno}: the vector of {word!r} is not finite")
        if word in line_of:
            raise ValueError(f"word2vec file {path}, line {lineno}: the word {word!r} has a vector already "
                             f"(line {line_of[word]})")
        line_of[word] = lineno
        yield word, vector
    if len(line_of) < n:
        raise ValueError(f"word2vec file {path} has {len(line_of):,} vectors, but its header says {n:,}: "
                         "is it cut short?")


def read_word2vec(path: Union[str, Path]) -> Tuple[List[str], numpy.ndarray]:
    """(words, float32 array (N, DIM)) of a word2vec text file."""
    _, n, dims, vectors = open_word2vec(path)
    data = numpy.empty((n, dims), dtype=numpy.float32)
    words: List[str] = []
    for word, vector in vectors:
        data[len(words)] = vector
        words.append(word)
    return words, data


def set_vectors(vocab: Vocab, words: List[str], data: numpy.ndarray, name: str) -> None:
    """Make `data` the vocab's vectors table, row i the vector of words[i]."""
    from spacy.vectors import Vectors

    keys = [vocab.strings.add(w) for w in words]
    vocab.vectors = Vectors(strings=vocab.strings, data=data, keys=keys, name=name)


def main(argv=None) -> int:  # arguments declared for run_command, as every command's
    return run_command(argv, "vectors", "Read a word2vec text file ('N DIM' header, then 'word v1 ... vDIM' lines) "
                       "into a blank pipeline saved at OUTPUT, for a config's [initialize] vectors (what spacy "
                       "init vectors does, with errors that name the file and line).", [
                           ("lang", dict(help="the pipeline's language code, e.g. en")),
                           ("vectors", dict(help="the word2vec text file (UTF-8)")),
                           ("output", dict(help="the folder to write the pipeline to")),
                           ("--name", dict(default=None,
                                           help="the vectors' name (default: LANG_FILE-NAME.vectors)")),
                       ], _write_vectors)


def _write_vectors(args) -> None:
    import spacy

    words, data = read_word2vec(args.vectors)
    nlp = spacy.blank(args.lang)
    name = args.name or f"{args.lang}_{Path(args.vectors).stem}.vectors"
    set_vectors(nlp.vocab, words, data, name)
    nlp.to_disk(args.output)
    print(f"{len(words):,} vectors of {data.shape[1]} dimensions in {args.output}", file=sys.stderr)
