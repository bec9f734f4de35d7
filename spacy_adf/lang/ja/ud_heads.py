"""Bunsetsu heads from UD word heads, for UD Japanese gold (`corpora.bunsetsu_conllu`)
and GiNZA's trees (`benchmarks/ginza.py`) alike. Standard library only: the
benchmark loads this file by its path in GiNZA's own environment."""
from typing import List, Optional, Sequence


def ud_to_bunsetsu_heads(word_heads: Sequence[int], bunsetsu_of: Sequence[int]) -> List[int]:
    """Bunsetsu heads from UD word heads (1-based, 0 = root) and each word's bunsetsu, backward
    (``conj``) arcs made head-final as KNP writes coordination; maybe invalid (`check_bunsetsu_heads`)."""
    n = (max(bunsetsu_of) + 1) if bunsetsu_of else 0
    heads: List[Optional[int]] = [None] * n
    for w in range(len(word_heads) - 1, -1, -1):  # rightmost word first
        b = bunsetsu_of[w]
        h = word_heads[w]
        if h == 0:
            heads[b] = -1
        elif bunsetsu_of[h - 1] != b and heads[b] is None:
            heads[b] = bunsetsu_of[h - 1]
    for w in range(len(word_heads)):  # roots win over other external words
        if word_heads[w] == 0:
            heads[bunsetsu_of[w]] = -1
    out = [(-2 if h is None else h) for h in heads]  # -2: no external word (a cycle in UD)
    for h in range(n):
        group = [c for c in range(h + 1, n) if out[c] == h]
        if not group:
            continue
        old = out[h]
        chain = [h] + group
        for a, b in zip(chain, chain[1:]):
            out[a] = b
        out[group[-1]] = old
    return out
