"""Subset weights of the polynomial kernel (Kudo & Matsumoto 2003, Lemma 1).

For sets X, Y: (1 + |X & Y|)^d = sum_{r=0..d} c_d(r) * |P_r(X & Y)|, where
P_r is the family of r-element subsets and

    c_d(r) = sum_{l=r..d} C(d, l) * r! * S(l, r)      (S: Stirling, 2nd kind).

r! S(l, r) counts the maps of an l-set onto an r-set: a degree-l monomial of
the binary features hits exactly r distinct ones. Exact Python integers.
"""
from functools import lru_cache
from itertools import accumulate
from math import comb, factorial
from typing import Tuple


@lru_cache(maxsize=None)
def stirling2(n: int, k: int) -> int:
    """Stirling number of the second kind S(n, k) (partitions of n into k blocks)."""
    if n < 0 or k < 0:
        raise ValueError("stirling2 needs n, k >= 0")
    if n == k:
        return 1
    if k == 0 or k > n:
        return 0
    return k * stirling2(n - 1, k) + stirling2(n - 1, k - 1)


@lru_cache(maxsize=None)
def subset_weights(degree: int) -> Tuple[int, ...]:
    """(c_d(0), ..., c_d(d)); e.g. d=2 -> (1, 3, 2), d=3 -> (1, 7, 12, 6)."""
    if int(degree) != degree or degree < 1:
        raise ValueError(f"the kernel degree must be an integer >= 1, got {degree!r}")
    d = int(degree)
    return tuple(
        sum(comb(d, l) * factorial(r) * stirling2(l, r) for l in range(r, d + 1))
        for r in range(d + 1)
    )


def suffix_max_weights(degree: int) -> Tuple[int, ...]:
    """M(r) = max_{r' >= r} c_d(r'), r = 0..d+1 (M(d+1) = 0): the largest
    subset weight any superset of an r-set can get. Bounds the mining search."""
    return tuple(accumulate(reversed(subset_weights(degree)), max))[::-1] + (0,)
