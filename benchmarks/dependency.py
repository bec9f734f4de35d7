"""Japanese bunsetsu dependency benchmark: pke_dependency with PKB, PKI and
PKE, the shape of Kudo & Matsumoto (2003) Tables 2-6, in one run.

For each degree d (default 2 and 3) one SVM is trained on KWDLC train
(gold bunsetsu and JUMAN POS, as in the paper; libsvm through scikit-learn,
C from the config) and every classifier form is built from the same support
vectors: PKB, PKI, and PKE at sigma in {0.01, 0.005, 0.001, 0.0005} (xi = 1)
plus the xi in {1, 2, 3} sweep at `--xi-sigma`. Each form parses KWDLC test
with gold bunsetsu; reported per form: seconds per sentence inside the
kernel classifier and for the whole parse (features + cascaded chunking +
classifier), the speedup over PKB (classifier time), dependency accuracy
(each sentence's last bunsetsu excluded), sentence accuracy, |Omega|, the
classifier's bytes and its build time; per degree the SVM training time,
support vectors and training decisions. Then, with the `--chosen` form: the
KU Wikipedia test split (a different domain, same KNP scheme), and KWDLC
test with bunsetsu predicted by the adf_tagger chunker (`--chunker`, a
pipeline trained with configs/bunsetsu_ja_kwdlc.cfg). GiNZA's figures are
copied from `--ginza-json` (benchmarks/ginza.py) when that file exists.

    python -m benchmarks.dependency                 # full run (~1 hour)
    python -m benchmarks.dependency --limit 1500 --test-limit 300 --degrees 2

Output: JSON (`--out-json`) and a Markdown section between
`<!-- bench_dependency:start -->` and `<!-- bench_dependency:end -->` in
`--out-md`.
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import spacy
from spacy.tokens import Doc
from spacy.training import Example

from benchmarks.harness import BENCHMARKS_MD, DATA, REPO, fmt, machine_info, publish
from spacy_adf.corpora.bunsetsu import bunsetsu_docs, make_predicted
from spacy_adf.kernels import KernelClassifier
from spacy_adf.scorers.bunsetsu_deps import score_bunsetsu_deps
from tests.helpers.reference_parsers import ReferenceParser

NAME = "bench_dependency"
DEFAULT_DATA = DATA
SIGMAS = (0.01, 0.005, 0.001, 0.0005)
XIS = (1, 2, 3)


def read_docs(path: Path, vocab, limit: int = 0) -> list:
    return list(bunsetsu_docs(path, vocab, format="knp", limit=limit, bad_heads="skip"))


def train_parser(train_docs, degree: int, C: float, model_dir: Optional[Path], merge: bool = False):
    """A blank pipeline with a trained pke_dependency (PKI form; libsvm,
    identical decisions merged when `merge`), reused from model_dir when it
    holds one with the same degree, C and merging."""
    if model_dir is not None and (model_dir / "config.cfg").exists():
        nlp = spacy.load(model_dir)
        cfg = nlp.get_pipe("pke_dependency").cfg
        if cfg["degree"] == degree and cfg["C"] == C and cfg.get("merge_duplicates", False) == merge:
            print(f"reusing {model_dir}", flush=True)
            return nlp
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": degree, "C": C, "classifier": "pki", "cache_size": 2000.0,
                                           "merge_duplicates": merge})
    examples = [Example(make_predicted(ref), ref) for ref in train_docs]
    start = time.perf_counter()
    nlp.initialize(lambda: examples)
    print(f"d={degree}: trained in {time.perf_counter() - start:.0f} s", flush=True)
    if model_dir is not None:
        model_dir.mkdir(parents=True, exist_ok=True)
        nlp.to_disk(model_dir)
    return nlp


def parse_all(pipe, refs, repeats: int = 1) -> Dict:
    """Parse Docs with gold bunsetsu (no heads); score, and time (best of
    `repeats` passes for each clock). The classifier clock runs on the
    Python reference path (`tests/helpers/reference_parsers.py`: it calls
    the classifier once per cascade round and times the calls); the whole
    parse (`predict`) is timed on both paths: the component's Cython path
    (features + cascade + classifier in C) and the Python reference. A
    classifier that is not a KernelClassifier (the double-array trie) has
    no Cython path: its "Cython" clock times the Python path again."""
    docs = [make_predicted(ref) for ref in refs]
    best_python = best_clf = best_cython = float("inf")
    reference = ReferenceParser(pipe.plain_model)
    for _ in range(max(repeats, 1)):
        reference.decision_seconds = 0.0
        reference.n_decisions = 0
        start = time.perf_counter()
        heads = reference.predict(pipe, docs)
        best_python = min(best_python, time.perf_counter() - start)
        best_clf = min(best_clf, reference.decision_seconds)
    n_decisions = reference.n_decisions
    predict = pipe.predict if isinstance(pipe.plain_model.classifier, KernelClassifier) else (
        lambda docs: reference.predict(pipe, docs))
    for _ in range(max(repeats, 1)):
        start = time.perf_counter()
        fast = predict(docs)
        best_cython = min(best_cython, time.perf_counter() - start)
    same = [list(h) for h in fast] == [list(h) for h in heads]
    pipe.set_annotations(docs, heads)
    scores = score_bunsetsu_deps([Example(d, r) for d, r in zip(docs, refs)])
    n = max(len(refs), 1)
    return {
        "dep_acc": 100 * scores["bunsetsu_dep_acc"], "sent_acc": 100 * scores["bunsetsu_sent_acc"],
        "classifier_s_per_sent": best_clf / n, "parse_s_per_sent": best_cython / n,
        "parse_python_s_per_sent": best_python / n, "classifier_seconds": best_clf,
        "parse_seconds": best_cython, "parse_python_seconds": best_python,
        "paths_same_heads": same, "n_decisions": n_decisions, "heads": heads,
    }


def bench_form(pipe, refs, kind: str, sigma: float = 0.0, xi: int = 1, repeats: int = 1) -> Dict:
    build = pipe.set_classifier(kind, sigma=sigma, xi=xi)
    clf = pipe.plain_model.classifier
    row = {"kind": kind, "sigma": sigma if kind == "pke" else None, "xi": xi if kind == "pke" else None,
           "build_seconds": build, "bytes": int(clf.nbytes),
           "omega": int(clf.n_kept) if kind == "pke" else None}
    if kind == "pke":
        row["omega_by_size"] = clf.stats["kept_by_size"]
    row.update(parse_all(pipe, refs, 1 if kind == "pkb" else repeats))
    print(f"  {kind} sigma={row['sigma']} xi={row['xi']}: acc {row['dep_acc']:.2f} "
          f"sent {row['sent_acc']:.2f} clf {row['classifier_s_per_sent'] * 1e3:.3f} ms/sent "
          f"|Omega| {row['omega']} build {build:.1f} s", flush=True)
    return row


def bench_double_array(pipe, refs, sigma: float, xi: int, repeats: int = 1) -> Dict:
    """PKE's subsets in a double-array trie (the paper's structure) instead
    of PKE's own trie: same decisions, compared on speed and bytes."""
    from benchmarks.cython_modules import DoubleArrayPKE

    pipe.set_classifier("pke", sigma=sigma, xi=xi)
    pke = pipe.plain_model.classifier
    start = time.perf_counter()
    da = DoubleArrayPKE(pke)
    build = time.perf_counter() - start
    pipe.plain_model.classifier = da  # the reference parser only calls decision_batch
    row = {"kind": "pke-double-array", "sigma": sigma, "xi": xi, "build_seconds": build,
           "bytes": int(da.nbytes), "omega": int(pke.n_kept), "slots": da.n_slots}
    row.update(parse_all(pipe, refs, repeats))
    pipe.plain_model.classifier = pke
    print(f"  double array sigma={sigma} xi={xi}: clf {row['classifier_s_per_sent'] * 1e3:.3f} ms/sent, "
          f"{row['bytes']:,} bytes vs PKE trie {pke.nbytes:,}, build {build:.1f} s", flush=True)
    return row


def bench_degree(degree: int, train_docs, test_refs, args) -> Dict:
    model_dir = args.model_dir / f"dep_kwdlc_d{degree}" if args.model_dir else None
    nlp = train_parser(train_docs, degree, args.C, model_dir, args.merge_duplicates)
    pipe = nlp.get_pipe("pke_dependency")
    stats = dict(pipe.cfg["stats"])
    r = args.repeats
    rows = [bench_form(pipe, test_refs, "pkb"), bench_form(pipe, test_refs, "pki", repeats=r)]
    for sigma in args.sigmas:
        rows.append(bench_form(pipe, test_refs, "pke", sigma, 1, r))
    for xi in args.xis:
        if xi != 1 or args.xi_sigma not in args.sigmas:
            rows.append(bench_form(pipe, test_refs, "pke", args.xi_sigma, xi, r))
    if args.double_array:
        rows.append(bench_double_array(pipe, test_refs, args.xi_sigma, 1, r))
    base = rows[0]
    base_heads = base["heads"]
    for row in rows:
        row["speedup_classifier"] = base["classifier_seconds"] / max(row["classifier_seconds"], 1e-12)
        row["speedup_parse"] = base["parse_seconds"] / max(row["parse_seconds"], 1e-12)
        row["delta_acc_vs_pkb"] = row["dep_acc"] - base["dep_acc"]
        row["same_heads_as_pkb"] = sum(a == b for a, b in zip(row.pop("heads"), base_heads)) / len(test_refs)
    return {"degree": degree, "svm": stats, "rows": rows, "nlp": nlp}


def pick_chosen(rows: List[Dict], tolerance: float) -> Dict:
    """The fastest PKE row within `tolerance` accuracy points of PKB."""
    pkb = rows[0]
    ok = [r for r in rows if r["kind"] == "pke" and abs(r["dep_acc"] - pkb["dep_acc"]) <= tolerance]
    return min(ok, key=lambda r: r["classifier_seconds"]) if ok else None


def predicted_bunsetsu(chunker_dir: Path, nlp, test_refs) -> Dict:
    chunker = spacy.load(chunker_dir)
    docs = [make_predicted(ref, predicted_bunsetsu=False) for ref in test_refs]
    # the chunker's own vocab: Docs of another vocab can't pass its pipeline
    docs = [Doc(chunker.vocab).from_bytes(d.to_bytes()) for d in docs]
    start = time.perf_counter()
    docs = list(chunker.pipe(docs))
    chunk_seconds = time.perf_counter() - start
    pipe = nlp.get_pipe("pke_dependency")
    start = time.perf_counter()
    docs = list(pipe.pipe(docs))
    parse_seconds = time.perf_counter() - start
    scores = score_bunsetsu_deps([Example(d, r) for d, r in zip(docs, test_refs)])
    return {"dep_acc": 100 * scores["bunsetsu_dep_acc"], "sent_acc": 100 * scores["bunsetsu_sent_acc"],
            "bunsetsu_f": 100 * scores["bunsetsu_seg_f"], "chunk_seconds": chunk_seconds,
            "parse_seconds": parse_seconds, "sentences": len(test_refs)}


def markdown(report: Dict) -> str:
    lines = ["## Japanese bunsetsu dependencies: pke_dependency with PKB / PKI / PKE", "",
             f"`{report['command']}`, one run, {report['machine']['cores']} cores "
             f"({report['machine']['cpu']}), commit {report['machine']['git_commit']}. "
             f"KWDLC train ({report['n_train']} sentences) -> test ({report['n_test']} sentences), "
             "gold bunsetsu and JUMAN POS. Accuracy: bunsetsu dependency accuracy without each "
             "sentence's last bunsetsu; sentence accuracy over all sentences. Times: seconds per "
             "test sentence inside the kernel classifier (speedup vs PKB on this time; measured on "
             "the Python path, which calls the classifier once per cascade round), and for the "
             "whole parse (`predict`: features, cascaded chunking, classifier) on the Cython path "
             "(the default) and on the Python reference path (the double-array row: Python path "
             "only).", ""]
    for deg in report["degrees"]:
        svm = deg["svm"]
        lines += [f"### d = {deg['degree']}", "",
                  f"SVM: {svm['n_decisions']:,} training decisions, {svm['n_features']:,} features, "
                  f"{svm['n_sv']:,} support vectors, libsvm training {svm['svm_seconds']:.0f} s.", "",
                  "| form | sigma | xi | classifier s/sent | speedup | parse s/sent | parse s/sent, Python path "
                  "| dep acc | sent acc | |Omega| | bytes | build s |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in deg["rows"]:
            lines.append(
                f"| {r['kind'].upper()} | {fmt(r['sigma'], 'g')} | {fmt(r['xi'], 'd')} "
                f"| {r['classifier_s_per_sent']:.2e} | {r['speedup_classifier']:.1f}x "
                f"| {r['parse_s_per_sent']:.2e} | {r['parse_python_s_per_sent']:.2e} "
                f"| {r['dep_acc']:.2f} | {r['sent_acc']:.2f} "
                f"| {fmt(r['omega'], ',d')} | {r['bytes']:,} | {r['build_seconds']:.1f} |")
        same = all(r.get("paths_same_heads", True) for r in deg["rows"])
        lines += ["", "Cython and Python paths: " + ("the same heads in every row." if same else
                                                      "DIFFERENT heads in some rows (a bug).")]
        ch = deg.get("chosen")
        if ch:
            lines += ["", f"Chosen PKE (fastest within {report['tolerance']} points of PKB): sigma "
                      f"{ch['sigma']:g}, xi {ch['xi']}: {ch['speedup_classifier']:.1f}x PKB, accuracy "
                      f"{ch['dep_acc']:.2f} vs {deg['rows'][0]['dep_acc']:.2f}."]
        lines.append("")
    extra = report.get("extra", {})
    if extra:
        lines += ["### Other test sets (d = {}, {})".format(extra.get("degree"), extra.get("form")), "",
                  "| test | bunsetsu | dep acc | sent acc | bunsetsu F1 |", "|---|---|---|---|---|"]
        for name, r in extra.get("results", {}).items():
            lines.append(f"| {name} | {r.get('bunsetsu', 'gold')} | {r['dep_acc']:.2f} | {r['sent_acc']:.2f} "
                         f"| {fmt(r.get('bunsetsu_f'))} |")
        lines.append("")
    g = report.get("ginza")
    if g:
        lines += [f"GiNZA {g.get('versions', {}).get('ginza', '?')} (ja_ginza, its own tokenizer and "
                  f"bunsetsu, scored on character offsets by benchmarks/ginza.py) on the same KWDLC "
                  f"test text: dependency accuracy {g['dep_acc']:.2f}, sentence accuracy "
                  f"{g['sent_acc']:.2f}, {g['sent_per_s']:.1f} sentences/s for its whole pipeline.", ""]
    return "\n".join(lines) + "\n"


def ginza_summary(path: Path) -> Optional[Dict]:
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf8"))
    acc = data["accuracy"]["head_final"]
    return {"dep_acc": 100 * acc["dependency_accuracy"], "sent_acc": 100 * acc["sentence_accuracy"],
            "dep_acc_given_boundaries": 100 * acc["attachment_accuracy_given_boundaries"],
            "sent_per_s": data["speed"]["pipe_sentences_per_second"], "versions": data.get("versions", {})}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--degrees", default="2,3")
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--sigmas", default=",".join(str(s) for s in SIGMAS))
    p.add_argument("--xis", default=",".join(str(x) for x in XIS))
    p.add_argument("--xi-sigma", type=float, default=0.001, help="sigma of the xi sweep")
    p.add_argument("--repeats", type=int, default=3, help="timing passes per form (PKB: 1), best kept")
    p.add_argument("--tolerance", type=float, default=0.05, help="accuracy points for the chosen PKE")
    p.add_argument("--limit", type=int, default=0, help="training sentences (0 = all)")
    p.add_argument("--test-limit", type=int, default=0)
    p.add_argument("--model-dir", type=Path, default=REPO / "training",
                   help="trained parsers are saved / reused as DIR/dep_kwdlc_d{d}")
    p.add_argument("--chunker", type=Path, default=REPO / "training" / "bunsetsu_kwdlc" / "model-last")
    p.add_argument("--ginza-json", type=Path, default=REPO / "metrics" / "bench_ginza.json")
    p.add_argument("--no-double-array", dest="double_array", action="store_false",
                   help="skip the double-array trie row (PKE at --xi-sigma, xi 1)")
    p.add_argument("--merge-duplicates", action="store_true",
                   help="libsvm trains identical decisions once, weighted (benchmarks.dependency_merge compares)")
    p.add_argument("--train-only", action="store_true",
                   help="train (or keep) the parsers in --model-dir and stop: lets the degrees train in parallel")
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / "bench_dependency.json")
    p.add_argument("--out-md", type=Path, default=BENCHMARKS_MD)
    args = p.parse_args(argv)
    args.degrees = [int(d) for d in args.degrees.split(",") if d]
    args.sigmas = [float(s) for s in args.sigmas.split(",") if s]
    args.xis = [int(x) for x in args.xis.split(",") if x]
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    command = "python -m benchmarks.dependency " + " ".join(argv if argv is not None else sys.argv[1:])
    kw = args.data / "kwdlc"
    vocab = spacy.blank("xx").vocab
    train_docs = read_docs(kw / "train.knp", vocab, args.limit)
    if args.train_only:
        for degree in args.degrees:
            train_parser(train_docs, degree, args.C, args.model_dir / f"dep_kwdlc_d{degree}",
                         args.merge_duplicates)
        return 0
    test_refs = read_docs(kw / "test.knp", vocab, args.test_limit)
    report = {"command": command.strip(), "machine": machine_info(), "n_train": len(train_docs),
              "n_test": len(test_refs), "tolerance": args.tolerance, "degrees": []}
    chosen_nlp, chosen = None, None
    for degree in args.degrees:
        deg = bench_degree(degree, train_docs, test_refs, args)
        nlp = deg.pop("nlp")
        deg["chosen"] = pick_chosen(deg["rows"], args.tolerance)
        report["degrees"].append(deg)
        if deg["chosen"] is not None:
            chosen_nlp, chosen = nlp, dict(deg["chosen"], degree=degree)
    if chosen is not None:
        pipe = chosen_nlp.get_pipe("pke_dependency")
        pipe.set_classifier("pke", sigma=chosen["sigma"], xi=chosen["xi"])
        extra = {"degree": chosen["degree"], "form": f"PKE sigma {chosen['sigma']:g} xi {chosen['xi']}",
                 "results": {}}
        wiki = args.data / "ku_wikipedia_annotated" / "test.knp"
        if wiki.exists():
            refs = read_docs(wiki, vocab, args.test_limit)
            r = parse_all(pipe, refs, args.repeats)
            r.pop("heads")
            extra["results"]["KU Wikipedia test"] = dict(r, bunsetsu="gold")
        if args.chunker and (args.chunker / "config.cfg").exists():
            r = predicted_bunsetsu(args.chunker, chosen_nlp, test_refs)
            extra["results"]["KWDLC test"] = dict(r, bunsetsu="predicted (adf_tagger)")
        report["extra"] = extra
    report["ginza"] = ginza_summary(args.ginza_json)
    publish(report, args.out_json, args.out_md, NAME, markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
