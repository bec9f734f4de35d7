"""libsvm with and without merging identical training decisions, for
pke_dependency on KWDLC (issue 12): training time side by side, and how far
the two trained SVMs' decision values are apart on the test decisions.

k identical decisions (same feature set, same label) are the same SVM
problem as one decision with weight k (C_i = k C), so merging changes only
the work libsvm does, and where it stops within its tolerance.

1. Full size, libsvm's default tolerance: two child processes, run side by
   side (one core each), train `python -m benchmarks.dependency --train-only`
   once plain and once with `--merge-duplicates` into `--model-dir`/plain and
   /merged (kept and reused on a rerun with the same settings); each child's
   wall time and peak RSS are recorded, and libsvm's own fit time comes from
   the trained component's stats. Both SVMs then score every gold-parse
   decision of KWDLC test (PKI: exact): the largest difference, and whether
   every decision and every parse comes out the same.
2. A subsample (`--sub-limit` training sentences) at a tight tolerance
   (`--sub-tol`), both ways in this process: there the decision values agree
   to `--agree` (1e-6), which shows the difference above is the tolerance's.

    python -m benchmarks.dependency_merge            # full size: ~1.5 hours on 2 cores
    python -m benchmarks.dependency_merge --limit 1500 --sub-limit 500
"""
import argparse
import sys
import time
from pathlib import Path
from typing import Dict

import numpy

from benchmarks.harness import BENCHMARKS_MD, DATA, REPO, Child, machine_info, module_command, publish

NAME = "bench_dependency_merge"


def train_children(args) -> Dict[str, Dict]:
    """Train the plain and the merged SVM side by side in child processes."""
    children = {}
    for variant in ("plain", "merged"):
        cmd = module_command("benchmarks.dependency", "--train-only", "--degrees", args.degree,
                             "--C", args.C, "--limit", args.limit, "--data", args.data,
                             "--model-dir", args.model_dir / variant)
        if variant == "merged":
            cmd.append("--merge-duplicates")
        args.model_dir.mkdir(parents=True, exist_ok=True)
        children[variant] = Child(cmd, args.model_dir / f"train_{variant}.log")
    runs = {variant: child.wait() for variant, child in children.items()}
    for variant, child in children.items():  # a model kept from an earlier run is only loaded
        runs[variant]["reused"] = child.log_path.read_text(encoding="utf8").startswith("reusing ")
    return runs


def decisions(pipe, docs, build_vocab: bool = False):
    """(X, y) of the gold-parse decisions of Docs with gold bunsetsu and
    heads, in `pipe`'s feature ids (built from them with `build_vocab`)."""
    from spacy.training import Example

    from spacy_adf.corpora.bunsetsu import make_predicted

    examples = [Example(make_predicted(ref), ref) for ref in docs]
    return pipe.plain_model.examples(pipe._gold_items(examples), build_vocab=build_vocab)


def compare(sv_a, sv_b, X, agree: float) -> Dict:
    """Decision values of two SVMs (PKI, exact) on the rows of X."""
    from spacy_adf.kernels import make_classifier

    a = make_classifier("pki", sv_a).decision_batch(X)
    b = make_classifier("pki", sv_b).decision_batch(X)
    diff = numpy.abs(a - b)
    return {"n_decisions": int(X.shape[0]), "max_abs_diff": float(diff.max()) if diff.size else 0.0,
            "mean_abs_diff": float(diff.mean()) if diff.size else 0.0,
            "same_sign": float(numpy.mean((a > 0) == (b > 0))) if diff.size else 1.0,
            "agree_to": agree, "agree": bool(diff.size == 0 or diff.max() <= agree)}


def full_size(args, test_docs) -> Dict:
    import spacy

    from benchmarks.dependency import parse_all

    runs = train_children(args)
    pipes, out = {}, {"runs": {}}
    for variant in ("plain", "merged"):
        nlp = spacy.load(args.model_dir / variant / f"dep_kwdlc_d{args.degree}")
        pipe = nlp.get_pipe("pke_dependency")
        pipes[variant] = pipe
        stats = pipe.cfg["stats"]
        training = stats.get("training", {})
        out["runs"][variant] = {
            "child_wall_seconds": runs[variant]["wall_seconds"], "child_peak_rss_mb": runs[variant]["peak_rss_mb"],
            "reused": runs[variant]["reused"],
            "svm_seconds": stats["svm_seconds"], "fit_seconds": training.get("fit_seconds"),
            "merge_seconds": training.get("merge_seconds"), "n_examples": stats["n_decisions"],
            "n_unique": training.get("n_unique", stats["n_decisions"]), "n_sv": stats["n_sv"]}
    plain, merged = pipes["plain"], pipes["merged"]
    if plain.plain_model.vocab.ids != merged.plain_model.vocab.ids:
        raise RuntimeError("the plain and merged runs built different feature vocabularies")
    X, _ = decisions(plain, test_docs)
    out["test"] = compare(plain.plain_model.support_vectors, merged.plain_model.support_vectors, X, args.agree)
    parses = {}
    for variant, pipe in pipes.items():
        pipe.set_classifier("pki")
        parses[variant] = parse_all(pipe, test_docs, 1)
    out["test"]["dep_acc"] = {v: p["dep_acc"] for v, p in parses.items()}
    out["test"]["same_heads"] = parses["plain"]["heads"] == parses["merged"]["heads"]
    r = out["runs"]
    out["fit_speedup"] = r["plain"]["svm_seconds"] / max(r["merged"]["svm_seconds"], 1e-9)
    return out


def subsample(args, vocab, test_docs) -> Dict:
    """Both ways at a tight tolerance on the first `--sub-limit` sentences."""
    import spacy

    from benchmarks.dependency import read_docs
    from spacy_adf.kernels import train_svm

    nlp = spacy.blank("xx")
    pipe = nlp.add_pipe("pke_dependency", config={"degree": args.degree, "C": args.C})
    train = read_docs(args.data / "kwdlc" / "train.knp", vocab, args.sub_limit)
    X, y = decisions(pipe, train, build_vocab=True)
    Xt, _ = decisions(pipe, test_docs)
    out = {"n_sentences": len(train), "tol": args.sub_tol, "runs": {}}
    svs = {}
    for variant in ("plain", "merged"):
        stats: Dict = {}
        start = time.perf_counter()
        svs[variant], _ = train_svm(X, y, degree=args.degree, C=args.C, merge=variant == "merged",
                                    stats=stats, tol=args.sub_tol, cache_size=2000.0)
        stats["svm_seconds"] = time.perf_counter() - start
        stats["n_sv"] = svs[variant].n_sv
        out["runs"][variant] = stats
        print(f"subsample {variant}: {stats['svm_seconds']:.1f} s, {stats['n_unique']:,} of "
              f"{stats['n_examples']:,} examples", flush=True)
    out["test"] = compare(svs["plain"], svs["merged"], Xt, args.agree)
    out["fit_speedup"] = out["runs"]["plain"]["svm_seconds"] / max(out["runs"]["merged"]["svm_seconds"], 1e-9)
    return out


def markdown(report: Dict) -> str:
    f, s = report["full"], report["subsample"]
    rp, rm = f["runs"]["plain"], f["runs"]["merged"]
    t = f["test"]
    def child(r: Dict) -> str:  # a reused model's child only loaded it
        return ("reused | reused" if r.get("reused")
                else f"{r['child_wall_seconds']:.0f} | {r['child_peak_rss_mb']:.0f}")

    reused = [v for v in ("plain", "merged") if f["runs"][v].get("reused")]
    lines = ["## libsvm with merged duplicate decisions (pke_dependency, KWDLC)", "",
             f"`{report['command']}`, one run, {report['machine']['cores']} cores, commit "
             f"{report['machine']['git_commit']}; d = {report['degree']}, C = {report['C']}. The plain and "
             "the merged SVM trained side by side in two child processes (one core each)"
             + (f"; the {' and '.join(reused)} model was kept from an earlier run and reused, so its libsvm "
                "seconds are that run's" if reused else "") + ".", "",
             "| training | decisions trained | libsvm s | child wall s | child peak RSS MB | support vectors |",
             "|---|---|---|---|---|---|",
             f"| plain | {rp['n_unique']:,} | {rp['svm_seconds']:.0f} | {child(rp)} | {rp['n_sv']:,} |",
             f"| merged (weight = count) | {rm['n_unique']:,} of {rm['n_examples']:,} | {rm['svm_seconds']:.0f} "
             f"| {child(rm)} | {rm['n_sv']:,} |", "",
             f"Merging saves {100 * (1 - rm['svm_seconds'] / rp['svm_seconds']):.0f}% of libsvm's time "
             f"({f['fit_speedup']:.2f}x). On the {t['n_decisions']:,} KWDLC test decisions at libsvm's default "
             f"tolerance the decision values differ by at most {t['max_abs_diff']:.2g} (mean "
             f"{t['mean_abs_diff']:.2g}); {100 * t['same_sign']:.3f}% of the decisions and "
             f"{'all' if t['same_heads'] else 'not all'} test parses are the same; dependency accuracy "
             f"{t['dep_acc']['plain']:.2f} plain, {t['dep_acc']['merged']:.2f} merged.", "",
             f"At tol = {s['tol']:g} on the first {s['n_sentences']:,} training sentences "
             f"({s['runs']['plain']['n_examples']:,} decisions, {s['runs']['merged']['n_unique']:,} distinct): "
             f"plain {s['runs']['plain']['svm_seconds']:.1f} s, merged {s['runs']['merged']['svm_seconds']:.1f} s; "
             f"test decision values differ by at most {s['test']['max_abs_diff']:.2g} "
             f"({'within' if s['test']['agree'] else 'NOT within'} {s['test']['agree_to']:g}). The difference at "
             "full size is libsvm's stopping tolerance, not a different problem.", ""]
    return "\n".join(lines)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--degree", type=int, default=3)
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--limit", type=int, default=0, help="training sentences of the full-size runs (0 = all)")
    p.add_argument("--test-limit", type=int, default=0)
    p.add_argument("--sub-limit", type=int, default=2000, help="training sentences of the tight-tolerance check")
    p.add_argument("--sub-tol", type=float, default=1e-10)
    p.add_argument("--agree", type=float, default=1e-6)
    p.add_argument("--model-dir", type=Path, default=REPO / "training" / "dep_merge")
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / "bench_dependency_merge.json")
    p.add_argument("--out-md", type=Path, default=BENCHMARKS_MD)
    return p.parse_args(argv)


def main(argv=None) -> int:
    import spacy

    from benchmarks.dependency import read_docs

    args = parse_args(argv)
    command = "python -m benchmarks.dependency_merge " + " ".join(argv if argv is not None else sys.argv[1:])
    vocab = spacy.blank("xx").vocab
    report = {"command": command.strip(), "machine": machine_info(), "degree": args.degree, "C": args.C}
    test_docs = read_docs(args.data / "kwdlc" / "test.knp", vocab, args.test_limit)
    report["full"] = full_size(args, test_docs)
    report["subsample"] = subsample(args, vocab, test_docs)
    publish(report, args.out_json, args.out_md, NAME, markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
