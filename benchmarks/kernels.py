"""Benchmark PKB / PKI / PKE (Kudo & Matsumoto 2003) on a synthetic set problem.

Examples look like NLP feature sets: one value per template, ~30-60 active
templates, template vocabularies from 3 to ~5,000 values (50,000 features in
all, Zipfian values). The label says whether one of 24 planted pair or
triple conjunctions of frequent values fires (1% flipped), so a quadratic or
cubic kernel has something to find. Prints a table and writes JSON (--out).

    python -m benchmarks.kernels --out metrics/kernels.json
    python -m benchmarks.kernels --quick --out /tmp/k.json   # seconds
"""
import argparse
import json
import os
import platform
import resource
import time
from math import comb

import numpy
import scipy.sparse

from benchmarks.harness import write_json
from spacy_adf.kernels import PKB, PKE, PKI, SupportVectors, subset_weights, train_svm
from spacy_adf.kernels.mining import mine_subsets, transactions


def make_problem(n, n_features, n_templates, seed, n_pairs=12, n_triples=12, noise=0.01):
    """Feature sets and labels: y = +1 iff one of the planted pair or triple
    conjunctions of frequent values fires (a DNF a cubic kernel can express),
    with a fraction `noise` of the labels flipped."""
    rng = numpy.random.default_rng(seed)
    # template vocabularies, log-uniform sizes rescaled to n_features in total
    sizes = numpy.exp(rng.uniform(numpy.log(3), numpy.log(5000), n_templates))
    sizes = numpy.maximum(3, (sizes * n_features / sizes.sum()).astype(int))
    sizes[-1] += n_features - sizes.sum()
    offsets = numpy.concatenate([[0], numpy.cumsum(sizes)[:-1]])
    active = rng.uniform(0.55, 1.0, n_templates)  # how often a template fires
    values = numpy.empty((n, n_templates), dtype=numpy.int64)
    for t, size in enumerate(sizes):
        p = 1.0 / numpy.arange(1, size + 1) ** 1.1
        values[:, t] = offsets[t] + rng.choice(size, n, p=p / p.sum())
    on = rng.random((n, n_templates)) < active
    small = numpy.argsort(sizes)[: n_templates // 2]  # rules use the small templates
    fire = numpy.zeros(n, dtype=bool)
    for arity, count in ((2, n_pairs), (3, n_triples)):
        for _ in range(count):
            hit = numpy.ones(n, dtype=bool)
            for t in rng.choice(small, arity, replace=False):
                v = offsets[t] + rng.integers(0, min(3, sizes[t]))  # one of its top-3 values
                hit &= on[:, t] & (values[:, t] == v)
            fire |= hit
    y = numpy.where(fire, 1, -1)
    flip = rng.random(n) < noise
    y[flip] = -y[flip]
    return [values[i][on[i]] for i in range(n)], y


def to_csr(examples, n_features):
    """Binary CSR matrix of feature-id sets (repeated ids merge)."""
    rows = [numpy.unique(numpy.asarray(x, dtype=numpy.int64)) for x in examples]
    indptr = numpy.concatenate([[0], numpy.cumsum([len(r) for r in rows])])
    indices = numpy.concatenate(rows).astype(numpy.int32) if rows else numpy.zeros(0, dtype=numpy.int32)
    return scipy.sparse.csr_matrix((numpy.ones(len(indices)), indices, indptr), shape=(len(rows), n_features))


def best_time(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def n_occurrences(tptr, d):
    lens = numpy.diff(tptr)
    return int(sum(comb(int(k), r) for k in lens for r in range(1, d + 1)))


def compare_mining(sv, sigma, xi, max_occ):
    """DFS mining vs per-SV enumeration + hash accumulation, on the same
    transactions; the enumeration only where its table fits (max_occ)."""
    d = sv.degree
    sig_pos = sigma * sv.n_pos / sv.n_sv
    sig_neg = -sigma * sv.n_neg / sv.n_sv
    tptr, titem, _, n_items = transactions(sv, sig_pos, sig_neg, xi)
    occ = n_occurrences(tptr, d)
    t0 = time.perf_counter()
    rec = mine_subsets(tptr, titem, sv.coef, n_items, d, sig_pos, sig_neg, xi)
    t_dfs = time.perf_counter() - t0
    row = {"sigma": sigma, "xi": xi, "subset_occurrences": occ, "dfs_s": t_dfs,
           "dfs_visited": rec[5], "dfs_kept": int(rec[4].sum())}
    if occ <= max_occ:
        from benchmarks.cython_modules import enumerate_subsets

        t0 = time.perf_counter()
        size, sp, sn, cnt = enumerate_subsets(tptr, titem, sv.coef, d)
        c = numpy.array(subset_weights(d), dtype=float)
        w = c[size] * (sp + sn)
        kept = int(((cnt >= xi) & ((w >= sig_pos) | (w <= sig_neg))).sum())
        row.update(enum_s=time.perf_counter() - t0, enum_distinct=int(size.shape[0]),
                   enum_kept=kept)
    return row


def bench_degree(d, X, y, Xt, yt, args, report):
    print(f"\n== degree {d} ==")
    cache = os.path.join(args.sv_dir, f"sv_d{d}.bin") if args.sv_dir else None
    if cache and os.path.exists(cache):  # reuse a trained SVM (same arguments!)
        with open(cache, "rb") as f:
            sv = SupportVectors.from_bytes(f.read())
        with open(cache + ".json") as f:
            t_train = json.load(f)["train_s"]
        svc = None
    else:
        t0 = time.perf_counter()
        sv, svc = train_svm(X, y, degree=d, C=args.C, cache_size=args.cache_mb)
        t_train = time.perf_counter() - t0
        if cache:
            os.makedirs(args.sv_dir, exist_ok=True)
            with open(cache, "wb") as f:
                f.write(sv.to_bytes())
            with open(cache + ".json", "w") as f:
                json.dump({"train_s": t_train}, f)
    rows_len = numpy.diff(sv.indptr)
    h = numpy.bincount(sv.indices)
    res = {"degree": d, "train_s": t_train, "n_sv": sv.n_sv, "n_pos": sv.n_pos,
           "n_neg": sv.n_neg, "mean_sv_len": float(rows_len.mean()),
           "B_mean_h": float(h[h > 0].mean()), "n_sv_features": int((h > 0).sum())}
    print(f"train {t_train:.1f}s  |SV| {sv.n_sv} (+{sv.n_pos} / -{sv.n_neg})  "
          f"mean |X_j| {res['mean_sv_len']:.1f}  B {res['B_mean_h']:.1f}")
    n_t = Xt.shape[0]
    pkb = PKB(sv)
    t_pkb, ref = best_time(lambda: pkb.decision_batch(Xt), repeat=1)
    if svc is not None:
        sk = svc.decision_function(Xt[:200])
        res["pkb_vs_sklearn_maxdiff"] = float(numpy.abs(ref[:200] - sk).max())
    res["pkb_abs_decision_quartiles"] = numpy.percentile(numpy.abs(ref), [25, 50, 75]).tolist()
    acc_ref = float((numpy.sign(ref) == yt).mean())
    res["test_accuracy"] = acc_ref
    rows = [{"form": "PKB", "us_per_example": 1e6 * t_pkb / n_t, "speedup": 1.0,
             "bytes": pkb.nbytes, "accuracy": acc_ref, "sign_agree": 1.0, "max_abs_err": 0.0,
             "mean_abs_err": 0.0}]
    pki = PKI(sv)
    t_pki, out = best_time(lambda: pki.decision_batch(Xt))
    rows.append({"form": "PKI", "us_per_example": 1e6 * t_pki / n_t, "speedup": t_pkb / t_pki,
                 "bytes": pki.nbytes, "accuracy": float((numpy.sign(out) == yt).mean()),
                 "sign_agree": float((numpy.sign(out) == numpy.sign(ref)).mean()),
                 "max_abs_err": float(numpy.abs(out - ref).max()),
                 "mean_abs_err": float(numpy.abs(out - ref).mean())})
    settings = [(s, 1) for s in args.sigmas] + [(args.xi_sigma, xi) for xi in (2, 3)]
    for sigma, xi in settings:
        t0 = time.perf_counter()
        pke = PKE(sv, sigma=sigma, xi=xi)
        t_build = time.perf_counter() - t0
        t_pke, out = best_time(lambda: pke.decision_batch(Xt))
        rows.append({"form": f"PKE s={sigma:g} xi={xi}", "sigma": sigma, "xi": xi,
                     "us_per_example": 1e6 * t_pke / n_t, "speedup": t_pkb / t_pke,
                     "bytes": pke.nbytes, "omega": pke.n_kept,
                     "kept_by_size": pke.stats["kept_by_size"], "nodes": pke.stats["n_nodes"],
                     "visited": pke.stats["n_visited"], "bytes_per_subset":
                     pke.nbytes / max(pke.n_kept, 1), "build_s": t_build,
                     "accuracy": float((numpy.sign(out) == yt).mean()),
                     "sign_agree": float((numpy.sign(out) == numpy.sign(ref)).mean()),
                     "max_abs_err": float(numpy.abs(out - ref).max()),
                     "mean_abs_err": float(numpy.abs(out - ref).mean())})
    # one-example calls (Python call + argument conversion included)
    one = [Xt.indices[Xt.indptr[i]:Xt.indptr[i + 1]] for i in range(min(n_t, 500))]
    for name, clf in (("PKI", pki), ("PKE", PKE(sv, sigma=args.sigmas[1]))):
        t, _ = best_time(lambda: [clf.decision(x) for x in one])
        res[f"{name}_single_call_us"] = 1e6 * t / len(one)
    print(f"{'form':<22}{'us/ex':>10}{'speedup':>9}{'|Omega|':>11}{'MB':>8}{'B/subset':>9}"
          f"{'build s':>9}{'agree':>8}{'acc':>7}{'max err':>10}{'mean err':>10}")
    for r in rows:
        print(f"{r['form']:<22}{r['us_per_example']:>10.1f}{r['speedup']:>9.1f}"
              f"{r.get('omega', ''):>11}{r['bytes'] / 1e6:>8.1f}"
              f"{r.get('bytes_per_subset', float('nan')):>9.1f}{r.get('build_s', float('nan')):>9.2f}"
              f"{r['sign_agree']:>8.4f}{r['accuracy']:>7.4f}{r['max_abs_err']:>10.2e}"
              f"{r['mean_abs_err']:>10.2e}")
    res["forms"] = rows
    # DFS mining vs enumeration: on all support vectors, and on a subsample
    # small enough for the enumeration's table (it cannot prune before the end)
    n_sub = min(sv.n_sv, args.mining_sample)
    sub = SupportVectors(sv.indptr[: n_sub + 1], sv.indices[: sv.indptr[n_sub]], sv.coef[:n_sub],
                         sv.bias, sv.degree, sv.n_features)
    res["mining"] = [dict(compare_mining(sv, s, 1, args.max_enum), n_sv=sv.n_sv)
                     for s in (args.sigmas[0], args.sigmas[-1])]
    res["mining"] += [dict(compare_mining(sub, s, 1, args.max_enum), n_sv=n_sub)
                      for s in (args.sigmas[-1], 0.0)]
    # exactness at scale: PKE(sigma=0, xi=1) on the subsample against its PKB
    ref_sub = PKB(sub).decision_batch(Xt)
    exact = PKE(sub, sigma=0.0, xi=1)
    diff = numpy.abs(exact.decision_batch(Xt) - ref_sub) / numpy.maximum(1.0, numpy.abs(ref_sub))
    res["subsample_exact"] = {"n_sv": n_sub, "omega": exact.n_kept, "bytes": exact.nbytes,
                              "max_rel_err": float(diff.max())}
    print(f"PKE(sigma=0) on {n_sub} SVs: |Omega| {exact.n_kept}, max rel err vs PKB {diff.max():.2e}")
    del exact
    for m in res["mining"]:
        extra = (f"enum {m['enum_s']:.2f}s distinct {m['enum_distinct']} kept {m['enum_kept']}"
                 if "enum_s" in m else "enum skipped (table too large)")
        print(f"mining |SV|={m['n_sv']} sigma={m['sigma']:g}: occurrences {m['subset_occurrences']}, "
              f"dfs {m['dfs_s']:.2f}s visited {m['dfs_visited']} kept {m['dfs_kept']}; {extra}")
    report["degrees"].append(res)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--n-train", type=int, default=20000)
    ap.add_argument("--n-test", type=int, default=2000)
    ap.add_argument("--n-features", type=int, default=50000)
    ap.add_argument("--templates", type=int, default=55)
    ap.add_argument("--degrees", type=int, nargs="+", default=[3, 2])
    ap.add_argument("--sigmas", type=float, nargs="+", default=[0.01, 0.005, 0.001, 0.0005])
    ap.add_argument("--xi-sigma", type=float, default=0.001)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--cache-mb", type=float, default=1000)
    ap.add_argument("--max-enum", type=int, default=60_000_000,
                    help="run the enumeration miner only below this many subset occurrences")
    ap.add_argument("--mining-sample", type=int, default=3000,
                    help="support vectors in the DFS-vs-enumeration comparison")
    ap.add_argument("--sv-dir", default=None,
                    help="cache trained support vectors here and reuse them on the next run")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="a small problem, for a smoke run")
    args = ap.parse_args(argv)
    if args.quick:
        args.n_train, args.n_test, args.n_features, args.templates = 2000, 300, 5000, 40
    ex, y = make_problem(args.n_train + args.n_test, args.n_features, args.templates, args.seed)
    X = to_csr(ex[: args.n_train], args.n_features)
    Xt = to_csr(ex[args.n_train:], args.n_features)
    yt = y[args.n_train:]
    lens = numpy.diff(X.indptr)
    report = {"config": vars(args), "python": platform.python_version(),
              "machine": platform.machine(), "n_train": args.n_train, "n_test": args.n_test,
              "active_features": [int(lens.min()), float(lens.mean()), int(lens.max())],
              "positive_rate": float((y == 1).mean()), "degrees": []}
    print(f"{args.n_train} train / {args.n_test} test examples, {args.n_features} features, "
          f"|X| min/mean/max {lens.min()}/{lens.mean():.1f}/{lens.max()}")
    for d in args.degrees:
        bench_degree(d, X, y[: args.n_train], Xt, yt, args, report)
    report["max_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    write_json(args.out, report, indent=1)
    print(f"\nwrote {args.out} (max RSS {report['max_rss_mb']:.0f} MB)")


if __name__ == "__main__":
    main()
