"""The benchmarks' Cython yardsticks, which are not part of the package:
`DoubleArrayPKE` (benchmarks/datrie.pyx, the paper's double-array trie
beside PKE's own) and `enumerate_subsets` (benchmarks/subset_enumeration.pyx,
the exhaustive enumerator beside PKE's miner). pyximport compiles them on
the first import (with Python's own flags, -O3 on Linux) into ~/.pyxbld."""
import pyximport

pyximport.install(language_level=3)

from .datrie import DoubleArrayPKE  # noqa: E402
from .subset_enumeration import enumerate_subsets  # noqa: E402

__all__ = ["DoubleArrayPKE", "enumerate_subsets"]
