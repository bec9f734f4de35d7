"""CoNLL-U files with ``BunsetuBILabel`` in MISC (UD Japanese-GSD, -PUDLUW)
as bunsetsu dependency Docs: the bunsetsu from the B/I labels, their heads
from the UD word heads (docs/corpora.md, "CoNLL-U with BunsetuBILabel")."""
import itertools
import re
from collections import Counter
from typing import Dict, Iterator, List, Optional, Tuple

from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..lang.ja.pos import make_morph, make_tag, split_xpos, unidic_upos
from ..lang.ja.ud_heads import ud_to_bunsetsu_heads
from ..serialization.text_lines import check_file, PathLike, read_lines
from .bunsetsu_doc import BAD_HEADS_MODES, make_bunsetsu_doc
from .reader_state import check_choice


def _misc_dict(misc: str) -> Dict[str, str]:
    return dict(kv.split("=", 1) for kv in misc.split("|") if "=" in kv)


def conllu_bunsetsu_docs(
    path: PathLike,
    vocab: Vocab,
    limit: int = 0,
    bad_heads: str = "raise",
    upos: str = "column",
    stats: Optional[Counter] = None,
) -> Iterator[Doc]:
    """Bunsetsu Docs from a CoNLL-U file with ``BunsetuBILabel`` in MISC (``limit``: sentences
    read, 0 = all; the rest as in `make_bunsetsu_doc`)."""
    check_choice("bad_heads", bad_heads, BAD_HEADS_MODES)
    if upos not in ("column", "unidic"):
        raise ValueError(f"upos must be 'column' or 'unidic', not {upos!r}")
    return _iter_conllu_docs(check_file(path, "CoNLL-U"), vocab, limit, bad_heads, upos, stats)


def _iter_conllu_docs(path, vocab, limit, bad_heads, upos_mode, stats) -> Iterator[Doc]:
    count = 0
    rows: List[Tuple[int, List[str]]] = []
    sent_id: Optional[str] = None

    def convert() -> Optional[Doc]:
        words, tags, pos, lemmas, morphs, word_heads, bunsetsu_of = [], [], [], [], [], [], []
        b = -1
        for lineno, cols in rows:
            misc = _misc_dict(cols[9])
            label = misc.get("BunsetuBILabel")
            if label not in ("B", "I"):
                raise ValueError(f"{path}, line {lineno}: no BunsetuBILabel=B/I in MISC {cols[9][:100]!r}")
            if label == "B" or b < 0:
                b += 1
            try:
                head = int(cols[6])
            except ValueError:
                head = -1
            if not 0 <= head <= len(rows):
                raise ValueError(f"{path}, line {lineno}: bad HEAD {cols[6]!r}")
            pos1, sub, conj = split_xpos(cols[4])
            words.append(cols[1])
            tags.append(make_tag(pos1, sub))
            pos.append(cols[3] if upos_mode == "column" else unidic_upos(pos1, sub.split("-")[0]))
            lemmas.append(cols[2] if cols[2] != "_" else cols[1])
            morphs.append(make_morph(pos1, sub, conj))
            word_heads.append(head)
            bunsetsu_of.append(b)
        starts = [i for i, owner in enumerate(bunsetsu_of) if i == 0 or owner != bunsetsu_of[i - 1]]
        bounds = list(zip(starts, starts[1:] + [len(bunsetsu_of)]))
        heads = ud_to_bunsetsu_heads(word_heads, bunsetsu_of)
        return make_bunsetsu_doc(
            vocab, words, tags, pos, lemmas, morphs, bounds, heads,
            ["D"] * len(bounds), sent_id, bad_heads, stats,
        )

    for lineno, line in itertools.chain(read_lines(path), [(0, "")]):  # a blank line ends the last sentence
        if not line.strip():
            if rows:
                doc = convert()
                if doc is not None:
                    yield doc
                count += 1
                if limit and count >= limit:
                    return
            rows, sent_id = [], None
            continue
        if line.startswith("#"):
            match = re.match(r"#\s*sent_id\s*=\s*(\S+)", line)
            if match:
                sent_id = match.group(1)
            continue
        cols = line.split("\t")
        if len(cols) != 10:
            raise ValueError(f"{path}, line {lineno}: expected 10 tab-separated columns, found {len(cols)}")
        if not cols[0].isdigit():
            continue  # multiword-token range or empty node
        rows.append((lineno, cols))
