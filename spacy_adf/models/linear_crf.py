"""A linear-chain CRF over hashed features, knowing nothing about Docs: the
feature table (hash -> attribute id), the weights and the forward-backward
buffers (`ctx`) of `SequenceCRF` and `CharSegmenter`. A training sample is
(pos_ptr int64 (n+1), attrs int32, gold int32 (n)[, values float32]) per sequence."""
from typing import Callable, List, Optional, Sequence, Tuple, Union

import numpy

from ..core.crf import CRFContext, CRFModel
from ..core.online import OnlineSteps
from ..core.params import SparseGrad
from ..features.crf_layout import build_crf_stacked, prune_blocks, stack_golds, stack_hashes
from ..features.extract import FeatureTable
from ..features.row_buffer import RowBuffer
from ..serialization.framed import Chunks, pack_chunks, read_model
from .sparse_model import SparseModel, checked_label_count

FORMAT = "spacy_adf.crf"
VERSION = 2
_DTYPES = {"keys": "uint64", "block_ptr": "int64", "codes": "uint16", "weights": "float32"}

Sample = Tuple[numpy.ndarray, ...]


class LinearChainCRF(SparseModel):
    def __init__(self, name: str = "crf") -> None:
        super().__init__(name)
        self.table: FeatureTable = None
        self.ctx = CRFContext()

    def __getstate__(self):
        # the weights with their lazy updates applied; no optimizer, no buffers
        self.settle()
        return {k: v for k, v in self.__dict__.items() if k not in ("ctx", "_pending", "_running")}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._pending = None
        self._running = None
        self.ctx = CRFContext()

    def build_with_samples(self, hash_mats: Union[List[numpy.ndarray], RowBuffer], golds: Sequence[numpy.ndarray],
                           n_labels: int, **layout) -> List[Sample]:
        """Feature table and zero weights from the training corpus's hash
        matrices (emptied) and non-empty gold sequences, and each sequence's
        sample (what `lookup` gives it) from one lookup of the stacked hashes."""
        lengths = numpy.array([len(g) for g in golds], dtype=numpy.int64)
        if isinstance(hash_mats, RowBuffer):
            # the corpus's hashes already stacked in one buffer, sequence after sequence
            if len(hash_mats) != int(lengths.sum()):
                raise ValueError("hash rows and gold sequences do not match")
        elif len(hash_mats) != len(golds) or any(len(m) != n for m, n in zip(hash_mats, lengths)):
            raise ValueError("hash matrices and gold sequences do not match")
        if len(lengths) and lengths.min() == 0:
            raise ValueError("build_with_samples takes non-empty sequences only")
        if not len(hash_mats):
            raise ValueError("no training tokens: cannot build a feature dictionary")
        # the stacked hashes are held by `stacked` only, which the build empties:
        # freed before the weights are made
        stacked = [stack_hashes(hash_mats), *stack_golds(golds)]
        if isinstance(hash_mats, list):
            hash_mats.clear()
        table, crf, (ptr, attrs) = build_crf_stacked(stacked, n_labels, with_lookup=True, **layout)
        self.set(table, crf)
        starts = numpy.concatenate([[0], numpy.cumsum(lengths)])
        return [(ptr[s:e + 1] - ptr[s], attrs[ptr[s]:ptr[e]], gold)
                for s, e, gold in zip(starts[:-1], starts[1:], golds)]

    def set(self, table: FeatureTable, crf: CRFModel) -> None:
        self._set_params(crf)
        self.table = table

    def lookup(self, hashes: numpy.ndarray) -> Tuple[numpy.ndarray, numpy.ndarray]:
        """(pos_ptr, attrs) of the known features of a (n, T) hash matrix."""
        self.require_built()
        return self.table.lookup(hashes)

    def viterbi(self, seq_starts, pos_ptr, attrs, values=None) -> numpy.ndarray:
        return self.params.viterbi(seq_starts, pos_ptr, attrs, self.ctx, values)

    def marginals(self, seq_starts, pos_ptr, attrs, values=None) -> numpy.ndarray:
        return self.params.marginals(seq_starts, pos_ptr, attrs, self.ctx, values)

    def online_steps(self, state, grad: SparseGrad, samples: List[Sample], minibatch: int,
                     perceptron: bool, *, on_done: Optional[Callable[[float], None]] = None) -> float:
        """On-line steps over `samples` in order (training/contract.py); with
        `on_done`, on the background thread until `await_steps` (returns 0.0)."""
        self.hold_pending(state)
        steps = OnlineSteps(self._params, state, grad, samples, minibatch, self.ctx, perceptron)
        if on_done is None:
            return steps.run()
        steps.on_done = on_done
        steps.start()
        self._running = steps
        return 0.0

    def accumulate_gradient(self, grad: SparseGrad, samples: List[Sample], perceptron: bool) -> float:
        """Add the log-likelihood gradient of `samples` to `grad`; returns the log-likelihood."""
        if perceptron:
            raise ValueError(f"[{self.name}] the perceptron objective needs a sparse optimizer")
        crf = self.params
        loglik = 0.0
        for sample in samples:
            ptr, attrs, gold = sample[:3]
            loglik += crf.accumulate_gradient([0, len(gold)], ptr, attrs, gold, grad, self.ctx,
                                              sample[3] if len(sample) == 4 else None)
        return loglik

    def batch_objective(self, samples: List[Sample]) -> Callable:
        """f(w) -> (summed log-likelihood of `samples`, its gradient), float64,
        w set into the model; no prior is added."""
        crf = self.params
        self._pending = None
        if not samples:
            raise ValueError(f"[{self.name}] batch_objective got no non-empty training example")
        ptrs, attrs, golds = zip(*(s[:3] for s in samples))
        values = None
        if any(len(s) == 4 for s in samples):  # binary samples among them have values 1
            values = numpy.concatenate([s[3] if len(s) == 4 else numpy.ones(len(s[1]), numpy.float32)
                                        for s in samples]).astype(numpy.float32)
        lengths = numpy.array([len(g) for g in golds], dtype=numpy.int64)
        seq_starts = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int64)
        attr_base = numpy.cumsum([0] + [len(a) for a in attrs[:-1]]).astype(numpy.int64)
        pos_ptr = numpy.concatenate(
            [p[:-1] + base for p, base in zip(ptrs, attr_base)]
            + [numpy.array([attr_base[-1] + len(attrs[-1])], dtype=numpy.int64)]
        ).astype(numpy.int64)
        all_attrs = numpy.concatenate(attrs).astype(numpy.int32)
        all_gold = numpy.concatenate(golds).astype(numpy.int32)
        grad, ctx = SparseGrad(crf), self.ctx

        def objective(w):
            crf.set_weights(numpy.asarray(w, dtype=numpy.float32))
            grad.clear()
            loglik = crf.accumulate_gradient(seq_starts, pos_ptr, all_attrs, all_gold, grad, ctx, values)
            dense = grad.to_dense()
            grad.clear()
            return float(loglik), dense

        return objective

    def block_weights(self) -> numpy.ndarray:
        """A view of the feature entries' weights (no transitions, start or end weights)."""
        crf = self.params
        return crf.weights[crf.off_blocks:]

    def prune(self, min_abs: float) -> dict:
        """Drop the feature entries with |weight| < min_abs and the features left
        without entries (after training); returns the counts before and after."""
        crf = self.params
        before = {"n_weights": crf.n_weights, "n_features": crf.n_attrs}
        head = numpy.asarray(crf.weights[: crf.off_blocks])
        kept, block_ptr, codes, block_w = prune_blocks(crf.block_ptr, crf.codes, self.block_weights(),
                                                       min_abs)
        pruned = CRFModel(crf.n_labels, block_ptr, codes, numpy.concatenate([head, block_w]))
        self.set(FeatureTable(self.table.keys[kept]), pruned)
        return {"before": before, "after": {"n_weights": pruned.n_weights, "n_features": pruned.n_attrs}}

    def memory(self) -> dict:
        """Weights, features and the bytes the model holds."""
        crf = self.training_params
        # preshed map: a 16-byte cell per slot, about 2 slots per key
        table_bytes = self.table.keys.nbytes + 32 * len(self.table)
        return {"n_weights": crf.n_weights, "n_features": crf.n_attrs,
                "model_bytes": crf.nbytes + table_bytes}

    def to_bytes(self) -> bytes:
        return self.to_chunks().join()

    def to_chunks(self) -> Chunks:
        """to_bytes() as Chunks over views of the arrays (no copy: what to_disk writes)."""
        crf = self.params
        arrays = {"keys": self.table.keys, "block_ptr": crf.block_ptr, "codes": crf.codes,
                  "weights": crf.weights}
        arrays = {k: numpy.asarray(v, dtype=_DTYPES[k]) for k, v in arrays.items()}
        return pack_chunks(FORMAT, VERSION, arrays, {"n_labels": crf.n_labels, **self._file_meta()})

    def _file_meta(self) -> dict:
        """What a subclass adds to the file's metadata."""
        return {}

    def _read_file_meta(self, meta: dict) -> None:
        """Check (and take) what _file_meta wrote, before the weights are set."""

    def from_bytes(self, data: bytes, *, expected_labels: int = -1) -> "LinearChainCRF":
        """Load a CRF written by to_bytes, checked against `expected_labels` (if >= 0)."""
        meta, arrays = read_model(data, FORMAT, VERSION, _DTYPES, "CRF model")
        arrays = arrays()
        n_labels = checked_label_count(meta, expected_labels, "CRF model")
        try:
            crf = CRFModel(n_labels, arrays["block_ptr"], arrays["codes"], arrays["weights"])
        except ValueError as e:
            raise ValueError(f"the CRF model data is inconsistent: {e}") from None
        if len(arrays["keys"]) != crf.n_attrs:
            raise ValueError("the CRF model's feature table and weights do not match")
        self._read_file_meta(meta)
        self.set(FeatureTable(arrays["keys"]), crf)
        return self
