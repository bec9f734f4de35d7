"""KNP-format files (Kyoto University corpora: KWDLC, KU Wikipedia, ...) and
the segmentation reader `spacy_adf.KNPCorpus.v1`. The format, its escaped
surfaces and the head checks: docs/corpora.md, "KNP files"."""
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

from spacy.training import Example
from spacy.util import registry

from ..serialization.text_lines import check_file, PathLike, read_lines
from .reader_state import check_choice, limited
from .segmented import segmentation_pair

# one corpus file, a list, or one string of paths separated by commas (`check_files`)
PathsLike = Union[PathLike, Sequence[PathLike]]

_PHRASE_LINE = re.compile(r"[*+] (?:([0-9]+) )?(-?[0-9]+)([DPAI])(?: (.*))?\Z")
# The eight fixed fields after surface/reading/lemma, then the features.
_MORPH_TAIL = re.compile(r" (\S+) ([0-9]+) (\S+) ([0-9]+) (\S+) ([0-9]+) (\S+) ([0-9]+)(?: (.*))?\Z")
_UNESCAPED_SPACE = re.compile(r"(?<!\\) ")
_ESCAPE = re.compile(r'\\([ ␣"])')
# A morpheme line without escapes: 11 fields, then the features.
_PLAIN_MORPH = re.compile(
    r"([^ \\]+) ([^ \\]+) ([^ \\]+) (\S+) ([0-9]+) (\S+) ([0-9]+) (\S+) ([0-9]+) (\S+) ([0-9]+)(?: (.*))?\Z"
)
_SID = re.compile(r"S-ID:(\S+)")


@dataclass
class Morpheme:
    surface: str
    reading: str
    lemma: str
    pos: str
    subpos: str
    conj_type: str
    conj_form: str
    features: str = ""


@dataclass
class Bunsetsu:
    """A bunsetsu (or basic phrase): morphemes ``[start, end)``, head (-1: root), type (D, P, A, I)."""

    start: int
    end: int
    head: int
    dep_type: str
    features: str = ""


@dataclass
class KNPSentence:
    sid: Optional[str]
    comment: str  # the comment line(s) as written, "" if none
    morphemes: List[Morpheme] = field(default_factory=list)
    bunsetsu: List[Bunsetsu] = field(default_factory=list)
    tags: List[Bunsetsu] = field(default_factory=list)  # basic phrases (+ lines)
    line: int = 0  # line number of the sentence's first line

    @property
    def words(self) -> List[str]:
        return [m.surface for m in self.morphemes]

    @property
    def text(self) -> str:
        return "".join(m.surface for m in self.morphemes)


def _unescape(field_: str) -> str:
    if "\\" not in field_:
        return field_
    return _ESCAPE.sub(lambda m: '"' if m.group(1) == '"' else " ", field_)


def _split_head(head: str) -> Optional[List[str]]:
    """Split ``surface reading lemma`` (escaped) into the three fields."""
    parts = _UNESCAPED_SPACE.split(head)
    if len(parts) == 3 and all(parts):
        return [_unescape(p) for p in parts]
    # KNP corpus style: a trailing backslash is an escaped space whose space
    # is also the separator ("\ \ \ 特殊 ...").
    parts = head.split(" ")
    if len(parts) == 3 and all(parts):
        return [_unescape(p[:-1]) + " " if p.endswith("\\") else _unescape(p) for p in parts]
    return None


def parse_morpheme(line: str) -> Optional[Morpheme]:
    """A JUMAN-format morpheme line, or None if the line is not one."""
    match = _PLAIN_MORPH.match(line)
    if match is not None:
        surface, reading, lemma, pos, _, subpos, _, conj_type, _, conj_form, _, features = match.groups()
        return Morpheme(surface, reading, lemma, pos, subpos, conj_type, conj_form, features or "")
    if line.startswith(" "):
        line = "\\" + line  # JUMAN may write a space surface unescaped
    start = 1
    while True:
        i = line.find(" ", start)
        if i < 0:
            return None
        start = i + 1
        tail = _MORPH_TAIL.match(line, i)
        if tail is None:
            continue
        head = _split_head(line[:i])
        if head is None:
            continue
        pos, _, subpos, _, conj_type, _, conj_form, _, features = tail.groups()
        return Morpheme(*head, pos, subpos, conj_type, conj_form, features or "")


BAD_HEADS_MODES = ("raise", "skip", "ignore")
# (start morpheme, head, dep type, features, line number)
RawPhrase = Tuple[int, int, str, str, int]


def phrase_units(
    path: Path, name: str, raw: List[RawPhrase], n_morphemes: int, bad_heads: str
) -> Optional[List[Bunsetsu]]:
    """The units (`name`: bunsetsu, basic phrases, CaboCha chunks); None for a bad head with "skip"."""
    units: List[Bunsetsu] = []
    n = len(raw)
    plural = name if name == "bunsetsu" else name + "s"
    for i, (start, head, dep_type, features, lineno) in enumerate(raw):
        end = raw[i + 1][0] if i + 1 < n else n_morphemes
        if end == start:
            raise ValueError(f"{path}, line {lineno}: {name} without morphemes")
        if not -1 <= head < n:
            if bad_heads == "raise":
                raise ValueError(
                    f"{path}, line {lineno}: {name} {i} has head {head}, out of range: the sentence "
                    f"has {n} {plural} (-1 is the root). Pass bad_heads='skip' to drop such "
                    "sentences or 'ignore' to keep them as they are"
                )
            if bad_heads == "skip":
                return None
        units.append(Bunsetsu(start, end, head, dep_type, features))
    if raw and raw[0][0] != 0:
        raise ValueError(f"{path}, line {raw[0][4]}: morphemes before the first {name} line of the sentence")
    return units


def sentence_of(comments: List[str], sid_pattern: "re.Pattern[str]", first: int, **units) -> KNPSentence:
    """The sentence from line `first` with its comments (ID: group 1 of `sid_pattern`) and `units`."""
    comment = "\n".join(comments)
    sid = sid_pattern.search(comment)
    return KNPSentence(sid=sid.group(1) if sid else None, comment=comment, line=first, **units)


def bad_line(path: Path, lineno: int, line: str, first: int, expected: str) -> ValueError:
    """The error of a line inside the sentence from line `first` that is not `expected`."""
    if not line.strip():
        return ValueError(f"{path}, line {lineno}: blank line inside the sentence from line {first} (missing EOS?)")
    return ValueError(f"{path}, line {lineno}: malformed line (not {expected}): {line[:200]!r}")


def check_files(paths: PathsLike, what: str) -> List[Path]:
    """The corpus files of ``paths`` (one, a list, or a string of paths separated
    by commas: ``--paths.train kwdlc/train.knp,ku/train.knp``), each checked to exist."""
    if isinstance(paths, (str, Path)):
        parts: List[PathLike] = [p.strip() for p in str(paths).split(",")] if "," in str(paths) else [paths]
    else:
        parts = list(paths)
    if not parts or any(not str(p) for p in parts):
        raise ValueError(f"empty {what} path in {paths!r}; check --paths.train/--paths.dev")
    return [check_file(p, what) for p in parts]


def read_knp(path: PathLike, limit: int = 0, bad_heads: str = "raise") -> Iterator[KNPSentence]:
    """Every sentence of a KNP file (``limit=0``: all; ``bad_heads``: docs/corpora.md, "KNP files");
    a ValueError names the file and line of a malformed input."""
    check_choice("bad_heads", bad_heads, BAD_HEADS_MODES)
    # Checked here, not when the first sentence is asked for.
    return limited(_iter_knp(check_file(path, "KNP"), bad_heads), limit)


def _iter_knp(path: Path, bad_heads: str) -> Iterator[KNPSentence]:
    first = 0  # line number of the open sentence's first line, 0 if none
    comments: List[str] = []
    morphemes: List[Morpheme] = []
    raw: Dict[str, List[RawPhrase]] = {"*": [], "+": []}
    for lineno, line in read_lines(path):
        kind = line[:1]
        if not first:
            if not line.strip():
                continue  # blank lines between sentences
            first = lineno
        if kind == "*" or kind == "+":
            match = _PHRASE_LINE.match(line)
            if match is not None:
                own_id, head, dep_type, features = match.groups()
                units = raw[kind]
                if own_id is not None and int(own_id) != len(units):
                    raise ValueError(f"{path}, line {lineno}: phrase number {own_id} should be {len(units)}")
                units.append((len(morphemes), int(head), dep_type, features or "", lineno))
                continue
        elif line == "EOS":
            bunsetsu = phrase_units(path, "bunsetsu", raw["*"], len(morphemes), bad_heads)
            tags = phrase_units(path, "basic phrase", raw["+"], len(morphemes), bad_heads)
            if bunsetsu and tags:
                tag_starts = {t.start for t in tags}
                for unit, phrase in zip(bunsetsu, raw["*"]):
                    if unit.start not in tag_starts:
                        raise ValueError(
                            f"{path}, line {phrase[4]}: bunsetsu does not begin with a basic phrase ('+' line)"
                        )
            if bunsetsu is not None and tags is not None:
                yield sentence_of(comments, _SID, first, morphemes=morphemes, bunsetsu=bunsetsu, tags=tags)
            first = 0
            comments, morphemes, raw = [], [], {"*": [], "+": []}
            continue
        elif kind == "#":
            if not (morphemes or raw["*"] or raw["+"]):
                comments.append(line)
                continue
            if line.startswith("# S-ID:"):
                raise ValueError(
                    f"{path}, line {lineno}: a new sentence begins but the sentence from line "
                    f"{first} has no EOS line"
                )
        morpheme = parse_morpheme(line)
        if morpheme is None:
            raise bad_line(path, lineno, line, first,
                           "a comment, '*'/'+' phrase line, JUMAN morpheme with 11 fields, or EOS")
        morphemes.append(morpheme)
    if first:
        raise ValueError(f"{path}: the sentence from line {first} has no EOS line (end of file)")


# the shape of ConlluCorpus (check, hold, read): each reader parses its own format
class KNPCorpus:
    def __init__(self, path: PathsLike, limit: int = 0, bad_heads: str = "ignore"):
        check_choice("bad_heads", bad_heads, BAD_HEADS_MODES)
        self.paths = check_files(path, "KNP")
        self.limit, self.bad_heads = limit, bad_heads

    def __call__(self, nlp) -> Iterator[Example]:
        sentences = itertools.chain.from_iterable(_iter_knp(path, self.bad_heads) for path in self.paths)
        for sentence in limited(sentences, self.limit):
            if sentence.morphemes:
                yield Example(*segmentation_pair(nlp, sentence.words))


# the config's own signature (thinc validates against it; no path: the --paths hint), KNPCorpus the reader
@registry.readers("spacy_adf.KNPCorpus.v1")
def create_knp_reader(path: Optional[PathsLike], limit: int = 0, bad_heads: str = "ignore") -> KNPCorpus:
    """Segmentation Examples from one or more KNP files (`check_files`); heads are unused: "ignore"."""
    if path is None:
        raise ValueError("no corpus path: pass --paths.train / --paths.dev")
    return KNPCorpus(path, limit=limit, bad_heads=bad_heads)
