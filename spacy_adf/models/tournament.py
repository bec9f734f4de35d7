"""Step-ladder tournament parsing (Iwatate, Asahara & Matsumoto 2008) for
head-final bunsetsu trees: the training oracle of `kernels/tournament.pyx`,
which parses (the algorithm: docs/architecture.md, "Step-ladder tournament")."""
from typing import Iterator, List, Sequence, Tuple


def candidates(heads: Sequence[int], i: int) -> List[int]:
    """The heads segment i may take without crossing an arc, nearest first:
    i + 1 and the chain of heads from it (the heads right of i decided)."""
    out = []
    c = i + 1
    while c != -1:
        out.append(c)
        c = heads[c]
    return out


def oracle_games(heads: Sequence[int]) -> Iterator[Tuple[int, int, int, bool]]:
    """(modifier, nearer, farther, farther wins) of the gold head of every
    segment against each of its other candidates in the gold tree (the
    segment before the last has one candidate: no game)."""
    n = len(heads)
    for i in range(n - 3, -1, -1):
        h = heads[i]
        for c in candidates(heads, i):
            if c < h:
                yield i, c, h, True
            elif c > h:
                yield i, h, c, False
