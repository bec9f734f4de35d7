"""Step-ladder tournament parsing (Iwatate, Asahara & Matsumoto 2008) for
head-final bunsetsu trees: the training oracle of `kernels/tournament.pyx`,
which parses.

Segments depend on a segment to their right, the last one is the root, arcs
do not cross. The heads are decided right to left. When segment i is
decided, every segment right of it has its head, and the heads i may take
without crossing an arc are its candidates: i + 1, the head of i + 1, the
head of that one, ... up to the last segment (`candidates`). A binary
classifier plays one game per step of the ladder: the nearer candidate
holding the title against the next one further right; the farther one wins
when the classifier says so. The last winner is i's head. So each decision
compares two heads for the same modifier directly, which a
cascaded-chunking decision ("does i modify its neighbour?") cannot.

Training examples are the games of the gold head against every other
candidate of the gold tree (`oracle_games`): a game is (modifier, nearer,
farther, whether the farther wins). Any answers give a head-final projective
tree (every winner is a candidate), in n - 2 ladders for n segments.
"""
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
