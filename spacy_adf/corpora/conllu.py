"""CoNLL-U files (Universal Dependencies) as word-segmentation corpora: the
surface tokens and their spaces (docs/corpora.md, "CoNLL-U for
segmentation") and the reader `spacy_adf.ConlluCorpus.v1`."""
import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, List, Optional, Tuple

from spacy.training import Example
from spacy.util import registry

from ..serialization.text_lines import check_file, PathLike, read_lines
from .reader_state import check_choice, limited
from .segmented import segmentation_pair

SPACES_MODES = ("auto", "misc", "none")
_N_COLUMNS = 10
_WORD_ID = re.compile(r"[1-9][0-9]*")
_RANGE_ID = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)")
_EMPTY_ID = re.compile(r"[0-9]+\.[1-9][0-9]*")
_TEXT_COMMENT = re.compile(r"#\s*text\s*=\s?(.*)")
_SENT_ID_COMMENT = re.compile(r"#\s*sent_id\s*=\s?(.*)")


@dataclass
class ConlluSentence:
    """The surface tokens of one CoNLL-U sentence; ``line``: its first line (comments included),
    ``text_line``: its ``# text`` comment's (0 if none)."""

    words: List[str]
    spaces: List[bool]
    sent_id: Optional[str] = None
    text: Optional[str] = None
    line: int = 0
    text_line: int = 0


def _spaces_from_text(
    words: List[str], text: str, path: Path, text_line: int, sent_id: Optional[str]
) -> List[bool]:
    spaces: List[bool] = []
    pos = 0
    stripped = text.strip()
    where = f"sentence {sent_id!r}" if sent_id else "sentence"
    mismatch = f"{path}, line {text_line}: the tokens of {where} do not match its '# text': "
    for i, word in enumerate(words):
        if not stripped.startswith(word, pos):
            raise ValueError(f"{mismatch}token {i + 1} {word!r} is not at character {pos} of {stripped!r} "
                             f"(found {stripped[pos:pos + len(word) + 5]!r})")
        pos += len(word)
        end = pos
        while end < len(stripped) and stripped[end].isspace():
            end += 1
        spaces.append(end > pos)
        pos = end
    if pos != len(stripped):
        raise ValueError(f"{mismatch}they end before the text does, {stripped[pos:]!r} is left over")
    if spaces:
        spaces[-1] = False
    return spaces


def read_conllu(path: PathLike, limit: int = 0, spaces: str = "auto") -> Iterator[ConlluSentence]:
    """The surface tokens of each sentence of a CoNLL-U file (``spaces``: docs/corpora.md; ``limit=0``:
    all); a ValueError names the line of a malformed input or of tokens that do not spell ``# text``."""
    check_choice("spaces", spaces, SPACES_MODES)
    # Checked here, not when the first sentence is asked for.
    return limited(_iter_conllu(check_file(path, "CoNLL-U"), spaces), limit)


def _iter_conllu(path: Path, spaces: str) -> Iterator[ConlluSentence]:
    block: List[Tuple[int, str]] = []
    for lineno, line in itertools.chain(read_lines(path), [(0, "")]):  # a blank line ends the last sentence
        if line.strip():
            block.append((lineno, line))
            continue
        sentence = _sentence(path, block, spaces, at_end=lineno == 0) if block else None
        block = []
        if sentence is not None:
            yield sentence


def _sentence(path: Path, block: List[Tuple[int, str]], spaces: str, at_end: bool) -> Optional[ConlluSentence]:
    """The sentence of one block of non-blank lines; None for comments only (an
    error if they hold a ``# text``, unless at the end of the file)."""
    words: List[str] = []
    misc: List[str] = []
    sent_id = text = None
    text_line = skip_to = 0
    for lineno, line in block:
        if line.startswith("#"):
            if words:
                continue  # a comment after the tokens: not valid CoNLL-U, but harmless
            match = _TEXT_COMMENT.fullmatch(line)
            if match:
                text, text_line = match.group(1), lineno
            else:
                match = _SENT_ID_COMMENT.fullmatch(line)
                if match:
                    sent_id = match.group(1).strip()
            continue
        cols = line.split("\t")
        if len(cols) != _N_COLUMNS:
            raise ValueError(
                f"{path}, line {lineno}: expected {_N_COLUMNS} tab-separated columns, "
                f"found {len(cols)}: {line[:200]!r}"
            )
        token_id, form = cols[0], cols[1]
        word = _WORD_ID.fullmatch(token_id)
        multiword = None if word else _RANGE_ID.fullmatch(token_id)
        if word and int(token_id) <= skip_to:
            continue  # a part of a multiword token
        if not (word or multiword):
            if _EMPTY_ID.fullmatch(token_id):
                continue  # empty node (enhanced dependencies): no surface token
            raise ValueError(f"{path}, line {lineno}: bad token ID {token_id!r} in {line[:200]!r}")
        if multiword:
            skip_to = int(multiword.group(2))
            if skip_to < int(multiword.group(1)):
                raise ValueError(f"{path}, line {lineno}: bad multiword token range {token_id!r}")
        if not form:
            raise ValueError(f"{path}, line {lineno}: empty FORM")
        words.append(form)
        misc.append(cols[9])
    if not words:
        if text is not None and not at_end:
            raise ValueError(f"{path}, line {block[0][0]}: sentence has comments but no tokens")
        return None
    if spaces == "none":
        flags = [False] * len(words)
    elif spaces == "auto" and text is not None:
        flags = _spaces_from_text(words, text, path, text_line, sent_id)
    else:
        flags = ["SpaceAfter=No" not in m.split("|") for m in misc]
        flags[-1] = False
    return ConlluSentence(words, flags, sent_id, text, block[0][0], text_line)


class ConlluCorpus:
    def __init__(self, path: PathLike, limit: int = 0, spaces: str = "auto"):
        check_choice("spaces", spaces, SPACES_MODES)
        self.path = check_file(path, "CoNLL-U")
        self.limit, self.spaces = limit, spaces

    def __call__(self, nlp) -> Iterator[Example]:
        for sentence in read_conllu(self.path, self.limit, self.spaces):
            yield Example(*segmentation_pair(nlp, sentence.words, sentence.spaces))


# the config's own signature (thinc validates against it; no path: the --paths hint), ConlluCorpus the reader
@registry.readers("spacy_adf.ConlluCorpus.v1")
def create_conllu_reader(path: Optional[PathLike], limit: int = 0, spaces: str = "auto") -> ConlluCorpus:
    if path is None:
        raise ValueError("no corpus path: pass --paths.train / --paths.dev")
    return ConlluCorpus(path, limit=limit, spaces=spaces)
