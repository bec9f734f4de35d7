"""Japanese word segmentation (JWS) benchmark: pke_segmenter on KWDLC, the
shape of Kudo & Matsumoto (2003) Table 1 (JWS column), Table 3 and Table 5.

Two trained models, every classifier form rebuilt from each without
retraining:

- libsvm (support vectors: PKB, PKI and PKE) on the first N training
  sentences. libsvm cannot train d = 3 on the whole corpus (~300k gaps) in
  an hour, so it trains on growing prefixes (`--libsvm-sizes`), each timed,
  up to `--libsvm-limit` sentences and while the next size is predicted
  (quadratic growth) to fit `--libsvm-budget` seconds; the largest one gives
  Table 1 (support-vector statistics) and the PKB / PKI / PKE rows of
  Tables 3 and 5.
- the primal trainer (liblinear on the explicit subset features, PKE only)
  on the whole training corpus: the full-size PKE rows (sigma sweep, xi
  sweep), boundary accuracy and word F on KWDLC test, whole segmentation
  speed through nlp.pipe from raw text (the component pipeline and the
  tokenizer form of the same model), training seconds and model bytes.

Classifier time: the kernel classifier alone (`decision_batch`) over the
feature ids of every test gap, best of `--repeats`, per test sentence.
Boundary accuracy of a row: its decisions against the gold boundaries of
the test gaps (gaps inside whitespace-free runs; a gap across whitespace is
always a boundary). Trained models are saved in and reused from
`--model-dir` (the primal weights beside the pipeline, to rebuild PKE at
other sigma and xi after loading).

    python -m benchmarks.jws                      # both models, ~40-60 min
    python -m benchmarks.jws --libsvm-sizes 500,1000 --test-limit 500

Output: `--out-json` (metrics/bench_jws.json). `run(...)` returns the same
dict.
"""
import argparse
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy
import spacy
from spacy.training import Example

from benchmarks.harness import DATA, REPO, machine_info, sv_summary, write_json
from spacy_adf.corpora.knp import KNPCorpus
from spacy_adf.kernels.primal import PrimalSVM
from spacy_adf.tokenizers.char import CharTokenizer

NAME = "bench_jws"
SIGMAS = (0.01, 0.005, 0.001, 0.0005)
XIS = (1, 2, 3)
XI_SIGMA = 0.005
LIBSVM_SIZES = (500, 1000, 2000, 4000)
# the paper's JWS figures (Table 1, Table 3 at d = 3)
PAPER = {"n_examples": 265413, "avg_features": 11.73, "boundary_acc": 97.94}
PRIMAL_FILE = "primal.npz"
_PRIMAL_ARRAYS = ("parent", "item", "size", "support", "weight")


def char_nlp():
    nlp = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.CharTokenizer.v1"}}})
    assert isinstance(nlp.tokenizer, CharTokenizer)
    return nlp


def read_examples(nlp, path: Path, limit: int = 0) -> List[Example]:
    return list(KNPCorpus(path, limit=limit)(nlp))


# ---------------------------------------------------------------- models

def save_primal(primal: PrimalSVM, path: Path) -> None:
    numpy.savez(path, **{k: getattr(primal, k) for k in _PRIMAL_ARRAYS},
                meta=numpy.array([primal.degree, primal.n_features, primal.n_pos, primal.n_neg]),
                bias=numpy.array([primal.bias]), classes=numpy.asarray(primal.classes))


def load_primal(path: Path) -> PrimalSVM:
    z = numpy.load(path)
    degree, n_features, n_pos, n_neg = (int(v) for v in z["meta"])
    return PrimalSVM(degree, n_features, *(z[k] for k in _PRIMAL_ARRAYS), float(z["bias"][0]), n_pos, n_neg,
                     tuple(z["classes"].tolist()))


def train_or_load(examples: Sequence[Example], trainer: str, model_dir: Optional[Path], name: str,
                  C: float = 1.0):
    """(nlp, training seconds or None when reused) of a pke_segmenter
    pipeline trained on `examples`, reused from model_dir/name when there."""
    path = model_dir / name if model_dir is not None else None
    if path is not None and (path / "config.cfg").exists():
        nlp = spacy.load(path)
        seg = nlp.get_pipe("pke_segmenter")
        if seg.cfg["trainer"] == trainer and seg.cfg["C"] == C and (
                trainer != "primal" or (path / PRIMAL_FILE).exists()):
            if trainer == "primal":
                seg.plain_model.primal = load_primal(path / PRIMAL_FILE)
            print(f"reusing {path}", flush=True)
            return nlp, None
    nlp = char_nlp()
    seg = nlp.add_pipe("pke_segmenter", config={"trainer": trainer, "classifier": "pke", "sigma": 0.0, "C": C,
                                                "cache_size": 2000.0})
    start = time.perf_counter()
    nlp.initialize(lambda: examples)
    seconds = time.perf_counter() - start
    print(f"{name}: {trainer} on {len(examples)} sentences in {seconds:.0f} s", flush=True)
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
        nlp.to_disk(path)
        if trainer == "primal":
            save_primal(seg.plain_model.primal, path / PRIMAL_FILE)
    return nlp, seconds


# ---------------------------------------------------------------- measures

def table1(seg) -> Dict:
    """The JWS column of Table 1: examples, support vectors (positive /
    negative), |F|, the average |X_j| over support vectors and B, the
    average length of the inverted-index list h(i) over the features that
    occur in a support vector. The primal trainer has no support vectors:
    its counts are the training examples on or inside the margin, and the
    averages are over all training examples."""
    stats = seg.cfg["stats"]
    sv = seg.plain_model.support_vectors
    out = {"trainer": seg.cfg["trainer"], "n_examples": stats["n_examples"], "n_features": stats["n_features"],
           "avg_features_per_example": stats["avg_features"]}
    if sv is not None:
        t1 = sv_summary(sv)
        out.update({"n_sv": t1["n_sv"], "n_pos_sv": t1["n_pos_sv"], "n_neg_sv": t1["n_neg_sv"],
                    "avg_sv_features": t1["avg_len"], "B": t1["avg_list"]})
    else:
        training = stats["training"]
        out.update({"n_unique_examples": training.get("n_unique"), "n_sv": stats["n_sv"],
                    "n_pos_sv": training.get("n_pos_sv"), "n_neg_sv": training.get("n_neg_sv"),
                    "n_subsets": training.get("n_subsets")})
    return out


def gold_items(seg, examples: Sequence[Example]):
    return [seg.gold_units(eg) for eg in examples if len(eg.predicted)]


def bench_form(seg, kind: str, X, y, n_sent: int, sigma: float = 0.0, xi: int = 1, repeats: int = 3) -> Dict:
    build = seg.set_classifier(kind, sigma=sigma, xi=xi)
    clf = seg.plain_model.classifier
    best = float("inf")
    for _ in range(1 if kind == "pkb" else max(repeats, 1)):
        start = time.perf_counter()
        values = clf.decision_batch(X)
        best = min(best, time.perf_counter() - start)
    row = {"kind": kind, "sigma": sigma if kind == "pke" else None, "xi": xi if kind == "pke" else None,
           "build_seconds": build, "bytes": int(clf.nbytes), "classifier_seconds": best,
           "classifier_s_per_sent": best / max(n_sent, 1),
           "boundary_acc": 100.0 * float(numpy.mean((values > 0) == (y > 0))),
           "omega": int(clf.n_kept) if kind == "pke" else None}
    print(f"  {kind} sigma={row['sigma']} xi={row['xi']}: acc {row['boundary_acc']:.2f} "
          f"clf {row['classifier_s_per_sent'] * 1e6:.1f} us/sent |Omega| {row['omega']}", flush=True)
    return row


def form_rows(seg, test_items, n_sent: int, kinds: Sequence[str], sigmas=SIGMAS, xis=XIS,
              xi_sigma: float = XI_SIGMA, repeats: int = 3) -> Dict:
    """Table 3 rows (kinds, then PKE at each sigma, xi 1) and Table 5 rows
    (PKE at xi_sigma, each xi), with speedups over PKB (or over the first
    row when there is no PKB)."""
    X, y = seg.plain_model.examples(test_items, build_vocab=False)
    t3 = [bench_form(seg, k, X, y, n_sent, repeats=repeats) for k in kinds if k != "pke"]
    t3 += [bench_form(seg, "pke", X, y, n_sent, s, 1, repeats) for s in sigmas]
    t5 = [bench_form(seg, "pke", X, y, n_sent, xi_sigma, x, repeats) for x in xis]
    base = t3[0]["classifier_seconds"]
    for row in t3 + t5:
        row["speedup"] = base / max(row["classifier_seconds"], 1e-12)
    speedup_vs = t3[0]["kind"] + (f" sigma {t3[0]['sigma']:g}" if t3[0]["kind"] == "pke" else "")
    return {"test_gaps": int(X.shape[0]), "speedup_vs": speedup_vs, "table3": t3, "table5": t5}


def best_pipe_seconds(nlp, texts: Sequence[str], repeats: int) -> float:
    """Seconds of the fastest of `repeats` passes of nlp.pipe over the texts."""
    best = float("inf")
    for _ in range(max(repeats, 1)):
        start = time.perf_counter()
        for _doc in nlp.pipe(texts, batch_size=256):
            pass
        best = min(best, time.perf_counter() - start)
    return best


def whole_segmentation(nlp, test: Sequence[Example], repeats: int = 3) -> Dict:
    """Raw text in, word Docs out (char tokenizer + pke_segmenter), best
    of `repeats`; and the scores of the same pipeline on the test set."""
    texts = [eg.reference.text for eg in test]
    chars = sum(len(t) for t in texts)
    best = best_pipe_seconds(nlp, texts, repeats)
    scores = nlp.evaluate([Example(nlp.make_doc(eg.reference.text), eg.reference) for eg in test])
    out = {"chars": chars, "seconds": best, "chars_per_s": chars / best,
           "token_f": 100 * scores["token_f"], "token_p": 100 * scores["token_p"],
           "token_r": 100 * scores["token_r"], "boundary_acc": 100 * scores["boundary_acc"]}
    out["tokenizer_form"] = tokenizer_form_speed(nlp, texts, repeats)
    return out


def tokenizer_form_speed(nlp, texts: Sequence[str], repeats: int = 3) -> Dict:
    """The same model as the spacy_adf.KernelSegmenter.v1 tokenizer (raw
    text straight to word Docs): chars/s, best of `repeats`, and whether
    its Docs equal the component pipeline's."""
    fast = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.KernelSegmenter.v1"}}})
    fast.tokenizer.from_segmenter(nlp.get_pipe("pke_segmenter"))
    best = best_pipe_seconds(fast, texts, repeats)

    def words(docs):
        return [[(t.text, t.whitespace_) for t in doc] for doc in docs]

    same = words(fast.pipe(texts, batch_size=256)) == words(nlp.pipe(texts, batch_size=256))
    return {"seconds": best, "chars_per_s": sum(len(t) for t in texts) / best, "identical_docs": same}


def model_bytes(nlp, tmp: Path) -> Dict:
    nlp.get_pipe("pke_segmenter").to_disk(tmp)
    return {p.name: p.stat().st_size for p in sorted(tmp.iterdir())}


# ---------------------------------------------------------------- run

def run(data_dir: Path = DATA, model_dir: Optional[Path] = REPO / "training", *, libsvm_sizes=LIBSVM_SIZES,
        libsvm_limit: int = 4000, libsvm_budget: float = 2400.0, test_limit: int = 0, repeats: int = 3,
        sigmas=SIGMAS, xis=XIS, xi_sigma: float = XI_SIGMA, primal: bool = True) -> Dict:
    """The whole benchmark (see the module doc); returns the report dict:
    "libsvm" {"timings": [{sentences, examples, seconds, n_sv}], "size",
    "table1", "table3", "table5"}, "primal" {"table1", "train_seconds",
    "table3" (PKE sigma rows), "table5", "segmentation" (chars/s, token_f,
    boundary_acc), "model_bytes"}, "paper"."""
    kw = Path(data_dir) / "kwdlc"
    nlp = char_nlp()
    train = read_examples(nlp, kw / "train.knp")
    test = read_examples(nlp, kw / "test.knp", test_limit)
    n_test = len(test)
    report: Dict = {"machine": machine_info(), "n_train": len(train), "n_test": n_test, "paper": PAPER,
                    "settings": {"libsvm_sizes": list(libsvm_sizes), "libsvm_limit": libsvm_limit,
                                 "libsvm_budget": libsvm_budget, "repeats": repeats}}
    # libsvm on growing prefixes
    timings, largest, last = [], None, None
    for size in sorted(s for s in libsvm_sizes if s <= libsvm_limit):
        if last is not None and last[1] is not None and last[1] * (size / last[0]) ** 2 > libsvm_budget:
            print(f"libsvm: skipping {size} sentences (predicted over the budget)", flush=True)
            break
        snlp, seconds = train_or_load(train[:size], "libsvm", model_dir, f"jws_kwdlc_libsvm_{size}")
        seg = snlp.get_pipe("pke_segmenter")
        reused = seconds is None
        if reused:
            seconds = seg.cfg["stats"].get("svm_seconds")
        timings.append({"sentences": size, "examples": seg.cfg["stats"]["n_examples"], "seconds": seconds,
                        "n_sv": seg.plain_model.support_vectors.n_sv, "reused": reused})
        largest, last = snlp, (size, seconds)
    if largest is not None:
        seg = largest.get_pipe("pke_segmenter")
        items = gold_items(seg, test)
        report["libsvm"] = {"timings": timings, "size": last[0], "table1": table1(seg),
                            **form_rows(seg, items, n_test, ("pkb", "pki"), sigmas, xis, xi_sigma, repeats)}
    if primal:
        pnlp, seconds = train_or_load(train, "primal", model_dir, "jws_kwdlc_primal")
        seg = pnlp.get_pipe("pke_segmenter")
        items = gold_items(seg, test)
        out = {"table1": table1(seg), "train_seconds": seconds if seconds is not None
               else seg.cfg["stats"].get("svm_seconds"), "reused": seconds is None,
               "training": seg.cfg["stats"]["training"]}
        out.update(form_rows(seg, items, n_test, (), sigmas, xis, xi_sigma, repeats))
        seg.set_classifier("pke", sigma=xi_sigma, xi=1)
        out["segmentation"] = whole_segmentation(pnlp, test, repeats)
        out["segmentation"]["form"] = f"PKE sigma {xi_sigma:g} xi 1"
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            out["model_bytes"] = model_bytes(pnlp, Path(tmp))
        report["primal"] = out
    return report


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--model-dir", type=Path, default=REPO / "training")
    p.add_argument("--libsvm-sizes", default=",".join(map(str, LIBSVM_SIZES)))
    p.add_argument("--libsvm-limit", type=int, default=4000, help="largest libsvm training prefix (sentences)")
    p.add_argument("--libsvm-budget", type=float, default=2400.0,
                   help="seconds the next libsvm size may take (predicted quadratically)")
    p.add_argument("--test-limit", type=int, default=0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-primal", dest="primal", action="store_false")
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / f"{NAME}.json")
    args = p.parse_args(argv)
    args.libsvm_sizes = [int(s) for s in args.libsvm_sizes.split(",") if s]
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    report = run(args.data, args.model_dir, libsvm_sizes=args.libsvm_sizes, libsvm_limit=args.libsvm_limit,
                 libsvm_budget=args.libsvm_budget, test_limit=args.test_limit, repeats=args.repeats,
                 primal=args.primal)
    report["command"] = "python -m benchmarks.jws " + " ".join(argv if argv is not None else sys.argv[1:])
    write_json(args.out_json, report)
    print(f"wrote {args.out_json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
