"""Bag-of-n-gram features of a Doc for the MaxEnt text classifier, hashed to
64 bits, and their dense ids (docs/components.md, "Text classification")."""
from collections import Counter
from typing import Dict, Iterable, List, Sequence, Tuple

import numpy
from spacy.strings import hash_string
from spacy.tokens import Doc

FEATURES_KEY = "spacy_adf.features"
VALUE_MODES = ("count", "binary", "log1p")


class NgramFeaturizer:
    """Doc -> (feature hashes, values); see the module docstring."""

    def __init__(self, ngram_sizes: Sequence[int] = (1, 2), lowercase: bool = True,
                 value: str = "count", min_count: int = 1):
        sizes = list(ngram_sizes) if not isinstance(ngram_sizes, (str, bytes)) else None
        if not sizes or any(not isinstance(n, int) or isinstance(n, bool) or n < 1 for n in sizes):
            raise ValueError(f"ngram_sizes must be a non-empty list of positive integers, got {ngram_sizes!r}")
        if len(set(sizes)) != len(sizes):
            raise ValueError(f"ngram_sizes has duplicates: {ngram_sizes!r}")
        if not isinstance(lowercase, bool):
            raise ValueError(f"lowercase must be true or false, got {lowercase!r}")
        if value not in VALUE_MODES:
            raise ValueError(f"value must be one of {', '.join(VALUE_MODES)}; got {value!r}")
        if not isinstance(min_count, int) or isinstance(min_count, bool) or min_count < 1:
            raise ValueError(f"min_count must be a positive integer, got {min_count!r}")
        self.ngram_sizes = sorted(sizes)
        self.lowercase = lowercase
        self.value = value
        self.min_count = min_count

    @property
    def settings(self) -> Dict:
        return {"ngram_sizes": list(self.ngram_sizes), "lowercase": self.lowercase,
                "value": self.value, "min_count": self.min_count}

    def counts(self, doc: Doc) -> Dict[str, float]:
        """Feature string -> count of one Doc (precomputed if the Doc has them)."""
        pre = doc.user_data.get(FEATURES_KEY) if doc.user_data else None
        if pre is not None:
            if not isinstance(pre, dict):
                raise ValueError(
                    f'doc.user_data["{FEATURES_KEY}"] must be a dict of feature -> count, '
                    f"got {type(pre).__name__}"
                )
            return pre
        words = [t.lower_ if self.lowercase else t.text for t in doc if not t.is_space]
        out: Counter = Counter()
        for n in self.ngram_sizes:
            if n == 1:
                out.update(words)
            else:
                out.update("_".join(words[i:i + n]) for i in range(len(words) - n + 1))
        return out

    def hashes(self, doc: Doc) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(uint64 feature hashes, float32 values) of one Doc's distinct features."""
        counts = self.counts(doc)
        n = len(counts)
        keys = numpy.fromiter((hash_string(str(f)) for f in counts), dtype=numpy.uint64, count=n)
        raw = numpy.fromiter(counts.values(), dtype=numpy.float64, count=n)
        if n and not (numpy.isfinite(raw).all() and (raw > 0).all()):
            raise ValueError("feature counts must be positive finite numbers")
        if self.value == "binary":
            return keys, numpy.ones(n, dtype=numpy.float32)
        if self.value == "log1p":
            return keys, numpy.log1p(raw).astype(numpy.float32)
        return keys, raw.astype(numpy.float32)

    def build_index(self, docs: Iterable[Doc]) -> "FeatureIndex":
        """Index of the features in at least min_count of the Docs."""
        df: Counter = Counter()
        for doc in docs:
            keys, _ = self.hashes(doc)
            df.update(keys.tolist())
        kept = [k for k, c in df.items() if c >= self.min_count]
        return FeatureIndex(numpy.array(sorted(kept), dtype=numpy.uint64))

    def featurize(self, docs: Sequence[Doc], index: "FeatureIndex") -> Tuple[numpy.ndarray, ...]:
        """CSR batch (ptr int64, ids int32, vals float32) of known features."""
        rows = [index.lookup(*self.hashes(doc)) for doc in docs]
        return stack_rows(rows)


class FeatureIndex:
    """Sorted 64-bit feature hashes; a feature's id is its rank."""

    def __init__(self, keys: numpy.ndarray):
        keys = numpy.ascontiguousarray(keys, dtype=numpy.uint64)
        if keys.ndim != 1:
            raise ValueError("feature keys must be a 1-d array")
        if len(keys) > 1 and not (keys[1:] > keys[:-1]).all():
            raise ValueError("feature keys must be strictly increasing (sorted, no duplicates)")
        if len(keys) >= 2 ** 31:
            raise ValueError("too many features for 32-bit feature ids")
        self.keys = keys

    def __len__(self) -> int:
        return len(self.keys)

    def lookup(self, hashes: numpy.ndarray, vals: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(ids int32, vals float32) of the known features among `hashes`."""
        if len(self.keys) == 0 or len(hashes) == 0:
            return numpy.zeros(0, numpy.int32), numpy.zeros(0, numpy.float32)
        pos = numpy.searchsorted(self.keys, hashes)
        pos[pos == len(self.keys)] = 0
        hit = self.keys[pos] == hashes
        return pos[hit].astype(numpy.int32), numpy.asarray(vals, dtype=numpy.float32)[hit]

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes


def stack_rows(rows: List[Tuple[numpy.ndarray, numpy.ndarray]]) -> Tuple[numpy.ndarray, ...]:
    """Concatenate per-sample (ids, vals) into a CSR batch (ptr, ids, vals)."""
    ptr = numpy.zeros(len(rows) + 1, dtype=numpy.int64)
    ptr[1:] = numpy.cumsum([len(r[0]) for r in rows])
    ids = numpy.concatenate([numpy.zeros(0, numpy.int32)] + [r[0] for r in rows]).astype(numpy.int32, copy=False)
    vals = numpy.concatenate([numpy.zeros(0, numpy.float32)] + [r[1] for r in rows]).astype(numpy.float32, copy=False)
    return ptr, ids, vals
