"""Benchmark CoNLL-2000 chunking: python-crfsuite against adf_tagger.

One run trains and evaluates, on this machine and one job at a time:

* ``crfsuite-lbfgs`` and ``crfsuite-l2sgd``: python-crfsuite with the ADF
  paper's chunking templates (``spacy_adf.features.presets.chunking_templates``)
  as node features only (crfsuite adds plain label transitions). An attribute
  is the template name plus its cell values, e.g. ``w[-1]|w[0]=the|pound``;
  positions outside the sentence get one placeholder per offset
  (``__BOS-2__``, ``__EOS+1__``). L-BFGS uses ``c2=1.0, max_iterations=1000``,
  L2SGD ``c2=1.0``; everything else is CRFsuite's default.
* ``adf``: adf_tagger trained by ``python -m spacy train`` with
  ``configs/chunking_np.cfg`` (base-NP) or ``configs/chunking.cfg`` (all
  phrase types), evaluated once per epoch on the test file
  (``--training.eval_frequency`` = steps per epoch, from the config's batch
  size; ADF still steps once per sentence inside each spaCy batch). Training runs a fixed number of epochs; the
  reported model is ``model-last``. Its templates are whatever the config
  names; they are recorded per task and the report warns when they differ
  from the crfsuite templates.

Tasks: ``np`` (base-NP: every non-NP chunk becomes O) and ``all`` (all
phrase types).

Figures per system and task (all P/R/F in percent):

* F1 with conlleval semantics: exact (type, start, end) matches, spans from
  ``spacy_adf.tags.iob.iob_to_spans`` for crfsuite tags and from
  ``doc.spans["chunks"]`` for adf_tagger, whose ``model-last`` is loaded with
  ``spacy.load`` and run over pre-tokenized test Docs carrying words and gold
  POS tags. The adf figure is cross-checked against the component's own
  spaCy scorer on the same predictions and compared with the last line of the
  training log (see "Log semantics" below).
* passes: crfsuite iterations; adf epochs, and the first logged evaluation
  that reaches the target F1 (94.5 base-NP, 94.0 all phrases) with its
  ``train_seconds`` (time to the reported score, evaluation time excluded).
* wall time: crfsuite feature extraction plus ``Trainer.append`` and
  ``Trainer.train`` separately; adf total subprocess wall time and the
  logged ``train_seconds``.
* tagging throughput (tokens/s on the test set, best of 3): crfsuite builds
  the attribute lists from word/POS lists and calls ``Tagger.tag`` per
  sentence; adf runs ``nlp.pipe(docs, batch_size=256)`` over Docs built
  beforehand. Feature extraction is timed for both, Doc construction is not.
* peak RSS of the training child process (``os.wait4`` rusage; the adf
  figure includes spaCy's own footprint).
* memory per weight: ``memory_report()`` of the loaded adf model and of a
  copy trained in-process for ~200 sentences with a fresh ADF optimizer (so
  the optimizer state exists); for crfsuite the model file size per active
  feature.
* ratios: adf time-to-target / crfsuite train time, adf tokens/s / crfsuite
  tokens/s.

Log semantics: spaCy evaluates at steps 0, N, 2N, ... (N = training
sentences), i.e. after 1, N+1, 2N+1 sentences; the record of "epoch k" is the
model after k full epochs plus one sentence. With E epochs the last record
is after (E-1) epochs, so it is not ``model-last`` (E epochs); both figures
are reported.

The repository state (HEAD plus uncommitted changes to tracked files) is
hashed at the start and the end; if it changed during the run the report says
so, since the children and the parent may then have run different code.

Output: raw figures as JSON (``--out-json``) and a Markdown section between
``<!-- bench_chunking:start -->`` and ``<!-- bench_chunking:end -->`` in
``--out-md``. Run from the repository root:

    python -m benchmarks.chunking                   # full run (minutes)
    python -m benchmarks.chunking --limit 300 --epochs-np 1 --tasks np

The module (and ``benchmarks.harness``) imports only the standard library at
top level, so the crfsuite training child (``--crfsuite-worker``) does not
carry spaCy in its RSS.
"""
import argparse
import json
import re
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from benchmarks.harness import (BENCHMARKS_MD, DATA, REPO, fmt, machine_info, markers,
                                module_command, read_jsonl, repo_state, run_child, write_json,
                                write_section)

NAME = "bench_chunking"
DEFAULT_DATA = DATA / "conll2000"
DEFAULT_JSON = REPO / "metrics" / "bench_chunking.json"
DEFAULT_MD = BENCHMARKS_MD
MD_START, MD_END = markers(NAME)
REPEATS = 3  # throughput: best of this many passes
MEMORY_SENTENCES = 200  # in-process ADF training for the optimizer-state figure
ADF_BATCH_SIZE = 256

TASKS = {
    "np": {"title": "base-NP", "config": "configs/chunking_np.cfg",
           "keep_labels": ["NP"], "target_f1": 94.5},
    "all": {"title": "all phrases", "config": "configs/chunking.cfg",
            "keep_labels": None, "target_f1": 94.0},
}
CRFSUITE_SYSTEMS = {
    "crfsuite-lbfgs": ("lbfgs", {"c2": 1.0, "max_iterations": 1000}),
    "crfsuite-l2sgd": ("l2sgd", {"c2": 1.0}),
}
SYSTEMS = [*CRFSUITE_SYSTEMS, "adf"]

Sentence = Tuple[List[str], List[str], List[str]]  # words, POS tags, chunk tags
Span = Tuple[int, int, str]


# ----------------------------------------------------------------- data


def read_conll2000(path: Path, limit: int = 0) -> List[Sentence]:
    """Sentences of a ``word POS chunk`` file; ``limit=0`` reads all."""
    sentences: List[Sentence] = []
    rows: List[List[str]] = []
    with open(path, encoding="utf8") as file_:
        for line in list(file_) + [""]:
            fields = line.split()
            if fields:
                rows.append(fields)
                continue
            if rows:
                words, tags, chunks = (list(col) for col in zip(*rows))
                sentences.append((words, tags, chunks))
                rows = []
                if limit and len(sentences) >= limit:
                    break
    return sentences


def write_conll2000(path: Path, sentences: Iterable[Sentence]) -> None:
    with open(path, "w", encoding="utf8") as file_:
        for words, tags, chunks in sentences:
            for row in zip(words, tags, chunks):
                file_.write(" ".join(row) + "\n")
            file_.write("\n")


def task_tags(chunks: Sequence[str], task: str) -> List[str]:
    """Gold tags of a task: base-NP keeps only ``*-NP`` tags."""
    if task == "np":
        return [t if t.endswith("-NP") else "O" for t in chunks]
    return list(chunks)


# ----------------------------------------------------------- features


_CELL = re.compile(r"^(\w+)\[([+-]?\d+)\]$")
_COLUMNS = {"w": 0, "t": 1}  # word, POS tag


def parse_templates(templates: Sequence[str]) -> List[Tuple[str, List[Tuple[int, int]]]]:
    """``"w[0]|t[1]"`` -> ``("w[0]|t[1]", [(0, 0), (1, 1)])`` (column, offset)."""
    parsed = []
    for name in templates:
        cells = []
        for cell in name.split("|"):
            m = _CELL.match(cell)
            if m is None or m.group(1) not in _COLUMNS:
                raise ValueError(f"template {name!r}: cells must be w[k] or t[k]")
            cells.append((_COLUMNS[m.group(1)], int(m.group(2))))
        parsed.append((name, cells))
    return parsed


def cell_value(columns: Sequence[Sequence[str]], column: int, pos: int) -> str:
    """A cell's value, or a placeholder naming the offset outside the sentence."""
    n = len(columns[0])
    if pos < 0:
        return f"__BOS{pos}__"
    if pos >= n:
        return f"__EOS+{pos - n + 1}__"
    return columns[column][pos]


def sentence_features(words: Sequence[str], tags: Sequence[str], parsed) -> List[List[str]]:
    """crfsuite attribute strings, one list per token."""
    columns = (words, tags)
    xseq = []
    for i in range(len(words)):
        xseq.append([
            name + "=" + "|".join(cell_value(columns, col, i + off) for col, off in cells)
            for name, cells in parsed
        ])
    return xseq


# ------------------------------------------------------------- scoring


def span_prf(gold: Iterable[Iterable[Span]], pred: Iterable[Iterable[Span]]) -> Dict:
    """Micro P/R/F (percent) of exact (start, end, type) matches per sentence."""
    n_gold = n_pred = n_correct = 0
    for g, p in zip(gold, pred):
        g, p = set(g), set(p)
        n_gold += len(g)
        n_pred += len(p)
        n_correct += len(g & p)
    precision = 100.0 * n_correct / n_pred if n_pred else 0.0
    recall = 100.0 * n_correct / n_gold if n_gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1,
            "n_gold": n_gold, "n_pred": n_pred, "n_correct": n_correct}


def tag_prf(gold_tags: Iterable[Sequence[str]], pred_tags: Iterable[Sequence[str]]) -> Dict:
    """conlleval-style span P/R/F of tag sequences."""
    from spacy_adf.tags.iob import iob_to_spans

    gold = [iob_to_spans(t) for t in gold_tags]
    pred = [iob_to_spans(t) for t in pred_tags]
    return span_prf(gold, pred)


# ---------------------------------------------------------- child jobs


def train_crfsuite(spec: Dict, sequences) -> Dict:
    """Append (attribute sequence, tags) pairs to a python-crfsuite trainer
    (timed as feature extraction), train it (timed) and return the figures
    the benchmarks record."""
    import pycrfsuite

    trainer = pycrfsuite.Trainer(spec["algorithm"], spec["params"], verbose=False)
    start = time.perf_counter()
    for xseq, yseq in sequences:
        trainer.append(xseq, yseq)
    append_seconds = time.perf_counter() - start
    start = time.perf_counter()
    trainer.train(spec["model"])
    train_seconds = time.perf_counter() - start
    log = trainer.logparser
    last = log.last_iteration or {}
    return {
        "append_seconds": append_seconds,
        "train_seconds": train_seconds,
        "iterations": len(log.iterations),
        "last_iteration": last.get("num"),
        "n_features": log.featgen_num_features,
        "active_features": last.get("active_features"),
        "crfsuite_training_seconds": log.training_seconds,
        "params": trainer.get_params(),
    }


def crfsuite_worker(spec_path: str) -> None:
    """Child process: extract features, train crfsuite, write a result JSON."""
    spec = json.loads(Path(spec_path).read_text(encoding="utf8"))
    parsed = parse_templates(spec["templates"])
    sequences = ((sentence_features(words, tags, parsed), task_tags(chunks, spec["task"]))
                 for words, tags, chunks in read_conll2000(Path(spec["train"])))
    Path(spec["result"]).write_text(json.dumps(train_crfsuite(spec, sequences)), encoding="utf8")


# ------------------------------------------------------------ crfsuite


def count_crfsuite_weights(model_path: Path) -> Dict[str, int]:
    """Non-zero state features and transitions of a stored crfsuite model."""
    import pycrfsuite

    tagger = pycrfsuite.Tagger()
    tagger.open(str(model_path))
    info = tagger.info()
    tagger.close()
    return {"state_features": sum(1 for w in info.state_features.values() if w != 0),
            "transitions": sum(1 for w in info.transitions.values() if w != 0)}


def crfsuite_tag_all(tagger, test: List[Sentence], parsed) -> Tuple[List[List[str]], float]:
    start = time.perf_counter()
    pred = [tagger.tag(sentence_features(words, tags, parsed)) for words, tags, _ in test]
    return pred, time.perf_counter() - start


def bench_crfsuite(system: str, task: str, train_path: Path, test: List[Sentence],
                   templates: List[str], workdir: Path, run=run_child) -> Dict:
    """`run(cmd, log_path)` runs the training child (``wall_seconds``,
    ``peak_rss_mb``); benchmarks.training_process passes its launcher."""
    import pycrfsuite

    algorithm, params = CRFSUITE_SYSTEMS[system]
    job = workdir / f"{task}-{system}"
    job.mkdir(parents=True, exist_ok=True)
    model = job / "model.crfsuite"
    spec = {"task": task, "train": str(train_path), "templates": templates,
            "algorithm": algorithm, "params": params, "model": str(model),
            "result": str(job / "result.json")}
    (job / "spec.json").write_text(json.dumps(spec), encoding="utf8")
    child = run(module_command("benchmarks.chunking", "--crfsuite-worker", job / "spec.json"),
                job / "train.log")
    trained = json.loads((job / "result.json").read_text(encoding="utf8"))

    parsed = parse_templates(templates)
    tagger = pycrfsuite.Tagger()
    tagger.open(str(model))
    runs = [crfsuite_tag_all(tagger, test, parsed) for _ in range(REPEATS)]
    tagger.close()
    gold = [task_tags(chunks, task) for _, _, chunks in test]
    scores = tag_prf(gold, runs[0][0])
    n_tokens = sum(len(words) for words, _, _ in test)
    best = min(seconds for _, seconds in runs)
    weights = count_crfsuite_weights(model)
    # L-BFGS logs its active features (state features + transitions); L2SGD does not.
    active = trained["active_features"] or weights["state_features"] + weights["transitions"]
    model_bytes = model.stat().st_size
    return {
        **scores,
        "algorithm": algorithm,
        "params": params,
        "passes": trained["iterations"],
        "append_seconds": trained["append_seconds"],
        "train_seconds": trained["train_seconds"],
        "child_wall_seconds": child["wall_seconds"],
        "peak_rss_mb": child["peak_rss_mb"],
        "tag_seconds_best": best,
        "tag_seconds_all": [seconds for _, seconds in runs],
        "tokens_per_second": n_tokens / best,
        "n_features_generated": trained["n_features"],
        "active_features": active,
        "nonzero_state_features": weights["state_features"],
        "nonzero_transitions": weights["transitions"],
        "model_file_bytes": model_bytes,
        "model_bytes_per_feature": model_bytes / max(active, 1),
    }


# ----------------------------------------------------------------- adf


def batch_size_of(config_path: Path) -> int:
    """The spaCy batch size of a training config (sentences per step)."""
    from spacy.util import load_config

    cfg = load_config(config_path, interpolate=False)
    return int(cfg["training"]["batcher"]["size"])


def evaluations(records: List[Dict], n_train: int, batch_size: int = 1) -> List[Dict]:
    """The per-epoch log records, F1 in percent."""
    out = []
    for rec in records:
        seen = min((rec["step"] + 1) * batch_size, (rec["epoch"] + 1) * n_train)
        out.append({
            "epoch": rec["epoch"],
            "step": rec["step"],
            "sentences_seen": seen,
            "epochs_completed": seen // max(n_train, 1),
            "f1": 100.0 * rec["other_scores"].get("spans_chunks_f", 0.0),
            "train_seconds": rec["train_seconds"],
            "wall_seconds": rec["wall_seconds"],
        })
    return out


def first_reaching(evals: List[Dict], target: float) -> Optional[Dict]:
    for ev in evals:
        if ev["f1"] >= target:
            return ev
    return None


def train_adf(task: str, train_path: Path, test_path: Path, n_train: int,
              epochs: int, workdir: Path) -> Tuple[Path, Dict, List[Dict]]:
    job = workdir / f"{task}-adf"
    job.mkdir(parents=True, exist_ok=True)
    log_path = job / "log.jsonl"
    config = REPO / TASKS[task]["config"]
    batch_size = batch_size_of(config)
    steps_per_epoch = -(-n_train // batch_size)  # evaluate once per epoch
    cmd = [sys.executable, "-m", "spacy", "train", str(config),
           "--paths.train", str(train_path), "--paths.dev", str(test_path),
           "--paths.log", str(log_path), "--output", str(job / "output"),
           "--training.eval_frequency", str(steps_per_epoch),
           "--training.max_epochs", str(epochs), "--training.max_steps", "0"]
    child = run_child(cmd, job / "train.log")
    child["command"] = shlex.join(cmd)
    return (job / "output" / "model-last", child,
            evaluations(read_jsonl(log_path), n_train, batch_size))


def load_test_docs(nlp, test_path: Path, task: str):
    from spacy_adf.corpora.conll import conll_to_docs

    pairs = list(conll_to_docs(nlp.vocab, test_path, columns=["words", "tag", "iob"],
                               iob_target="spans:chunks",
                               keep_labels=TASKS[task]["keep_labels"]))
    return [p for p, _ in pairs], [r for _, r in pairs]


def doc_spans(doc) -> List[Span]:
    return [(s.start, s.end, s.label_) for s in doc.spans.get("chunks", [])]


def adf_tag_all(nlp, docs) -> Tuple[list, float]:
    start = time.perf_counter()
    out = list(nlp.pipe(docs, batch_size=ADF_BATCH_SIZE))
    return out, time.perf_counter() - start


def adf_memory(model_dir: Path, train_path: Path, task: str) -> Dict:
    """memory_report() as loaded and after a short in-process ADF training."""
    import spacy
    from spacy.training import Example
    from spacy_adf.corpora.conll import conll_to_docs
    from spacy_adf.optimizers.adf import ADF

    nlp = spacy.load(model_dir)
    pipe = nlp.get_pipe("chunker")
    loaded = pipe.memory_report()
    examples = [Example(p, r) for p, r in conll_to_docs(
        nlp.vocab, train_path, columns=["words", "tag", "iob"], iob_target="spans:chunks",
        keep_labels=TASKS[task]["keep_labels"], limit=MEMORY_SENTENCES)]
    optimizer = ADF(0.05, sigma=5.0)
    for eg in examples:
        nlp.update([eg], sgd=optimizer)
    return {"loaded": loaded, "training": pipe.memory_report(),
            "training_sentences": len(examples)}


def bench_adf(task: str, train_path: Path, test_path: Path, n_train: int,
              epochs: int, workdir: Path) -> Dict:
    import spacy
    from spacy.training import Example

    model_dir, child, evals = train_adf(task, train_path, test_path, n_train, epochs, workdir)
    nlp = spacy.load(model_dir)
    chunker = nlp.get_pipe("chunker")
    docs, refs = load_test_docs(nlp, test_path, task)
    runs = [adf_tag_all(nlp, docs) for _ in range(REPEATS)]
    predicted = runs[0][0]
    scores = span_prf([doc_spans(r) for r in refs], [doc_spans(d) for d in predicted])
    scorer = chunker.score([Example(d, r) for d, r in zip(predicted, refs)])
    n_tokens = sum(len(d) for d in docs)
    best = min(seconds for _, seconds in runs)
    target = TASKS[task]["target_f1"]
    hit = first_reaching(evals, target)
    last = evals[-1] if evals else None
    return {
        **scores,
        "scorer_f1": 100.0 * (scorer.get("spans_chunks_f") or 0.0),
        "last_log_f1": last["f1"] if last else None,
        "last_log_sentences_seen": last["sentences_seen"] if last else None,
        "model_last_sentences_seen": epochs * n_train,
        "f1_minus_last_log_f1": scores["f1"] - last["f1"] if last else None,
        "passes": epochs,
        "target_f1": target,
        "target_epoch": hit["epochs_completed"] if hit else None,
        "target_step": hit["step"] if hit else None,
        "time_to_target_seconds": hit["train_seconds"] if hit else None,
        "model_last_reaches_target": scores["f1"] >= target,
        "wall_seconds_total": child["wall_seconds"],
        "train_seconds_last_log": last["train_seconds"] if last else None,
        "peak_rss_mb": child["peak_rss_mb"],
        "tag_seconds_best": best,
        "tag_seconds_all": [seconds for _, seconds in runs],
        "tokens_per_second": n_tokens / best,
        "memory": adf_memory(model_dir, train_path, task),
        "evaluations": evals,
        "train_command": child["command"],
        "config": TASKS[task]["config"],
        "templates": list(chunker.plain_model.templates.templates),
        "scheme": chunker.cfg["scheme"],
    }


# --------------------------------------------------------------- report


def template_mismatches(report: Dict) -> List[str]:
    """Tasks whose adf templates differ from the crfsuite templates."""
    crf = report["settings"]["crfsuite_templates"]
    out = []
    for task, systems in report["results"].items():
        adf = systems.get("adf")
        if adf and adf["templates"] != crf:
            extra = [t for t in adf["templates"] if t not in crf]
            missing = [t for t in crf if t not in adf["templates"]]
            out.append(f"{TASKS[task]['title']}: adf ({adf['config']}) uses "
                       f"{len(adf['templates'])} templates, crfsuite {len(crf)}; adf only: "
                       f"`{', '.join(extra) or '-'}`; crfsuite only: `{', '.join(missing) or '-'}`")
    return out


def ratios(task_results: Dict) -> Dict:
    adf = task_results.get("adf")
    out: Dict[str, Optional[float]] = {}
    if not adf:
        return out
    for system in CRFSUITE_SYSTEMS:
        crf = task_results.get(system)
        if not crf:
            continue
        t = adf["time_to_target_seconds"]
        out[f"adf_time_to_target_over_{system}_train"] = (
            t / crf["train_seconds"] if t is not None else None)
        out[f"adf_tokens_per_second_over_{system}"] = (
            adf["tokens_per_second"] / crf["tokens_per_second"])
    return out


def markdown_tables(results: Dict) -> List[str]:
    lines = []
    for task, systems in results.items():
        info = TASKS[task]
        lines += [f"### {info['title']} (target F1 {info['target_f1']})", "",
                  "| system | F1 | P | R | passes | passes to target | train s "
                  "| time to target s | feature extr. s | total wall s | tokens/s "
                  "| peak RSS MB | weights | bytes/weight |",
                  "|---" * 14 + "|"]
        for system, r in systems.items():
            if system == "adf":
                mem = r["memory"]["training"]
                row = [system, fmt(r["f1"]), fmt(r["precision"]), fmt(r["recall"]),
                       str(r["passes"]), fmt(r["target_epoch"], "d", "not reached"),
                       fmt(r["train_seconds_last_log"], ".1f") + " (last log)",
                       fmt(r["time_to_target_seconds"], ".1f", "not reached"),
                       "(in train)", fmt(r["wall_seconds_total"], ".1f"),
                       fmt(r["tokens_per_second"], ",.0f"), fmt(r["peak_rss_mb"], ".0f"),
                       f"{mem['n_weights']:,} ({mem['n_features']:,} features)",
                       f"{mem['inference_bytes_per_weight']:.1f} model, "
                       f"{mem['training_bytes_per_weight']:.1f} training"]
            else:
                row = [system, fmt(r["f1"]), fmt(r["precision"]), fmt(r["recall"]),
                       str(r["passes"]), "", fmt(r["train_seconds"], ".1f"), "",
                       fmt(r["append_seconds"], ".1f"), fmt(r["child_wall_seconds"], ".1f"),
                       fmt(r["tokens_per_second"], ",.0f"), fmt(r["peak_rss_mb"], ".0f"),
                       f"{r['active_features']:,} (active features)",
                       f"{r['model_bytes_per_feature']:.1f} model file"]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    return lines


def markdown_notes(report: Dict) -> List[str]:
    lines = []
    for task, rat in report["ratios"].items():
        for key, value in rat.items():
            lines.append(f"- {TASKS[task]['title']}: `{key}` = {fmt(value, '.3f')}")
    for task, systems in report["results"].items():
        adf = systems.get("adf")
        if not adf:
            continue
        lines.append(
            f"- {TASKS[task]['title']}, adf: `{adf['config']}`, {adf['scheme']} tags, "
            f"templates `{', '.join(adf['templates'])}`.")
        lines.append(
            f"- {TASKS[task]['title']}, adf: model-last F1 {adf['f1']:.2f} "
            f"(spaCy scorer {adf['scorer_f1']:.2f}); last logged evaluation "
            f"{fmt(adf['last_log_f1'])} after {adf['last_log_sentences_seen']} sentences, "
            f"model-last after {adf['model_last_sentences_seen']}. Logged F1 after "
            "k epochs (+1 sentence), k = 0, 1, ...: "
            + ", ".join(f"{ev['f1']:.2f}" for ev in adf["evaluations"]))
    return lines


def markdown_section(report: Dict) -> str:
    m = report["machine"]
    lines = [
        "## CoNLL-2000 chunking: python-crfsuite vs adf_tagger", "",
        "Regenerate (from the repository root, with the project's venv Python):", "",
        f"    {report['command']}", "",
        f"Machine: {m['cores']} cores, {m['cpu']}; load average at start "
        f"{', '.join(f'{x:.2f}' for x in m['load_average_at_start'])}; "
        f"Python {m['python']}, spaCy {m['spacy']}, python-crfsuite {m['python_crfsuite']}, "
        f"spacy-adf {m['spacy_adf']} ({m['git_commit']}). "
        f"Run on {report['started']}, total {report['total_wall_seconds'] / 60:.1f} min.", "",
        f"Data: {report['settings']['n_train_sentences']} training sentences, "
        f"{report['settings']['n_test_sentences']} test sentences "
        f"({report['settings']['n_test_tokens']} tokens). crfsuite templates "
        "(the paper's, `spacy_adf.features.presets.chunking_templates()`, node features "
        f"only): `{', '.join(report['settings']['crfsuite_templates'])}`. adf_tagger: "
        "the templates, tag scheme and rich edge features of its config, listed "
        "below.", "",
        "F1/P/R: conlleval exact span match on the test set, in percent (adf: "
        "`model-last`). crfsuite train s = `Trainer.train()`; feature extr. = building "
        "attributes + `Trainer.append`. adf train s = logged `train_seconds` at the last "
        "evaluation (evaluation excluded); time to target = logged `train_seconds` at the "
        "first per-epoch evaluation reaching the target; total wall = the whole "
        "`spacy train` subprocess. tokens/s: test set, features included, best of "
        f"{REPEATS}. Peak RSS: the training child process (adf includes spaCy). "
        "Bytes/weight for adf from `memory_report()` (training: after "
        f"{MEMORY_SENTENCES} in-process ADF updates, optimizer state included).", "",
    ]
    if report["repo_changed_during_run"]:
        lines += ["**Warning: the repository changed during this run; the figures may "
                  "mix code versions.**", ""]
    mismatches = template_mismatches(report)
    if mismatches:
        lines += ["**Warning: the systems do not use the same feature templates.**", ""]
        lines += [f"- {m}" for m in mismatches] + [""]
    lines += markdown_tables(report["results"])
    lines += markdown_notes(report)
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------- main


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA,
                   help="folder with CoNLL-2000 train.txt and test.txt")
    p.add_argument("--tasks", default="np,all", help="comma-separated: np, all")
    p.add_argument("--systems", default=",".join(SYSTEMS),
                   help=f"comma-separated: {', '.join(SYSTEMS)}")
    p.add_argument("--epochs-np", type=int, default=10, help="adf epochs, base-NP")
    p.add_argument("--epochs-all", type=int, default=10, help="adf epochs, all phrases")
    p.add_argument("--out-json", type=Path, default=DEFAULT_JSON)
    p.add_argument("--out-md", type=Path, default=DEFAULT_MD)
    p.add_argument("--limit", type=int, default=0,
                   help="use only the first N training sentences (0 = all)")
    p.add_argument("--workdir", type=Path, default=None,
                   help="keep training output here (default: a temp dir, removed after)")
    p.add_argument("--crfsuite-worker", metavar="SPEC", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    for name, allowed in (("tasks", TASKS), ("systems", SYSTEMS)):
        values = [v.strip() for v in getattr(args, name).split(",") if v.strip()]
        unknown = [v for v in values if v not in allowed]
        if unknown or not values:
            p.error(f"--{name}: unknown or empty {unknown}; choose from {list(allowed)}")
        setattr(args, name, values)
    return args


def prepare_train(args, workdir: Path) -> Tuple[Path, int]:
    """The training file (a truncated copy with --limit) and its size."""
    train = read_conll2000(args.data / "train.txt", args.limit)
    if not args.limit:
        return args.data / "train.txt", len(train)
    path = workdir / f"train.first{args.limit}.txt"
    write_conll2000(path, train)
    return path, len(train)


def run_benchmark(args, workdir: Path, argv: List[str]) -> Dict:
    from spacy_adf.features.presets import chunking_templates

    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    t0 = time.perf_counter()
    state_at_start = repo_state()
    templates = list(chunking_templates())
    train_path, n_train = prepare_train(args, workdir)
    test_path = args.data / "test.txt"
    test = read_conll2000(test_path)
    epochs = {"np": args.epochs_np, "all": args.epochs_all}
    results: Dict[str, Dict] = {}
    for task in args.tasks:
        results[task] = {}
        for system in args.systems:
            print(f"[bench_chunking] {task} / {system} ...", flush=True)
            t = time.perf_counter()
            if system == "adf":
                r = bench_adf(task, train_path, test_path, n_train, epochs[task], workdir)
            else:
                r = bench_crfsuite(system, task, train_path, test, templates, workdir)
            results[task][system] = r
            print(f"[bench_chunking] {task} / {system}: F1 {r['f1']:.2f}, "
                  f"{time.perf_counter() - t:.0f} s", flush=True)
    changed = repo_state() != state_at_start
    if changed:
        print("[bench_chunking] WARNING: the repository changed during the run", flush=True)
    return {
        "benchmark": "bench_chunking",
        "repo_changed_during_run": changed,
        "command": shlex.join(["python", "-m", "benchmarks.chunking", *argv]),
        "started": started,
        "total_wall_seconds": time.perf_counter() - t0,
        "machine": machine_info(),
        "units": {"f1/precision/recall": "percent", "*_seconds": "seconds",
                  "peak_rss_mb": "MiB (ru_maxrss of the training child)"},
        "settings": {
            "data": str(args.data), "tasks": args.tasks, "systems": args.systems,
            "epochs": {t: epochs[t] for t in args.tasks}, "limit": args.limit,
            "n_train_sentences": n_train, "n_test_sentences": len(test),
            "n_test_tokens": sum(len(w) for w, _, _ in test),
            "crfsuite_templates": templates, "throughput_repeats": REPEATS,
            "adf_batch_size": ADF_BATCH_SIZE,
            "crfsuite": {k: {"algorithm": a, "params": p} for k, (a, p) in CRFSUITE_SYSTEMS.items()},
        },
        "results": results,
        "ratios": {task: ratios(r) for task, r in results.items()},
    }


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.crfsuite_worker:
        crfsuite_worker(args.crfsuite_worker)
        return 0
    for name in ("train.txt", "test.txt"):
        if not (args.data / name).exists():
            sys.exit(f"missing {args.data / name}; pass --data DIR")
    temporary = args.workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="bench_chunking_")) if temporary else args.workdir
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"[bench_chunking] working directory: {workdir}", flush=True)
    report = run_benchmark(args, workdir.resolve(), argv)
    write_json(args.out_json, report)
    write_section(args.out_md, NAME, markdown_section(report))
    print(f"[bench_chunking] wrote {args.out_json} and {args.out_md} "
          f"in {report['total_wall_seconds'] / 60:.1f} min", flush=True)
    if temporary:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
