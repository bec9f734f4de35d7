"""The benchmarks' Cython yardsticks, which are not part of the package:
`DoubleArrayPKE` (benchmarks/datrie.pyx, the paper's double-array trie
beside PKE's own) and `enumerate_subsets` (benchmarks/subset_enumeration.pyx,
the exhaustive enumerator beside PKE's miner). pyximport compiles them on
the first import (with Python's own flags, -O3 on Linux) into ~/.pyxbld."""
import importlib

import pyximport

pyximport.install(language_level=3)

DoubleArrayPKE = importlib.import_module("benchmarks.datrie").DoubleArrayPKE
enumerate_subsets = importlib.import_module("benchmarks.subset_enumeration").enumerate_subsets

__all__ = ["DoubleArrayPKE", "enumerate_subsets"]
