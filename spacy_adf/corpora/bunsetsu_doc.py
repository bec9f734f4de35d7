"""Building one bunsetsu dependency Doc from a sentence's token columns and
bunsetsu heads, with the readers' policy for bad heads (``bad_heads``:
raise, repair or skip) and their counters. Shared by the KNP / CaboCha
reader (`spacy_adf.corpora.bunsetsu`) and the CoNLL-U conversion
(`spacy_adf.corpora.bunsetsu_conllu`)."""
from collections import Counter
from typing import List, Optional, Tuple

from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..lang.ja.bunsetsu import BUNSETSU_KEY, check_bunsetsu_heads, set_bunsetsu_tree

__all__ = ["BAD_HEADS_MODES", "check_bad_heads_mode", "make_bunsetsu_doc"]

BAD_HEADS_MODES = ("raise", "repair", "skip")


def check_bad_heads_mode(bad_heads: str) -> None:
    """ValueError unless ``bad_heads`` is one of `BAD_HEADS_MODES`."""
    if bad_heads not in BAD_HEADS_MODES:
        raise ValueError(f"bad_heads must be one of {list(BAD_HEADS_MODES)}, not {bad_heads!r}")


def make_bunsetsu_doc(
    vocab: Vocab,
    words: List[str],
    tags: List[str],
    pos: List[str],
    lemmas: List[str],
    morphs: List[str],
    bounds: List[Tuple[int, int]],
    heads: List[int],
    dep_types: List[str],
    sent_id: Optional[str],
    bad_heads: str,
    stats: Optional[Counter] = None,
) -> Optional[Doc]:
    """One sentence as a Doc (the data model of `spacy_adf.corpora.bunsetsu`):
    tokens with ``spaces`` all False, bunsetsu spans ``bounds`` (token start,
    end) in `BUNSETSU_KEY`, and the tree from ``heads`` / ``dep_types``.

    Bad heads raise a ValueError (``bad_heads="raise"``), are repaired
    (``"repair"``) or give None (``"skip"``); None also for a sentence without
    words. ``stats`` (a Counter) counts sentences, docs, repaired, skipped and
    empty.
    """
    check_bad_heads_mode(bad_heads)
    if stats is not None:
        stats["sentences"] += 1
    if not words:
        if stats is not None:
            stats["empty"] += 1
        return None
    problem = check_bunsetsu_heads(heads)
    if problem is not None:
        if not bounds and bad_heads != "skip":
            where = f"sentence {sent_id!r}" if sent_id else f"sentence {''.join(words)[:40]!r}"
            raise ValueError(f"{where}: no bunsetsu (a morpheme-only analysis?)")
        if bad_heads == "skip":
            if stats is not None:
                stats["skipped"] += 1
            return None
        if stats is not None:
            stats["repaired"] += 1
    doc = Doc(
        vocab, words=words, spaces=[False] * len(words), tags=tags, pos=pos, lemmas=lemmas, morphs=morphs
    )
    if sent_id:
        doc.user_data["sent_id"] = sent_id
    doc.spans[BUNSETSU_KEY] = [doc[start:end] for start, end in bounds]
    set_bunsetsu_tree(doc, heads, dep_types, repair=bad_heads == "repair", name=sent_id)
    if stats is not None:
        stats["docs"] += 1
    return doc
