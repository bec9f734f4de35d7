"""Kudo & Matsumoto 2003 reproduced for all three of its tasks (issue 13):
Tables 1-6 for English base-NP chunking (EBC, `pke_tagger`), Japanese word
segmentation (JWS, `pke_segmenter`) and Japanese dependency parsing (JDP,
`pke_dependency`), the paper's figures beside ours, and the kernel models
side by side with the project's ADF-trained CRFs on the same data.

    python -m benchmarks.reproduce_kernels            # spacy project run reproduce-kernels
    python -m benchmarks.reproduce_kernels --quick    # smoke run on small subsets (minutes)

Each task runs in its own child process (`harness.Child`: wall time and its
own peak RSS); two workers run side by side, one per core, taking the
tasks longest first: JDP (libsvm, d = 3, all of KWDLC train: about an hour
unless the model is reused) on one, JWS, EBC and the CRF side-by-side runs
on the other. Trained models are kept under
``--model-dir`` and reused by a rerun with the same settings (each task says
whether it trained or reused, and the training seconds it reports are those
of the run that trained). Output: ``metrics/reproduction_kudo2003.json`` and
``docs/reproduction_kudo2003.md``.

Data: EBC on CoNLL-2000 (WSJ 15-18 train, 20 test; the paper: Ramshaw and
Marcus' base NPs of the same sections); JWS and JDP on KWDLC train -> test
(the paper: the Kyoto University Text Corpus, which is not available here).
"""
import argparse
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

from benchmarks.harness import DATA, REPO, fmt, machine_info, module_command, run_child, sv_summary, write_json

NAME = "reproduction_kudo2003"
OUT_JSON = REPO / "metrics" / f"{NAME}.json"
OUT_MD = REPO / "docs" / f"{NAME}.md"
SIGMAS = (0.01, 0.005, 0.001, 0.0005)
XIS = (1, 2, 3)
# the sigma the paper fixes for its frequency-pruning tables (5: JWS, 6: JDP)
XI_SIGMA = {"jws": 0.005, "jdp": 0.0005}
TASKS = ("ebc", "jws", "jdp")
# child tasks: the three of the paper and the CRFs beside them
CHILD_TASKS = TASKS + ("crf",)
TITLES = {"ebc": "English base-NP chunking (EBC)", "jws": "Japanese word segmentation (JWS)",
          "jdp": "Japanese dependency parsing (JDP)"}
ACCURACY = {"ebc": "F1", "jws": "boundary acc.", "jdp": "dep. acc."}

# The paper's figures (Kudo & Matsumoto 2003, Tables 1-6): time in seconds per
# sentence (classifier), speed-up over PKB, accuracy (%), |Omega| in thousands.
PAPER: Dict[str, Any] = {
    "table1": {
        "ebc": {"n_examples": 135692, "n_sv": 11690, "n_pos_sv": 5637, "n_neg_sv": 6053,
                "n_features": 17470, "avg_len": 11.90, "avg_list": 7.74},
        "jws": {"n_examples": 265413, "n_sv": 57672, "n_pos_sv": 28440, "n_neg_sv": 29232,
                "n_features": 11643, "avg_len": 11.73, "avg_list": 58.13},
        "jdp": {"n_examples": 110355, "n_sv": 34996, "n_pos_sv": 17528, "n_neg_sv": 17468,
                "n_features": 28157, "avg_len": 17.63, "avg_list": 21.92},
    },
    # (form, sigma, xi, seconds per sentence, speed-up, accuracy, |Omega| / 1000)
    "ebc": [("pke", 0.01, 1, 0.0016, 105.2, 93.79, 518), ("pke", 0.005, 1, 0.0016, 101.3, 93.85, 668),
            ("pke", 0.001, 1, 0.0017, 97.7, 93.84, 858), ("pke", 0.0005, 1, 0.0017, 96.8, 93.84, 889),
            ("pki", None, None, 0.020, 8.3, 93.84, None), ("pkb", None, None, 0.164, 1.0, 93.84, None)],
    "jws": [("pke", 0.01, 1, 0.0024, 358.2, 97.93, 1228), ("pke", 0.005, 1, 0.0028, 300.1, 97.95, 2327),
            ("pke", 0.001, 1, 0.0034, 242.6, 97.94, 4392), ("pke", 0.0005, 1, 0.0035, 238.8, 97.94, 4820),
            ("pki", None, None, 0.4989, 1.7, 97.94, None), ("pkb", None, None, 0.8535, 1.0, 97.94, None),
            ("pke", 0.005, 2, 0.0025, 337.3, 97.83, 954), ("pke", 0.005, 3, 0.0023, 367.0, 97.83, 591)],
    "jdp": [("pke", 0.01, 1, 0.0042, 66.8, 88.91, 73), ("pke", 0.005, 1, 0.0060, 47.8, 89.05, 1924),
            ("pke", 0.001, 1, 0.0086, 33.3, 89.26, 6686), ("pke", 0.0005, 1, 0.0090, 31.8, 89.29, 8262),
            ("pki", None, None, 0.0226, 12.6, 89.29, None), ("pkb", None, None, 0.2848, 1.0, 89.29, None),
            ("pke", 0.0005, 2, 0.0072, 39.3, 89.34, 2450), ("pke", 0.0005, 3, 0.0068, 41.8, 89.31, 1360)],
}


def row(form: str, sigma: Optional[float], xi: Optional[int], s_per_sent: float, accuracy: float,
        omega: Optional[int], **extra) -> Dict[str, Any]:
    """One classifier-form row of Tables 2-6 (speed-up filled in later)."""
    return dict({"form": form, "sigma": sigma, "xi": xi, "s_per_sent": s_per_sent, "accuracy": accuracy,
                 "omega": omega}, **extra)


def add_speedups(rows: List[Dict[str, Any]]) -> None:
    """Speed-up of each row's classifier time over PKB's (the row with form "pkb")."""
    base = next((r for r in rows if r["form"] == "pkb"), None)
    for r in rows:
        r["speedup"] = (base["s_per_sent"] / r["s_per_sent"]
                        if base is not None and r["s_per_sent"] > 0 else None)
        r["delta_vs_pkb"] = r["accuracy"] - base["accuracy"] if base is not None else None


# ------------------------------------------------------------ JDP (in a child)

def task_jdp(args) -> Dict[str, Any]:
    """pke_dependency with libsvm, d = 3, C = 1, on KWDLC train; every form
    rebuilt from the one model's support vectors; gold bunsetsu on test."""
    import spacy

    from benchmarks.dependency import bench_form, read_docs, train_parser

    kw = args.data / "kwdlc"
    vocab = spacy.blank("xx").vocab
    train_docs = read_docs(kw / "train.knp", vocab, args.limit)
    test_refs = read_docs(kw / "test.knp", vocab, args.test_limit)
    model_dir = args.model_dir / "jdp_d3"
    reused = (model_dir / "config.cfg").exists()
    nlp = train_parser(train_docs, 3, 1.0, model_dir)
    pipe = nlp.get_pipe("pke_dependency")
    stats = pipe.cfg["stats"]
    table1 = dict(sv_summary(pipe.plain_model.support_vectors), n_examples=stats["n_decisions"],
                  n_features=stats["n_features"])
    forms = ([("pkb", 0.0, 1), ("pki", 0.0, 1)] + [("pke", s, 1) for s in SIGMAS]
             + [("pke", XI_SIGMA["jdp"], xi) for xi in XIS if xi != 1])
    rows = []
    for kind, sigma, xi in forms:
        r = bench_form(pipe, test_refs, kind, sigma, xi, repeats=1 if kind == "pkb" else args.repeats)
        r.pop("heads")
        rows.append(row(kind, r["sigma"], r["xi"], r["classifier_s_per_sent"], r["dep_acc"], r["omega"],
                        whole_s_per_sent=r["parse_s_per_sent"], sent_acc=r["sent_acc"],
                        n_decisions=r["n_decisions"], bytes=r["bytes"]))
    add_speedups(rows)
    return {"n_train_sentences": len(train_docs), "n_test_sentences": len(test_refs),
            "model": f"libsvm, d = 3, C = 1, {len(train_docs):,} KWDLC training sentences", "reused_model": reused,
            "train_seconds": stats["svm_seconds"], "table1": table1, "rows": rows,
            "accuracy": "bunsetsu dependency accuracy (bunsetsu_dep_acc) on KWDLC test, gold bunsetsu"}


# ------------------------------------------------------------ side by side with the CRFs

# `spacy train` configs run as the user runs them (benchmarks.training_process
# .bench_config: the whole process, its peak RSS, nlp.pipe speed); the dev
# corpus is the test file, so the in-training evaluation is the test score.
SIDE_BY_SIDE: Dict[str, Dict[str, Any]] = {
    "ebc": {"title": "pke_tagger (EBC), CoNLL-2000 -> test", "config": "configs/ebc_conll2000.cfg",
            "paths": {"train": "conll2000/train.txt", "dev": "conll2000/test.txt"},
            "unit": "tokens", "target": None, "pair": "np"},
    "np": {"title": "adf_tagger base NP (CRF), CoNLL-2000 -> test", "config": "configs/chunking_np.cfg",
           "paths": {"train": "conll2000/train.txt", "dev": "conll2000/test.txt"},
           "unit": "tokens", "target": None},
    "jws": {"title": "pke_segmenter (JWS), KWDLC -> test", "config": "configs/jws_kwdlc.cfg",
            "paths": {"train": "kwdlc/train.knp", "dev": "kwdlc/test.knp"},
            "unit": "chars", "target": None, "pair": "kwdlc_seg"},
    "kwdlc_seg": {"title": "adf_segmenter (CRF), KWDLC -> test", "config": "configs/seg_ja_kwdlc.cfg",
                  "paths": {"train": "kwdlc/train.knp", "dev": "kwdlc/test.knp"},
                  "unit": "chars", "target": None},
}


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def test_scores(model_dir: Path, key: str, data: Path, test_limit: int) -> Dict[str, float]:
    """All scores of `model_dir` on the config's dev corpus (the test file)."""
    import spacy
    from spacy.util import load_config, resolve_dot_names

    from benchmarks.training_process import config_overrides

    nlp = spacy.load(model_dir)
    cfg = load_config(REPO / SIDE_BY_SIDE[key]["config"], interpolate=False,
                      overrides=config_overrides(key, data, None, SIDE_BY_SIDE))
    if test_limit:
        cfg["corpora"]["dev"]["limit"] = test_limit
    dev = resolve_dot_names(cfg.interpolate(), ["corpora.dev"])[0]
    scores = nlp.evaluate(list(dev(nlp)))
    return {k: v for k, v in scores.items() if isinstance(v, (int, float)) and not k.startswith("speed")}


def spacy_train(key: str, args, work: Path) -> Dict[str, Any]:
    """One config trained by `spacy train` in a child: process figures,
    test scores, nlp.pipe speed and model size."""
    from benchmarks.training_process import bench_config

    opts = argparse.Namespace(data=args.data, limit=args.limit, dev_limit=args.test_limit, epochs=0,
                              repeats=args.repeats)
    r = bench_config(key, opts, work, None, SIDE_BY_SIDE)
    model = Path(r["model_dir"])
    return {"title": r["title"], "config": r["config"], "command": r["command"],
            "train_wall_seconds": r["child_wall_seconds"], "train_peak_rss_mb": r["peak_rss_mb"],
            "phases": r["process"]["phases"], "unit": r["speed"]["unit"],
            "per_second": r["speed"]["per_second"], "model_bytes": dir_bytes(model),
            "scores": test_scores(model, key, args.data, args.test_limit), "model_dir": str(model)}


def task_crf(args) -> Dict[str, Any]:
    """The ADF-trained CRFs the kernel models are compared with."""
    work = args.model_dir / "crf"
    return {key: spacy_train(key, args, work) for key in ("np", "kwdlc_seg")}


# ------------------------------------------------------------ EBC (in a child)

def task_ebc(args) -> Dict[str, Any]:
    """pke_tagger on CoNLL-2000 base NPs: `spacy train configs/ebc_conll2000.cfg`
    (libsvm, d = 2, one binary SVM per tag pair) gives the side-by-side
    figures, and benchmarks.ebc rebuilds every form from that model."""
    from benchmarks import ebc

    work = args.model_dir / "ebc"
    side = spacy_train("ebc", args, work)
    rep = ebc.run(args.data / "conll2000", Path(side["model_dir"]), repeats=args.repeats, sigmas=SIGMAS,
                  out_json=None, test_limit=args.test_limit)
    t1 = rep["table1"]
    rows = [row(r["kind"], r["sigma"], 1 if r["kind"] == "pke" else None, r["classifier_s_per_sent"], r["f1"],
                r["omega"], whole_s_per_sent=r["tagging_s_per_sent"], bytes=r["bytes"]) for r in rep["rows"]]
    add_speedups(rows)
    return {"n_test_sentences": rep["n_test_sentences"],
            "model": f"libsvm, d = 2, C = 1, {t1['n_pairs']} pairwise SVMs over the tags {rep['classes']} "
                     "(Table 1: averages over the pairs, as in the paper), trained by `spacy train`",
            "reused_model": False, "train_seconds": side["train_wall_seconds"],
            "accuracy": "base-NP F1 on CoNLL-2000 test (WSJ 20)",
            "table1": {"n_examples": t1["n_examples"], "n_sv": t1["n_sv"], "n_pos_sv": t1["n_pos_sv"],
                       "n_neg_sv": t1["n_neg_sv"], "n_features": t1["sv_features"], "avg_len": t1["avg_sv_len"],
                       "avg_list": t1["B"]},
            "per_pair": t1["per_pair"], "pipe_speed_pke_0.005": rep["pipe_speed_pke_0.005"],
            "classifier_time": rep["classifier_time"], "rows": rows, "spacy_train": side}


# ------------------------------------------------------------ JWS (in a child)

def _jws_rows(part: Dict[str, Any]) -> List[Dict[str, Any]]:
    rows = [row(r["kind"], r["sigma"], r["xi"], r["classifier_s_per_sent"], r["boundary_acc"], r["omega"],
                bytes=r["bytes"]) for r in part["table3"]]
    rows += [row(r["kind"], r["sigma"], r["xi"], r["classifier_s_per_sent"], r["boundary_acc"], r["omega"],
                 bytes=r["bytes"]) for r in part["table5"] if r["xi"] != 1]
    add_speedups(rows)
    return rows


def task_jws(args) -> Dict[str, Any]:
    """pke_segmenter on KWDLC: `spacy train configs/jws_kwdlc.cfg` (primal,
    all of KWDLC train) for the side-by-side figures, and benchmarks.jws:
    libsvm on the largest prefix of KWDLC train that fits its time budget
    (PKB, PKI and PKE rows and Table 1), the primal trainer on all of it
    (the full-size PKE rows; no support vectors, so no PKB / PKI)."""
    from benchmarks import jws

    work = args.model_dir / "jws"
    side = spacy_train("jws", args, work / "spacy_train")
    sizes = (100, 200) if args.quick else jws.LIBSVM_SIZES
    rep = jws.run(args.data, work, libsvm_sizes=sizes, libsvm_limit=max(sizes), test_limit=args.test_limit,
                  repeats=args.repeats, sigmas=SIGMAS, xis=XIS, xi_sigma=XI_SIGMA["jws"], primal=not args.quick)
    lib = rep["libsvm"]
    t1 = lib["table1"]
    seg_model = f"libsvm, d = 3, C = 1, the first {lib['size']:,} of {rep['n_train']:,} KWDLC training sentences"
    out = {"n_train_sentences": rep["n_train"], "n_test_sentences": rep["n_test"],
           "model": seg_model + " (libsvm on all of them would take hours: "
           + ", ".join(f"{t['sentences']:,} sentences {t['seconds']:,.0f} s" for t in lib["timings"]) + ")",
           "reused_model": (any(t.get("reused") for t in lib["timings"])
                            or rep.get("primal", {}).get("reused", False)),
           "train_seconds": lib["timings"][-1]["seconds"],
           "accuracy": "boundary accuracy over the test gaps inside whitespace-free runs",
           "table1": {"n_examples": t1["n_examples"], "n_sv": t1["n_sv"], "n_pos_sv": t1["n_pos_sv"],
                      "n_neg_sv": t1["n_neg_sv"], "n_features": t1["n_features"],
                      "avg_len": t1["avg_sv_features"], "avg_list": t1["B"]},
           "rows": _jws_rows(lib), "libsvm_timings": lib["timings"], "spacy_train": side}
    if "primal" in rep:
        p = rep["primal"]
        out["full_size"] = {
            "model": f"primal trainer (liblinear on the subset features), d = 3, C = 1, all {rep['n_train']:,} "
                     f"training sentences ({p['table1']['n_examples']:,} gaps); PKE only: a primal model has no "
                     "support vectors, so no PKB / PKI rows and no speed-up (compare the times with the "
                     "libsvm rows above)",
            "train_seconds": p["train_seconds"], "rows": _jws_rows(p), "segmentation": p["segmentation"],
            "model_bytes": p["model_bytes"]}
    return out


TASK_FUNCTIONS: Dict[str, Callable[[Any], Dict[str, Any]]] = {"ebc": task_ebc, "jws": task_jws, "jdp": task_jdp,
                                                              "crf": task_crf}


# ------------------------------------------------------------ report

def _ms(seconds: Optional[float]) -> str:
    return fmt(None if seconds is None else seconds * 1e3, ".3f")


def _form(kind: str, sigma, xi) -> str:
    if kind != "pke":
        return kind.upper()
    return f"PKE sigma {sigma:g}" + (f", xi {xi}" if xi not in (None, 1) else "")


def table1_markdown(report: Dict[str, Any]) -> List[str]:
    keys = [("n_examples", "# of examples", ",.0f"), ("n_sv", "# of SVs", ",.0f"),
            ("n_pos_sv", "# of positive SVs", ",.0f"), ("n_neg_sv", "# of negative SVs", ",.0f"),
            ("n_features", "|F| (features)", ",.0f"), ("avg_len", "average |X_j|", ".2f"),
            ("avg_list", "B (average |h(i)|)", ".2f")]
    present = [t for t in TASKS if t in report["tasks"]]
    head = "| | " + " | ".join(f"{t.upper()} ours | {t.upper()} paper" for t in present) + " |"
    lines = ["## Table 1: the trained SVMs", "", head, "|---|" + "---|---|" * len(present)]
    for key, label, spec in keys:
        cells = []
        for t in present:
            ours = report["tasks"][t].get("table1", {}).get(key)
            cells += [fmt(ours, spec), fmt(PAPER["table1"][t][key], spec)]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines + [""]


def rows_markdown(task: str, rows: List[Dict[str, Any]]) -> List[str]:
    """Our rows of Tables 2-6 with the paper's row of the same form beside each."""
    paper = {(k, s, x): (t, sp, a, o) for k, s, x, t, sp, a, o in PAPER[task]}
    lines = ["| form | ms / sentence | speed-up | " + ACCURACY[task] + " | |Omega| (x1000) "
             "| paper: ms / sentence | speed-up | " + ACCURACY[task] + " | |Omega| (x1000) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        key = (r["form"], r["sigma"] if r["form"] == "pke" else None, r["xi"] if r["form"] == "pke" else None)
        p = paper.get(key)
        omega = None if r["omega"] is None else r["omega"] / 1000
        lines.append(
            f"| {_form(r['form'], r['sigma'], r['xi'])} | {_ms(r['s_per_sent'])} | {fmt(r.get('speedup'), '.1f')} "
            f"| {fmt(r['accuracy'])} | {fmt(omega, ',.1f', '')} | "
            + (f"{_ms(p[0])} | {fmt(p[1], '.1f')} | {fmt(p[2])} | {fmt(p[3], ',.0f', '')} |" if p
               else "| | | |"))
    return lines + [""]


def task_markdown(task: str, result: Dict[str, Any]) -> List[str]:
    lines = [f"## {TITLES[task]}", ""]
    if "error" in result:
        return lines + [f"Not run: {result['error']}", ""]
    reuse = ("model reused from an earlier run of this command" if result.get("reused_model")
             else "trained in this run")
    lines += [f"{result.get('model', '')}; {reuse} (training {fmt(result.get('train_seconds'), ',.0f')} s). "
              f"Accuracy: {result.get('accuracy', '')}.", ""]
    lines += rows_markdown(task, result["rows"])
    full = result.get("full_size")
    if full:
        lines += [f"Full size: {full['model']}; training {fmt(full.get('train_seconds'), ',.0f')} s.", ""]
        lines += rows_markdown(task, full["rows"])
        seg = full.get("segmentation") or {}
        if seg:
            line = (f"Whole segmentation of the test texts with this model ({seg.get('form', '')}): "
                    f"{fmt(seg['chars_per_s'], ',.0f')} characters/s through `nlp.pipe` "
                    "(CharTokenizer + pke_segmenter)")
            tok = seg.get("tokenizer_form")
            if tok:
                line += (f", {fmt(tok['chars_per_s'], ',.0f')} characters/s as the "
                         "`spacy_adf.KernelSegmenter.v1` tokenizer (same Docs: "
                         f"{'yes' if tok['identical_docs'] else 'NO'})")
            lines += [line + f"; word F {fmt(seg['token_f'], '.2f')}, boundary accuracy "
                      f"{fmt(seg['boundary_acc'], '.2f')}.", ""]
    return lines


def side_by_side_markdown(report: Dict[str, Any]) -> List[str]:
    """Kernel models and CRFs trained by `spacy train` on the same data."""
    runs = dict(report.get("crf") or {})
    for task in ("ebc", "jws"):
        run = (report["tasks"].get(task) or {}).get("spacy_train")
        if run:
            runs[task] = run
    if not runs:
        return []
    lines = ["## Side by side with the ADF-trained CRFs", "",
             "Each model trained by `spacy train` with its shipped config in a child process (wall time and "
             "peak RSS of the whole process), the test file as dev; speed through `nlp.pipe` on the test "
             "set; model size on disk.", "",
             "| model | scores on test | training s | peak RSS MB | speed | model MB |", "|---|---|---|---|---|---|"]
    for key in ("ebc", "np", "jws", "kwdlc_seg"):
        r = runs.get(key)
        if r is None:
            continue
        scores = ", ".join(f"{k} {100 * v:.2f}" for k, v in r["scores"].items()
                           if k.endswith(("_f", "_acc", "token_f", "boundary_acc")))
        lines.append(f"| {r['title']} | {scores} | {fmt(r['train_wall_seconds'], ',.0f')} "
                     f"| {fmt(r['train_peak_rss_mb'], ',.0f')} | {fmt(r['per_second'], ',.0f')} {r['unit']}/s "
                     f"| {fmt(r['model_bytes'] / 1e6, ',.1f')} |")
    return lines + [""]


def _reuse_note(report: Dict[str, Any]) -> str:
    reused = [t.upper() for t, r in report["tasks"].items() if r.get("reused_model")]
    if not reused:
        return "every model trained in this run"
    return "the " + " and ".join(reused) + " models reused from an earlier run, the others trained in this one"


def markdown(report: Dict[str, Any]) -> str:
    lines = ["# Kudo & Matsumoto 2003 reproduced: PKB, PKI and PKE on three tasks", "",
             f"Generated by `{report['command']}` ({report['machine']['cores']} cores, commit "
             f"{report['machine']['git_commit']}, {fmt(report['wall_seconds'] / 60, '.0f')} minutes, "
             f"{_reuse_note(report)}). "
             "Times are the classifier's share of the work per test sentence; the paper ran C++ on a "
             "2.4 GHz Xeon, so compare speed-ups, not times.", ""]
    if report["tasks"]:
        lines += table1_markdown(report)
    for task in TASKS:
        if task in report["tasks"]:
            lines += task_markdown(task, report["tasks"][task])
    lines += side_by_side_markdown(report)
    return "\n".join(lines)


# ------------------------------------------------------------ driver

def run_task_child(task: str, args, work: Path) -> Dict[str, Any]:
    out = work / f"{task}.json"
    cmd = module_command("benchmarks.reproduce_kernels", "--task", task, "--task-out", out,
                         "--data", args.data, "--model-dir", args.model_dir, "--limit", args.limit,
                         "--test-limit", args.test_limit, "--repeats", args.repeats)
    if args.quick:
        cmd.append("--quick")
    try:
        res = run_child(cmd, work / f"{task}.log")
    except RuntimeError as e:
        return {"error": str(e).splitlines()[0]}
    result = json.loads(out.read_text(encoding="utf8"))
    result["child"] = {"wall_seconds": res["wall_seconds"], "peak_rss_mb": res["peak_rss_mb"]}
    return result


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--model-dir", type=Path, default=REPO / "training" / "kernels")
    p.add_argument("--tasks", default=",".join(CHILD_TASKS), help="comma-separated subset of ebc,jws,jdp,crf")
    p.add_argument("--limit", type=int, default=0, help="training sentences per task (0 = all)")
    p.add_argument("--test-limit", type=int, default=0)
    p.add_argument("--repeats", type=int, default=3, help="timing passes (best of) for the fast forms")
    p.add_argument("--quick", action="store_true", help="small subsets and a scratch model dir")
    p.add_argument("--task", choices=CHILD_TASKS, help=argparse.SUPPRESS)  # a child's one task
    p.add_argument("--task-out", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--out-json", type=Path, default=OUT_JSON)
    p.add_argument("--out-md", type=Path, default=OUT_MD)
    p.add_argument("--render", action="store_true",
                   help="only write --out-md again from the report in --out-json (no run)")
    args = p.parse_args(argv)
    if args.quick:
        args.limit, args.test_limit, args.repeats = args.limit or 300, args.test_limit or 200, 1
        args.model_dir = Path("/tmp") / "reproduce_kernels_quick"
        if args.out_json == OUT_JSON:
            args.out_json = args.model_dir / f"{NAME}.json"
        if args.out_md == OUT_MD:
            args.out_md = args.model_dir / f"{NAME}.md"
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.render:
        report = json.loads(args.out_json.read_text(encoding="utf8"))
        args.out_md.write_text(markdown(report) + "\n", encoding="utf8")
        return 0
    if args.task:
        write_json(args.task_out, TASK_FUNCTIONS[args.task](args))
        return 0
    command = "python -m benchmarks.reproduce_kernels " + " ".join(argv if argv is not None else sys.argv[1:])
    tasks = [t for t in args.tasks.split(",") if t]
    unknown = set(tasks) - set(CHILD_TASKS)
    if unknown:
        raise SystemExit(f"unknown task(s) {sorted(unknown)}: choose from {list(CHILD_TASKS)}")
    work = args.model_dir / "runs"
    work.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    results: Dict[str, Dict[str, Any]] = {}
    # two workers, one per core, take the tasks longest first (a fresh run:
    # JDP's libsvm about 65 min; JWS about 40, EBC about 25, the CRFs 1), so
    # one core runs JDP while the other runs the rest, and a rerun that
    # reuses a model rebalances by itself
    pending = [t for t in ("jdp", "jws", "ebc", "crf") if t in tasks]
    lock = threading.Lock()

    def drain() -> None:
        while True:
            with lock:
                if not pending:
                    return
                task = pending.pop(0)
            print(f"[{NAME}] {task} ... ({time.perf_counter() - start:.0f} s)", flush=True)
            results[task] = run_task_child(task, args, work)
            print(f"[{NAME}] {task} done ({time.perf_counter() - start:.0f} s)", flush=True)

    threads = [threading.Thread(target=drain) for _ in range(min(2, len(pending)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    report = {"command": command.strip(), "machine": machine_info(), "wall_seconds": time.perf_counter() - start,
              "paper": PAPER, "tasks": {t: results[t] for t in TASKS if t in results},
              "crf": results.get("crf")}
    write_json(args.out_json, report)
    args.out_md.parent.mkdir(parents=True, exist_ok=True)
    args.out_md.write_text(markdown(report) + "\n", encoding="utf8")
    print(markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
