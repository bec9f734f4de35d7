"""Cost per ADF update vs model size: the sparse path must not scale with the
number of weights. Trains CRFs of 10^6 to 5 x 10^7 weights on the same random
sequences and reports microseconds per sentence, bytes per weight (process
peak RSS and the model's own accounting) and the time of a full flush.

    python -m benchmarks.scaling [--sizes 1e6,1e7,5e7] [--out-json metrics/bench_scaling.json]
        [--out-md docs/benchmarks.md]

Each size runs in its own child process so peak RSS is per model.
"""
import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy

from benchmarks.harness import (BENCHMARKS_MD, REPO, module_command, run_child, write_json,
                                write_section)

NAME = "bench_scaling"


def one_size(n_weights: int, n_labels: int = 5, per_attr: int = 25, n_seq: int = 3000,
             seed: int = 0) -> dict:
    from spacy_adf.core.adf import SparseADF
    from spacy_adf.core.crf import CRFModel
    from spacy_adf.core.online import OnlineSteps
    from spacy_adf.core.params import SparseGrad

    L = n_labels
    A = max(n_weights // per_attr, 1)
    # every attribute: all L state entries and per_attr - L edge pairs
    pairs = numpy.arange(per_attr - L, dtype=numpy.uint16) + L
    block = numpy.concatenate([numpy.arange(L, dtype=numpy.uint16), pairs])
    codes = numpy.tile(block, A)
    block_ptr = numpy.arange(A + 1, dtype=numpy.int64) * per_attr
    t0 = time.perf_counter()
    model = CRFModel(L, block_ptr, codes)
    build_s = time.perf_counter() - t0
    rng = numpy.random.default_rng(seed)
    seqs = []
    for _ in range(n_seq):
        n = int(rng.integers(10, 40))
        # Zipf-like feature ids, as in text: most are frequent, many are rare
        attrs = (rng.zipf(1.3, size=n * 20) - 1) % A
        ptr = numpy.arange(n + 1, dtype=numpy.int64) * 20
        seqs.append((ptr, attrs.astype(numpy.int32), rng.integers(0, L, n).astype(numpy.int32)))
    state = SparseADF(model, c=0.05, window=n_seq // 10, inv_n_sigma2=1.0 / (n_seq * 25))
    grad = SparseGrad(model)
    OnlineSteps(model, state, grad, seqs[:200]).run()  # warm up
    t0 = time.perf_counter()
    OnlineSteps(model, state, grad, seqs).run()
    train_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    state.flush()
    flush_s = time.perf_counter() - t0
    params_bytes = model.nbytes
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "n_weights": int(model.n_weights),
        "n_features": int(A),
        "sentences": n_seq,
        "tokens": int(sum(len(s[2]) for s in seqs)),
        "us_per_sentence": 1e6 * train_s / n_seq,
        "flush_seconds": flush_s,
        "build_seconds": build_s,
        "params_bytes_per_weight": params_bytes / model.n_weights,
        "optimizer_bytes_per_weight": state.nbytes / model.n_weights,
        "grad_bytes_per_weight": grad.nbytes / model.n_weights,
        "peak_rss_bytes_per_weight": rss / model.n_weights,
        "peak_rss_mb": rss / 2 ** 20,
    }


def markdown_section(rows: list) -> str:
    lines = [
        "## Cost per update vs model size (sparse ADF path)",
        "",
        "Regenerate: `python -m benchmarks.scaling` (each size in its own process; the same "
        "3,000 random sentences of 10-40 tokens, 20 Zipf-distributed features per token, 5 labels, "
        "25 weights per feature).",
        "",
        "| weights | features | us / sentence | full flush s | params B/w | ADF state B/w | gradient slots B/w | peak RSS MB | peak RSS B/w |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['n_weights']:,} | {r['n_features']:,} | {r['us_per_sentence']:.0f} | "
            f"{r['flush_seconds']:.2f} | {r['params_bytes_per_weight']:.2f} | "
            f"{r['optimizer_bytes_per_weight']:.2f} | {r['grad_bytes_per_weight']:.2f} | "
            f"{r['peak_rss_mb']:.0f} | {r['peak_rss_bytes_per_weight']:.2f} |"
        )
    lines += ["", "The time per sentence depends on what the sentence touches, not on the "
              "number of weights (larger tables only cost more cache misses); peak RSS per "
              "weight includes the interpreter and the random corpus."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1e6,1e7,5e7")
    parser.add_argument("--out-json", default=str(REPO / "metrics" / "bench_scaling.json"))
    parser.add_argument("--out-md", default=str(BENCHMARKS_MD))
    parser.add_argument("--worker", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker is not None:
        print(json.dumps(one_size(int(args.worker))))
        return
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_scaling_") as tmp:
        for size in args.sizes.split(","):
            log = Path(tmp) / f"{size}.log"
            run_child(module_command("benchmarks.scaling", "--worker", size), log)
            # the worker's result is its last line (stderr goes to the same log)
            row = json.loads(log.read_text(encoding="utf8").strip().splitlines()[-1])
            print(json.dumps(row))
            rows.append(row)
    write_json(Path(args.out_json), rows)
    write_section(Path(args.out_md), NAME, markdown_section(rows))


if __name__ == "__main__":
    main()
