"""CaboCha dependency files (lattice format, ``cabocha -f1``) as
`KNPSentence` objects: morphemes and bunsetsu with heads, labels as written,
heads unchecked (docs/corpora.md, "CaboCha files")."""
import re
from pathlib import Path
from typing import Iterator, List

from ..serialization.text_lines import check_file, PathLike, read_lines
from .knp import KNPSentence, Morpheme, RawPhrase, bad_line, phrase_units, sentence_of
from .reader_state import limited

_CHUNK_LINE = re.compile(r"\* (-?[0-9]+) (-?[0-9]+)([A-Za-z]+)(?: (.*))?\Z")
_SENT_ID_ATTR = re.compile(r"sent_id\s*=\s*([^<\s]+)")


def _cabocha_morpheme(fields: List[str]) -> Morpheme:
    """Surface + comma-separated UniDic (>= 10) or IPADIC features."""
    surface = fields[0]
    feats = fields[1].split(",")
    feats += [""] * (10 - len(feats))
    pos = feats[0] or "*"
    sub = "-".join(f for f in feats[1:4] if f and f != "*") or "*"
    if len(fields[1].split(",")) >= 10:
        lemma, reading = feats[7], feats[9]
    else:  # IPADIC
        lemma, reading = feats[6], feats[7]
    if not lemma or lemma == "*":
        lemma = surface
    return Morpheme(
        surface=surface,
        reading=reading or "*",
        lemma=lemma,
        pos=pos,
        subpos=sub,
        conj_type=feats[4] or "*",
        conj_form=feats[5] or "*",
        features="\t".join(fields[1:]),
    )


def read_cabocha(path: PathLike, limit: int = 0) -> Iterator[KNPSentence]:
    """Every sentence of a CaboCha (``-f1``) file; a ValueError names the file and line of a malformed input."""
    return limited(_iter_cabocha(check_file(path, "CaboCha")), limit)


def _iter_cabocha(path: Path) -> Iterator[KNPSentence]:
    first = 0
    comments: List[str] = []
    morphemes: List[Morpheme] = []
    chunks: List[RawPhrase] = []
    for lineno, line in read_lines(path):
        if not first:
            if not line.strip():
                continue
            first = lineno
        if line == "EOS":
            bunsetsu = phrase_units(path, "chunk", chunks, len(morphemes), "ignore")  # heads checked later
            yield sentence_of(comments, _SENT_ID_ATTR, first, morphemes=morphemes, bunsetsu=bunsetsu)
            first, comments, morphemes, chunks = 0, [], [], []
            continue
        if line.startswith("#! ") or line == "#!":
            comments.append(line)
            continue
        if line.startswith("* "):
            match = _CHUNK_LINE.match(line)
            if match is None:
                raise ValueError(f"{path}, line {lineno}: malformed chunk line {line[:200]!r}")
            own, head, label, features = match.groups()
            if int(own) != len(chunks):
                raise ValueError(f"{path}, line {lineno}: chunk number {own} should be {len(chunks)}")
            chunks.append((len(morphemes), int(head), label, features or "", lineno))
            continue
        fields = line.split("\t")
        if len(fields) < 2 or not fields[0]:
            raise bad_line(path, lineno, line, first, "'#! ' comment, '* ' chunk line, TAB-separated morpheme or EOS")
        if not chunks:
            raise ValueError(f"{path}, line {lineno}: morpheme before the first chunk ('* ') line")
        morphemes.append(_cabocha_morpheme(fields))
    if first:
        raise ValueError(f"{path}: the sentence from line {first} has no EOS line (end of file)")
