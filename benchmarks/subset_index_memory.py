"""Peak memory and time of the primal trainer's subset index
(`spacy_adf.kernels.expansion.SubsetIndex`) while it interns the degree-d
subsets of random feature sets, for one or more checkouts side by side.

Each (checkout, size) runs in a fresh process whose ``PYTHONPATH`` starts
with that checkout (built in place), so peak RSS is that run's alone. Rows
are added in chunks of 1,000 and each chunk's phi is dropped at once: the
index, not phi, is what is measured.

    python -m benchmarks.subset_index_memory --checkout . [--checkout ../old] \\
        --chunks 12 16 24 [--output metrics/bench_subset_index_memory.json]
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve()


def _worker(chunks: int, degree: int, set_size: int, vocab: int) -> dict:
    import resource
    import time

    import numpy
    from spacy_adf.kernels import expansion
    from spacy_adf.kernels.expansion import SubsetIndex

    rng = numpy.random.default_rng(0)
    index = SubsetIndex(degree)
    start = time.perf_counter()
    for _ in range(chunks):
        rows = [numpy.unique(rng.integers(0, vocab, set_size)) for _ in range(1000)]
        indptr = numpy.zeros(len(rows) + 1, numpy.int64)
        indptr[1:] = numpy.cumsum([len(r) for r in rows])
        phi = index.expand((indptr, numpy.concatenate(rows).astype(numpy.int32)))
        del phi
    return {"rows": chunks * 1000, "subsets": int(index.n_subsets),
            "seconds": round(time.perf_counter() - start, 2),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, 1),
            "module": expansion.__file__}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkout", action="append", required=True,
                        help="a spacy-adf checkout built in place (repeat to compare)")
    parser.add_argument("--chunks", type=int, nargs="+", default=[12, 16, 24],
                        help="sizes: thousands of random sets")
    parser.add_argument("--degree", type=int, default=3)
    parser.add_argument("--set-size", type=int, default=25)
    parser.add_argument("--vocab", type=int, default=200_000)
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        print(json.dumps(_worker(args.worker, args.degree, args.set_size, args.vocab)))
        return
    rows = []
    for chunks in args.chunks:
        for checkout in args.checkout:
            path = str(Path(checkout).resolve())
            env = dict(os.environ, PYTHONPATH=path + os.pathsep + os.environ.get("PYTHONPATH", ""))
            # run as a file, not with -m from this checkout: sys.path[0] is then
            # benchmarks/, and spacy_adf comes from PYTHONPATH's checkout
            out = subprocess.run(
                [sys.executable, str(HERE), "--checkout", path,
                 "--worker", str(chunks), "--degree", str(args.degree),
                 "--set-size", str(args.set_size), "--vocab", str(args.vocab)],
                env=env, capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"the worker for {checkout} failed:\n{out.stderr}")
            row = dict(json.loads(out.stdout.strip().splitlines()[-1]), checkout=checkout)
            if not row["module"].startswith(path + os.sep):
                sys.exit(f"the worker for {checkout} imported {row['module']}: build that "
                         "checkout in place (python setup.py build_ext --inplace)")
            rows.append(row)
            print(f"{checkout}: {row['rows']:,} sets, {row['subsets']:,} subsets, "
                  f"{row['seconds']} s, peak RSS {row['peak_rss_mb']:,} MB", flush=True)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps({"degree": args.degree, "set_size": args.set_size,
                                           "vocab": args.vocab, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
