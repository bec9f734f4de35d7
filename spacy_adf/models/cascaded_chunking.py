"""Cascaded chunking (Kudo & Matsumoto 2002) for head-final bunsetsu trees:
the training oracle of `kernels/cascade.pyx`, which parses (the algorithm:
docs/architecture.md, "Cascaded chunking")."""
from typing import Iterator, List, Sequence, Tuple


class ParseState:
    """What the loop knows so far: the remaining segments, the heads given,
    and each segment's attached children (for dynamic features)."""

    __slots__ = ("n", "remaining", "heads", "children")

    def __init__(self, n: int):
        self.n = n
        self.remaining: List[int] = list(range(n))
        self.heads: List[int] = [-1] * n
        self.children: List[List[int]] = [[] for _ in range(n)]

    def questions(self) -> List[Tuple[int, int]]:
        """The pairs the classifier is asked this round: every remaining
        segment but the last two, with its right neighbour."""
        rem = self.remaining
        return [(rem[k], rem[k + 1]) for k in range(len(rem) - 2)]

    def apply(self, tags: Sequence[bool]) -> int:
        """Apply one round of D (True) / O tags for remaining[:-1] (the last
        of them must be True); returns the number of segments removed."""
        rem = self.remaining
        keep = []
        removed = 0
        for k, seg in enumerate(rem):
            if k < len(rem) - 1 and tags[k] and (k == 0 or not tags[k - 1]):
                head = rem[k + 1]
                self.heads[seg] = head
                self.children[head].append(seg)
                removed += 1
            else:
                keep.append(seg)
        self.remaining = keep
        return removed


def oracle_rounds(heads: Sequence[int]) -> Iterator[Tuple[ParseState, List[Tuple[int, int]], List[bool]]]:
    """The rounds of the parse that the gold tree `heads` answers: yields
    (state before the round, pairs asked, gold decisions). Consume each
    state before advancing: the same object is updated in place."""
    n = len(heads)
    state = ParseState(n)
    while len(state.remaining) > 1:
        pairs = state.questions()
        gold = [heads[i] == j for i, j in pairs]
        yield state, pairs, gold
        if state.apply(gold + [True]) == 0:
            raise RuntimeError("cascaded chunking made no progress")
