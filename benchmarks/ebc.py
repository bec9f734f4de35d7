"""English base-NP chunking (EBC) with pke_tagger: the shape of Kudo &
Matsumoto (2003) Table 1 (EBC column) and Table 2 (Tables 2-4's rows for
EBC), from ONE trained model.

One pke_tagger (IOB2 tags, words and POS at -2..+2 plus the two previous
chunk tags, quadratic kernel, C = 1, one libsvm SVM per pair of tags) is
trained on CoNLL-2000 train (WSJ 15-18; NP chunks only, other chunks O,
gold POS) or reused from ``model_dir``; every classifier form is then
rebuilt from its stored support vectors (no retraining): PKB, PKI, and PKE
at sigma in {0.01, 0.005, 0.001, 0.0005}. Each form tags CoNLL-2000 test
(WSJ 20), left to right with its own previous tags.

Clocks, per form (seconds per test sentence):

- classifier time: the pairwise classifier alone (`PairwiseClassifier.votes`,
  all K(K-1)/2 = 3 binary classifiers per decision and the vote, in C) on the
  feature sets of every test decision the tagger made with this form, i.e.
  with the previous tags it predicted itself (rebuilt with
  `KernelTagger.decisions` after one decoding pass; whitespace tokens, which
  are never asked, are left out: CoNLL has none). Best of ``repeats`` passes
  (PKB: one pass). This is the paper's "time" column: the classifier calls.
- tagging time: the whole `KernelTagger.tag_docs` (static feature ids from
  the Docs, the left-to-right decoder, the classifier), best of passes.

Also: test F1 (spans_chunks_f, conlleval rules), |Omega| (PKE: subsets kept,
summed over the 3 pairs), classifier bytes and build seconds; whole tagging
tokens/s through ``nlp.pipe`` with PKE at sigma 0.005 (Docs with words and
gold POS made beforehand, spans written); training seconds and model bytes.

    python -m benchmarks.ebc --model-dir training/ebc     # + training (~16-34 min), ~8 min reusing a model
    from benchmarks.ebc import run; report = run(data_dir, model_dir)

Output: a dict (`run`), and JSON in ``--out-json`` (default metrics/bench_ebc.json).
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, Optional

import numpy
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from benchmarks.harness import DATA, REPO, machine_info, sv_summary, write_json

import spacy_adf.pipeline.kernel_tagger  # noqa: F401  (registers pke_tagger before its entry point is installed)
from spacy_adf.corpora.conll import conll_to_docs
from spacy_adf.kernels.left_to_right import decode

NAME = "bench_ebc"
SIGMAS = (0.01, 0.005, 0.001, 0.0005)
OUT_JSON = REPO / "metrics" / "bench_ebc.json"
COMPONENT = "chunker"
# the paper's EBC figures (Kudo & Matsumoto 2003, Tables 1 and 2)
PAPER = {
    "table1": {"n_examples": 135692, "n_sv": 11690, "n_pos_sv": 5637, "n_neg_sv": 6053, "n_features": 17470,
               "avg_sv_len": 11.90, "B": 7.74},
    "table2": [
        {"kind": "pke", "sigma": 0.01, "s_per_sent": 0.0016, "speedup": 105.2, "f1": 93.79, "omega": 518000},
        {"kind": "pke", "sigma": 0.005, "s_per_sent": 0.0016, "speedup": 101.3, "f1": 93.85, "omega": 668000},
        {"kind": "pke", "sigma": 0.001, "s_per_sent": 0.0017, "speedup": 97.7, "f1": 93.84, "omega": 858000},
        {"kind": "pke", "sigma": 0.0005, "s_per_sent": 0.0017, "speedup": 96.8, "f1": 93.84, "omega": 889000},
        {"kind": "pki", "s_per_sent": 0.020, "speedup": 8.3, "f1": 93.84},
        {"kind": "pkb", "s_per_sent": 0.164, "speedup": 1.0, "f1": 93.84},
    ],
}
TAGGER_CONFIG = {"target": "spans:chunks", "scheme": "BIO", "degree": 2, "C": 1.0, "classifier": "pki",
                 "cache_size": 4000.0, "n_jobs": 2}


def read_pairs(nlp, path: Path, limit: int = 0):
    """(predicted Docs with words + gold POS, reference Docs with NP chunks)."""
    pairs = list(conll_to_docs(nlp.vocab, path, columns=["words", "tag", "iob"], iob_target="spans:chunks",
                               keep_labels=["NP"], input_attrs=["tag"], limit=limit))
    return [p for p, _ in pairs], [r for _, r in pairs]


def fresh_docs(nlp, docs):
    return [Doc(nlp.vocab, words=[t.text for t in d], spaces=[bool(t.whitespace_) for t in d],
                tags=[t.tag_ for t in d]) for d in docs]


def train_tagger(data_dir: Path, model_dir: Optional[Path], config: Dict, limit: int = 0):
    """A blank English pipeline with a trained pke_tagger named "chunker",
    reused from model_dir when it holds one with the same degree and C
    (and support vectors: trained by libsvm)."""
    if model_dir is not None and (model_dir / "config.cfg").exists():
        nlp = spacy.load(model_dir)
        cfg = nlp.get_pipe(COMPONENT).cfg
        if cfg["degree"] == config["degree"] and cfg["C"] == config["C"] and cfg["trainer"] == "libsvm" \
                and nlp.get_pipe(COMPONENT).plain_model.support_vectors is not None:
            print(f"reusing {model_dir}", flush=True)
            return nlp
    nlp = spacy.blank("en")
    nlp.add_pipe("pke_tagger", name=COMPONENT, config=config)
    predicted, refs = read_pairs(nlp, data_dir / "train.txt", limit)
    examples = [Example(p, r) for p, r in zip(predicted, refs)]
    start = time.perf_counter()
    nlp.initialize(lambda: examples)
    print(f"trained in {time.perf_counter() - start:.0f} s", flush=True)
    if model_dir is not None:
        model_dir.mkdir(parents=True, exist_ok=True)
        nlp.to_disk(model_dir)
    return nlp


def decisions(tagger, docs):
    """(CSR feature sets of every decision a `KernelTagger`'s decoder makes,
    with its own previous tags; the class ids it chose): the classifier's
    input, to time it apart. Forced tokens (whitespace) are not decisions."""
    static, sent_off, forced, _ = tagger.batch_arrays(docs)
    classes = decode(tagger.classifier, static, sent_off, tagger._dynamic_table(), forced)
    X = tagger.rows(static, sent_off, classes)
    asked = forced < 0
    return X[asked], classes[asked]


def support_stats(tagger) -> dict:
    """Table 1 of Kudo & Matsumoto 2003 for a `KernelTagger`'s pairwise SVMs,
    averaged over the pairs: training examples, SVs (positive / negative),
    the average |X_j| over the SVs, |F| and B = the average length of the
    inverted-index lists h(i). |F| and B are given two ways: over the
    features that occur in the pair's SVs (``sv_features``, ``B``) and over
    the whole feature vocabulary (``n_features``, ``B_vocab``)."""
    svs = tagger.support_vectors
    if not svs:
        raise ValueError("support statistics need the libsvm support vectors")
    pairs = tagger.train_stats.get("pairs") or [{}] * len(svs)
    rows = []
    for sv, info in zip(svs, pairs):
        t1 = sv_summary(sv)
        rows.append({"pair": info.get("pair"), "n_examples": info.get("n_examples"), "n_sv": t1["n_sv"],
                     "n_pos_sv": t1["n_pos_sv"], "n_neg_sv": t1["n_neg_sv"], "avg_sv_len": t1["avg_len"],
                     "sv_features": t1["n_features_sv"], "B": t1["avg_list"],
                     "B_vocab": sv.indices.shape[0] / sv.n_features if sv.n_features else 0.0,
                     "train_seconds": info.get("seconds")})

    def mean(key):
        values = [r[key] for r in rows if r[key] is not None]
        return float(numpy.mean(values)) if values else None

    keys = ("n_examples", "n_sv", "n_pos_sv", "n_neg_sv", "avg_sv_len", "sv_features", "B", "B_vocab")
    return {"n_pairs": len(rows), "n_features": len(tagger.vocab), **{key: mean(key) for key in keys},
            "per_pair": rows}


def model_bytes(model_dir: Optional[Path]) -> Optional[Dict[str, int]]:
    if model_dir is None or not (model_dir / COMPONENT).exists():
        return None
    return {p.name: p.stat().st_size for p in sorted((model_dir / COMPONENT).iterdir())}


def bench_form(nlp, test_docs, refs, kind: str, sigma: float, repeats: int) -> Dict:
    pipe = nlp.get_pipe(COMPONENT)
    build = pipe.set_classifier(kind, sigma=sigma)
    clf, tagger = pipe.plain_model.classifier, pipe.plain_model
    X, tags = decisions(tagger, test_docs)  # this form's own previous tags
    passes = 1 if kind == "pkb" else max(repeats, 1)
    best_clf = best_tag = float("inf")
    for _ in range(passes):
        start = time.perf_counter()
        votes = clf.votes(X)[0]
        best_clf = min(best_clf, time.perf_counter() - start)
    assert (votes == tags).all(), "the replayed decisions differ from the decoder's"
    for _ in range(passes):
        start = time.perf_counter()
        per_doc = tagger.tag_docs(test_docs)
        best_tag = min(best_tag, time.perf_counter() - start)
    docs = fresh_docs(nlp, test_docs)
    pipe.set_annotations(docs, per_doc)
    scores = pipe.score([Example(d, r) for d, r in zip(docs, refs)])
    n = max(len(test_docs), 1)
    row = {"kind": kind, "sigma": sigma if kind == "pke" else None, "f1": 100 * scores["spans_chunks_f"],
           "p": 100 * scores["spans_chunks_p"], "r": 100 * scores["spans_chunks_r"],
           "classifier_seconds": best_clf, "classifier_s_per_sent": best_clf / n,
           "tagging_seconds": best_tag, "tagging_s_per_sent": best_tag / n, "n_decisions": int(X.shape[0]),
           "omega": int(clf.n_kept) if kind == "pke" else None, "bytes": int(clf.nbytes),
           "build_seconds": build, "tags": tags}
    print(f"  {kind} sigma={row['sigma']}: F1 {row['f1']:.2f} classifier {best_clf / n * 1e3:.4f} ms/sent "
          f"tagging {best_tag / n * 1e3:.4f} ms/sent |Omega| {row['omega']} build {build:.1f} s", flush=True)
    return row


def pipe_speed(nlp, test_docs, repeats: int, batch_size: int = 256) -> Dict:
    best = float("inf")
    n_tokens = sum(len(d) for d in test_docs)
    for _ in range(max(repeats, 1)):
        docs = fresh_docs(nlp, test_docs)
        start = time.perf_counter()
        for _ in nlp.pipe(docs, batch_size=batch_size):
            pass
        best = min(best, time.perf_counter() - start)
    return {"tokens": n_tokens, "seconds": best, "tokens_per_s": n_tokens / best, "batch_size": batch_size}


def run(data_dir: Path = DATA / "conll2000", model_dir: Optional[Path] = None, repeats: int = 5,
        sigmas=SIGMAS, out_json: Optional[Path] = OUT_JSON, limit: int = 0, test_limit: int = 0) -> Dict:
    """Train (or reuse) the EBC model and measure every form; returns the
    report (see the module docstring) and writes it to out_json if given."""
    data_dir = Path(data_dir)
    model_dir = Path(model_dir) if model_dir is not None else None
    nlp = train_tagger(data_dir, model_dir, TAGGER_CONFIG, limit)
    pipe = nlp.get_pipe(COMPONENT)
    stats = pipe.cfg["stats"]
    test_docs, refs = read_pairs(nlp, data_dir / "test.txt", test_limit)
    rows = [bench_form(nlp, test_docs, refs, "pkb", 0.0, repeats),
            bench_form(nlp, test_docs, refs, "pki", 0.0, repeats)]
    rows += [bench_form(nlp, test_docs, refs, "pke", s, repeats) for s in sigmas]
    base = rows[0]
    base_tags = base["tags"]
    for row in rows:
        row["speedup_classifier"] = base["classifier_seconds"] / max(row["classifier_seconds"], 1e-12)
        row["speedup_tagging"] = base["tagging_seconds"] / max(row["tagging_seconds"], 1e-12)
        row["delta_f1_vs_pkb"] = row["f1"] - base["f1"]
        row["same_tags_as_pkb"] = float((row.pop("tags") == base_tags).mean())
    pipe.set_classifier("pke", sigma=0.005)
    speed = pipe_speed(nlp, test_docs, repeats)
    print(f"nlp.pipe with PKE sigma=0.005: {speed['tokens_per_s']:,.0f} tokens/s", flush=True)
    table1 = support_stats(pipe.plain_model)
    report = {
        "name": NAME, "machine": machine_info(), "data": str(data_dir),
        "model_dir": str(model_dir) if model_dir else None,
        "n_test_sentences": len(test_docs), "n_test_tokens": sum(len(d) for d in test_docs),
        "classes": pipe.tag_names, "config": {k: v for k, v in pipe.cfg.items() if k != "stats"},
        "training_seconds": stats.get("svm_seconds"), "training": stats.get("training"),
        "n_train_decisions": stats.get("n_decisions"),
        "table1": table1, "rows": rows, "pipe_speed_pke_0.005": speed,
        "model_bytes": model_bytes(model_dir), "paper": PAPER,
        "classifier_time": "PairwiseClassifier.votes on the feature sets of all test decisions, made with "
                           "the form's own predicted previous tags; best of passes (PKB: 1 pass)",
    }
    if out_json is not None:
        write_json(out_json, report)
    return report


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA / "conll2000", help="folder with train.txt and test.txt")
    ap.add_argument("--model-dir", type=Path, default=None, help="save / reuse the trained pipeline here")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sigmas", type=float, nargs="+", default=list(SIGMAS))
    ap.add_argument("--limit", type=int, default=0, help="training sentences (0: all)")
    ap.add_argument("--test-limit", type=int, default=0, help="test sentences (0: all)")
    ap.add_argument("--out-json", type=Path, default=OUT_JSON)
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    report = run(args.data, args.model_dir, args.repeats, tuple(args.sigmas), args.out_json, args.limit,
                 args.test_limit)
    t = report["table1"]
    print(json.dumps({k: t[k] for k in t if k != "per_pair"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
