"""JNLPBA Bio-NER tagging speed: adf_tagger against python-crfsuite with the
same templates, and the training time per pass of both.

One run, one process (spaCy, the adf pipeline and python-crfsuite all live in
this process; the systems are measured one after the other, never at once):

* adf: a trained JNLPBA pipeline (``--model``, default
  ``training/bioner_jnlpba_pos/model-best``: ``configs/bioner_jnlpba_pos.cfg``,
  a POS ``adf_tagger`` followed by the NER ``adf_tagger``). Its NER
  templates are compared with those of the shipped config and the report says
  whether they match. Without a model, ``--train`` trains one with the
  shipped config (``--limit`` sentences, ``--adf-epochs`` passes; it needs a
  POS pipeline, ``--pos-model``).
* test data: ``Genia4EReval1.iob2`` (3,856 sentences, 101,039 tokens) with
  its own tokens. The pipeline's POS tagger annotates the test Docs once,
  before anything is timed; both systems then read the same words and the
  same predicted POS.
* tagging tokens/s, best of ``--repeats`` (3) passes over the test set,
  features included for both: adf runs ``ner.pipe(docs, batch_size=256)``
  over fresh copies of the POS-tagged Docs (columns, template hashes, feature
  lookup, Viterbi, writing ``doc.ents``); crfsuite builds every sentence's
  attribute strings from the tokens (the words' orthography classes and
  affixes are cached per word, as adf caches them) and calls
  ``Tagger.tag``. Also reported: crfsuite ``Tagger.tag`` alone on prebuilt
  attribute lists, adf's whole pipeline (POS + NER) through ``nlp.pipe``, and
  the entity F1 of both on the test set.
* crfsuite: L-BFGS with ``c2 = 1.0`` as in ``benchmarks.chunking``, trained on
  the sentences of the model's training corpus (its config's
  ``[corpora.train]`` with ``--data``; POS from the pipeline's POS tagger, as
  adf was trained), with the attribute strings of the SAME templates: an
  attribute is the template plus its cell values (``w[-1]|w[0]=of|the``,
  ``ortho[0]=ALLCAPS+D+H+E``, ``suffix3[0]=ine``), positions outside the
  sentence get one placeholder per offset (``__BOS-1__``, ``__EOS+2__``, as
  in ``benchmarks.chunking``) and an attribute whose cell is absent (e.g. no
  POS) is left out, as adf switches the template off. The values are
  ``tests.helpers.template_values.column_values``, the strings behind adf's column hashes.
  ``--crfsuite-iterations`` caps L-BFGS (default 30, so the run stays within
  about 15 minutes; the tagging speed does not depend on it, since L2-only
  L-BFGS keeps every generated feature); the report gives CRFsuite's seconds
  per iteration from its own log and says when the model is capped (its F1
  is then not CRFsuite's converged score). ``--crfsuite-iterations 0`` runs
  to convergence. Seconds per iteration are wall clock, between CRFsuite's
  iteration callbacks (its log's own figure, CPU seconds, is reported too).
* adf training seconds per pass: ``--time-adf-passes N`` (default 3) times N
  passes of ``spacy train`` with the shipped config on the same training
  sentences, in this run, POS sourced from the model's own POS tagger,
  evaluated once per pass on 200 sentences; the ``spacy_adf.TimingLogger.v1``
  ``train_seconds`` (evaluations excluded) between the first and the last
  logged evaluation, over the steps between them, times the steps of one
  pass (training sentences / batch size); with three or more evaluations
  the first pass (which also fills the feature cache) is left out. The model's own training log
  (``--train-log``; default the ``[paths] log`` of its config, looked up in
  this repository) gives the same figure for the run that made the model,
  reported beside it; with ``--time-adf-passes 0`` it is the only one.
  adf's figure includes the POS tagging of every training batch
  (annotating_components). ``--train`` (no trained model) trains the model
  itself (``--adf-epochs`` passes) and takes the figure from that run.

Output: ``metrics/bench_bioner_speed.json`` and the section between
``<!-- bench_bioner_speed:start -->`` and ``<!-- bench_bioner_speed:end -->``
of docs/benchmarks.md. From the repository root:

    python -m benchmarks.bioner_speed --data ../shared/data/jnlpba
    python -m benchmarks.bioner_speed --model PATH --crfsuite-iterations 10   # quicker
    python -m benchmarks.bioner_speed --train --limit 2000 --adf-epochs 2    # no trained model
"""
import argparse
import math
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from benchmarks.chunking import cell_value, span_prf
from benchmarks.harness import (BENCHMARKS_MD, DATA, REPO, fmt, machine_info, markers, read_jsonl,
                                repo_state, run_child, write_json, write_section)
from tests.helpers.template_values import column_values

NAME = "bench_bioner_speed"
DEFAULT_DATA = DATA / "jnlpba"
DEFAULT_MODEL = REPO / "training" / "bioner_jnlpba_pos" / "model-best"
DEFAULT_POS_MODEL = REPO / "training" / "pos_conll2000" / "model-last"
SHIPPED_CONFIG = REPO / "configs" / "bioner_jnlpba_pos.cfg"
DEFAULT_JSON = REPO / "metrics" / "bench_bioner_speed.json"
MD_START, MD_END = markers(NAME)
ADF_BATCH_SIZE = 256
CRFSUITE_ALGORITHM = "lbfgs"
CRFSUITE_PARAMS = {"c2": 1.0}  # benchmarks.chunking's crfsuite-lbfgs


# ------------------------------------------------------------ templates


def shipped_templates(config_path: Path = SHIPPED_CONFIG) -> List[str]:
    """The NER templates the shipped config resolves to."""
    from spacy.util import load_config, registry

    import spacy_adf  # noqa: F401  (registers the template presets)

    cfg = load_config(config_path, interpolate=False)
    section = cfg["components"]["ner"]["model"]["templates"]
    return list(registry.resolve({"templates": dict(section)})["templates"])


class CrfsuiteFeatures:
    """CRFsuite attribute strings of adf templates: the template plus its
    cell values, from `column_values` (the strings adf hashes).
    Word-derived values (text, affixes, orthography class, lower case, shape)
    are cached per word, so repeated words cost a dictionary look-up."""

    WORD_COLUMNS = ("w", "orth", "lower", "shape", "ortho")

    def __init__(self, template_set) -> None:
        from spacy_adf.features.templates import parse_template

        self.tset = template_set
        columns = template_set.columns
        self.parsed = [(name, [(columns.index(c), off) for c, off in parse_template(name)])
                       for name in template_set.templates]
        self.word_cols = [i for i, c in enumerate(columns)
                          if c in self.WORD_COLUMNS or c.startswith(("prefix", "suffix"))]
        self.other_cols = [i for i in range(len(columns)) if i not in self.word_cols]
        self._cache: Dict[str, Tuple] = {}

    def columns(self, doc) -> List[List[Optional[str]]]:
        """Per column, the value of every token (None = absent)."""
        if not self.word_cols:
            return column_values(self.tset, doc)
        out: List[Optional[List]] = [None] * len(self.tset.columns)
        cache = self._cache
        rows = []
        for token in doc:
            row = cache.get(token.text)
            if row is None:
                one = column_values(self.tset, doc[token.i:token.i + 1].as_doc())
                row = cache[token.text] = tuple(one[i][0] for i in self.word_cols)
            rows.append(row)
        for k, i in enumerate(self.word_cols):
            out[i] = [row[k] for row in rows]
        full = None
        for i in self.other_cols:
            name = self.tset.columns[i]
            if name in ("t", "tag"):
                out[i] = [t.tag_ or None for t in doc]
            elif name == "pos":
                out[i] = [t.pos_ or None for t in doc]
            else:
                full = full or column_values(self.tset, doc)
                out[i] = full[i]
        return out

    def sentence(self, doc) -> List[List[str]]:
        """The attribute strings of every token of `doc`."""
        cols = self.columns(doc)
        xseq = []
        for t in range(len(doc)):
            attrs = []
            for name, cells in self.parsed:
                values = []
                for col, off in cells:
                    value = cell_value(cols, col, t + off)
                    if value is None:
                        break
                    values.append(value)
                else:
                    attrs.append(name + "=" + "|".join(values))
            xseq.append(attrs)
        return xseq


# --------------------------------------------------------------- data


def load_test(nlp, path: Path):
    """(predicted Docs with words only, reference Docs) of an IOB2 file."""
    from spacy_adf.corpora.conll import conll_to_docs

    pairs = list(conll_to_docs(nlp.vocab, path, columns=["words", "iob"], iob_target="ents",
                               input_attrs=(), sep="\t"))
    return [p for p, _ in pairs], [r for _, r in pairs]


def upstream(nlp, name: str) -> List:
    procs = []
    for pipe_name, proc in nlp.pipeline:
        if pipe_name == name:
            break
        procs.append(proc)
    return procs


def annotate(procs, docs, batch_size: int = ADF_BATCH_SIZE) -> list:
    for proc in procs:
        docs = list(proc.pipe(docs, batch_size=batch_size))
    return docs


def training_examples(nlp, data: Path, limit: int):
    """The model's training corpus (its config's [corpora.train], path under
    `data`), as Examples whose predicted Docs carry the upstream annotation."""
    from spacy_adf.corpora.brat import BratCorpus

    cfg = dict(nlp.config["corpora"]["train"])
    cfg.pop("@readers", None)
    cfg.pop("path", None)
    if limit:
        cfg["limit"] = limit
    corpus = BratCorpus(data / "standoff" / "train", **cfg)
    return list(corpus(nlp)), cfg


def doc_spans(doc) -> List[Tuple[int, int, str]]:
    return [(e.start, e.end, e.label_) for e in doc.ents]


# ---------------------------------------------------------------- adf


def time_adf(ner, docs, repeats: int) -> Tuple[List, List[float]]:
    runs = []
    first = None
    for r in range(repeats):
        copies = [d.copy() for d in docs]
        start = time.perf_counter()
        out = list(ner.pipe(copies, batch_size=ADF_BATCH_SIZE))
        runs.append(time.perf_counter() - start)
        if first is None:
            first = out
    return first, runs


def time_pipeline(nlp, docs, repeats: int) -> List[float]:
    runs = []
    for _ in range(repeats):
        copies = [d.copy() for d in docs]
        start = time.perf_counter()
        list(nlp.pipe(copies, batch_size=ADF_BATCH_SIZE))
        runs.append(time.perf_counter() - start)
    return runs


def adf_pass_seconds(log_path: Path, n_train: int, batch_size: int) -> Dict:
    """Training seconds per pass from a TimingLogger.v1 log."""
    records = [r for r in read_jsonl(log_path) if r.get("step") is not None]
    steps_per_pass = math.ceil(n_train / batch_size)
    out = {"log": str(log_path), "records": len(records), "steps_per_pass": steps_per_pass,
           "batch_size": batch_size, "training_sentences": n_train}
    if len(records) >= 3 and records[-1]["step"] > records[1]["step"]:
        records = records[1:]  # from the end of the first pass (the feature cache is filled)
    if len(records) >= 2 and records[-1]["step"] > records[0]["step"]:
        first, last = records[0], records[-1]
        per_step = (last["train_seconds"] - first["train_seconds"]) / (last["step"] - first["step"])
        out.update({"seconds_per_pass": per_step * steps_per_pass,
                    "from_step": first["step"], "to_step": last["step"],
                    "first_logged_train_seconds": first["train_seconds"],
                    "method": "train_seconds between the first and the last logged evaluation"})
    elif records:
        r = records[-1]
        out.update({"seconds_per_pass": r["train_seconds"] / max(r["step"], 1) * steps_per_pass,
                    "method": "train_seconds of the only logged evaluation"})
    return out


def find_train_log(nlp, model_dir: Path) -> Optional[Path]:
    log = nlp.config["paths"].get("log")
    if not log:
        return None
    candidates = [Path(log)] if Path(log).is_absolute() else [
        REPO / log, model_dir.resolve().parents[2] / log if len(model_dir.resolve().parents) > 2 else None]
    for c in candidates:
        if c is not None and c.exists():
            return c
    return None


def train_adf(args, workdir: Path, pos_model: Path, pos_component: str, passes: int,
              n_train: int = 0, tag: str = "adf") -> Tuple[Path, Path, Dict]:
    """spacy train with the shipped config, POS sourced from `pos_model`:
    (model-last, its TimingLogger log, child info). With `n_train` (the
    training sentences), spaCy evaluates once per pass (on 200 held-out
    sentences, which the logger's train_seconds leave out)."""
    out = workdir / tag
    log = workdir / f"{tag}_train.jsonl"
    cmd = [sys.executable, "-m", "spacy", "train", str(SHIPPED_CONFIG), "--output", str(out),
           "--paths.jnlpba", str(args.data), "--paths.pos_model", str(pos_model),
           "--components.pos.component", pos_component, "--paths.log", str(log),
           "--corpora.train.part", "all", "--corpora.train.limit", str(args.limit),
           "--corpora.dev.limit", "200", "--training.max_epochs", str(passes)]
    if n_train:
        cmd += ["--training.eval_frequency", str(math.ceil(n_train / batch_size_of(SHIPPED_CONFIG)))]
    child = run_child(cmd, workdir / f"{tag}_train.log")
    child["command"] = shlex.join(cmd)
    return out / "model-last", log, child


def batch_size_of(config_path: Path) -> int:
    from spacy.util import load_config

    return int(load_config(config_path, interpolate=False)["training"]["batcher"]["size"])


# ------------------------------------------------------------ crfsuite


def train_crfsuite(sequences, iterations: int, model_path: Path) -> Dict:
    """Append (attribute lists, tags) pairs as they come (so the attribute
    strings of the whole corpus never sit in memory at once) and train."""
    import pycrfsuite

    class Trainer(pycrfsuite.Trainer):
        """Wall-clock stamps of the end of feature generation and of every
        iteration (CRFsuite's own per-iteration times are CPU seconds).
        CRFsuite writes an iteration's log lines when the iteration is done."""

        def message(self, message):
            parser = self.logparser
            before = (parser.featgen_seconds is not None, len(parser.iterations))
            super().message(message)
            if (parser.featgen_seconds is not None, len(parser.iterations)) != before:
                self.stamps.append(time.perf_counter())

    params = dict(CRFSUITE_PARAMS)
    if iterations:
        params["max_iterations"] = iterations
    trainer = Trainer(CRFSUITE_ALGORITHM, params, verbose=False)
    trainer.stamps = []
    n_seq = n_tok = 0
    start = time.perf_counter()
    for x, y in sequences:
        trainer.append(x, y)
        n_seq += 1
        n_tok += len(y)
    append_seconds = time.perf_counter() - start
    print(f"[{NAME}] crfsuite L-BFGS on {n_seq} sentences ({n_tok} tokens), max iterations "
          f"{iterations or 'none'} ...", flush=True)
    start = time.perf_counter()
    trainer.train(str(model_path))
    train_seconds = time.perf_counter() - start
    log = trainer.logparser
    times = [float(it["time"]) for it in log.iterations if it.get("time") is not None]
    wall = [b - a for a, b in zip(trainer.stamps[:-1], trainer.stamps[1:])]
    trials = [it.get("linesearch_trials") for it in log.iterations]
    last = log.last_iteration or {}
    return {
        "algorithm": CRFSUITE_ALGORITHM,
        "params": trainer.get_params(),
        "max_iterations": iterations or None,
        "training_sentences": n_seq,
        "training_tokens": n_tok,
        "attribute_and_append_seconds": append_seconds,
        "train_seconds": train_seconds,
        "iterations": len(log.iterations),
        "seconds_per_iteration": statistics.mean(wall) if wall else None,
        "seconds_per_iteration_median": statistics.median(wall) if wall else None,
        "cpu_seconds_per_iteration": statistics.mean(times) if times else None,
        "featgen_cpu_seconds": log.featgen_seconds,
        "linesearch_trials": sum(t for t in trials if t) or None,
        "n_features": log.featgen_num_features,
        "active_features": last.get("active_features"),
        "capped": bool(iterations) and len(log.iterations) >= iterations,
    }


def time_crfsuite(tagger, feats: CrfsuiteFeatures, docs, repeats: int):
    runs = []
    first = None
    for _ in range(repeats):
        start = time.perf_counter()
        pred = [tagger.tag(feats.sentence(doc)) for doc in docs]
        runs.append(time.perf_counter() - start)
        if first is None:
            first = pred
    xs = [feats.sentence(doc) for doc in docs]
    tag_only = []
    for _ in range(repeats):
        start = time.perf_counter()
        for x in xs:
            tagger.tag(x)
        tag_only.append(time.perf_counter() - start)
    return first, runs, tag_only


# ------------------------------------------------------------------ run


def run(args, workdir: Path, argv: List[str]) -> Dict:
    import pycrfsuite
    import spacy

    from spacy_adf.tags.iob import iob_to_spans

    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    t0 = time.perf_counter()
    state_at_start = repo_state()
    machine = machine_info()
    trained = None
    model_dir = args.model
    if args.train or not model_dir.exists():
        if not args.train:
            sys.exit(f"no model at {model_dir}: pass --model DIR or --train (with --pos-model)")
        if not args.pos_model.exists():
            sys.exit(f"--train needs a POS pipeline: {args.pos_model} not found "
                     "(train configs/pos_conll2000.cfg, or pass --pos-model DIR)")
        print(f"[{NAME}] training adf ({args.adf_epochs} passes, limit {args.limit}) ...", flush=True)
        model_dir, log_path, child = train_adf(args, workdir, args.pos_model, args.pos_component,
                                               args.adf_epochs)
        trained = {"command": child["command"], "wall_seconds": child["wall_seconds"],
                   "peak_rss_mb": child["peak_rss_mb"]}
    else:
        log_path = args.train_log
    nlp = spacy.load(model_dir)
    ner = nlp.get_pipe(args.component)
    tset = ner.plain_model.templates
    templates = list(tset.templates)
    shipped = shipped_templates()
    crf = ner.plain_model.params
    if log_path is None and not trained:
        log_path = find_train_log(nlp, model_dir)

    print(f"[{NAME}] test data ...", flush=True)
    words_docs, refs = load_test(nlp, args.data / "Genia4EReval1.iob2")
    n_tokens = sum(len(d) for d in words_docs)
    procs = upstream(nlp, args.component)
    start = time.perf_counter()
    docs = annotate(procs, [d.copy() for d in words_docs])
    upstream_seconds = time.perf_counter() - start

    print(f"[{NAME}] adf tagging ...", flush=True)
    adf_pred, adf_runs = time_adf(ner, docs, args.repeats)
    pipeline_runs = time_pipeline(nlp, words_docs, args.repeats)
    adf_scores = span_prf([doc_spans(r) for r in refs], [doc_spans(d) for d in adf_pred])

    print(f"[{NAME}] crfsuite training data ...", flush=True)
    examples, corpus_cfg = training_examples(nlp, args.data, args.limit)
    feats = CrfsuiteFeatures(tset)
    start = time.perf_counter()
    predicted = annotate(procs, [eg.predicted for eg in examples])
    pos_seconds = time.perf_counter() - start

    def sequences():
        for eg, doc in zip(examples, predicted):
            if not len(doc):
                continue
            eg.predicted = doc
            tags = ner.target.gold(eg)
            if any(t is None for t in tags):
                continue
            yield feats.sentence(doc), tags

    model_path = workdir / "jnlpba.crfsuite"
    crfsuite = train_crfsuite(sequences(), args.crfsuite_iterations, model_path)
    crfsuite["model_file_bytes"] = model_path.stat().st_size

    print(f"[{NAME}] crfsuite tagging ...", flush=True)
    tagger = pycrfsuite.Tagger()
    tagger.open(str(model_path))
    crf_pred, crf_runs, crf_tag_only = time_crfsuite(tagger, feats, docs, args.repeats)
    tagger.close()
    crf_scores = span_prf([doc_spans(r) for r in refs], [iob_to_spans(p) for p in crf_pred])

    adf_train = None
    if log_path is not None and Path(log_path).exists():
        batch = int(nlp.config["training"]["batcher"]["size"])
        n_train = int(ner.cfg.get("n_train_examples") or len(examples))
        adf_train = adf_pass_seconds(Path(log_path), n_train, batch)
        if trained:
            adf_train["fresh_run"] = trained

    adf_fresh = None
    if args.time_adf_passes and not trained and len(procs) == 1:
        n_train = min(args.limit, len(examples)) if args.limit else len(examples)
        print(f"[{NAME}] timing {args.time_adf_passes} adf training passes (spacy train, POS from "
              f"the model's {nlp.pipe_names[0]!r}) ...", flush=True)
        _, fresh_log, child = train_adf(args, workdir, model_dir, nlp.pipe_names[0],
                                        args.time_adf_passes, n_train, tag="adf_timing")
        adf_fresh = adf_pass_seconds(fresh_log, n_train, batch_size_of(SHIPPED_CONFIG))
        adf_fresh["fresh_run"] = {"command": child["command"], "wall_seconds": child["wall_seconds"],
                                  "peak_rss_mb": child["peak_rss_mb"]}
    if adf_fresh is not None:
        if adf_train is not None:
            adf_fresh["model_log"] = adf_train
        adf_train = adf_fresh

    changed = repo_state() != state_at_start
    adf_best, crf_best = min(adf_runs), min(crf_runs)
    adf_tps, crf_tps = n_tokens / adf_best, n_tokens / crf_best
    adf_pass = (adf_train or {}).get("seconds_per_pass")
    crf_pass = crfsuite["seconds_per_iteration"]
    return {
        "benchmark": NAME,
        "command": shlex.join(["python", "-m", "benchmarks.bioner_speed", *argv]),
        "started": started,
        "total_wall_seconds": time.perf_counter() - t0,
        "repo_changed_during_run": changed,
        "machine": machine,
        "process": "one process: adf and crfsuite are timed one after the other",
        "model": {
            "path": str(model_dir), "component": args.component, "upstream": nlp.pipe_names[:len(procs)],
            "templates": templates, "n_templates": len(templates),
            "matches_shipped_config": templates == shipped, "shipped_config": str(SHIPPED_CONFIG.relative_to(REPO)),
            "tags": ner.tag_names, "n_tags": len(ner.tag_names), "scheme": ner.cfg["scheme"],
            "n_weights": int(crf.n_weights), "n_features": int(crf.n_attrs),
            "edge_features": nlp.config["components"][args.component]["model"].get("edge_features"),
            "trained_here": trained,
        },
        "test": {"file": str(args.data / "Genia4EReval1.iob2"), "sentences": len(words_docs),
                 "tokens": n_tokens, "upstream_seconds": upstream_seconds},
        "adf": {
            **adf_scores,
            "tag_seconds_all": adf_runs, "tag_seconds_best": adf_best, "tokens_per_second": adf_tps,
            "pipeline_seconds_all": pipeline_runs,
            "pipeline_tokens_per_second": n_tokens / min(pipeline_runs),
            "batch_size": ADF_BATCH_SIZE,
            "training": adf_train,
        },
        "crfsuite": {
            **crf_scores, **crfsuite,
            "corpus_sentences": len(examples),
            "training_corpus": {k: v for k, v in corpus_cfg.items()},
            "training_pos_seconds": pos_seconds,
            "tag_seconds_all": crf_runs, "tag_seconds_best": crf_best, "tokens_per_second": crf_tps,
            "tag_only_seconds_all": crf_tag_only,
            "tag_only_tokens_per_second": n_tokens / min(crf_tag_only),
        },
        "ratios": {
            "adf_tokens_per_second_over_crfsuite": adf_tps / crf_tps,
            "adf_tokens_per_second_over_crfsuite_tag_only": adf_tps / (n_tokens / min(crf_tag_only)),
            "adf_seconds_per_pass_over_crfsuite_iteration": (adf_pass / crf_pass
                                                               if adf_pass and crf_pass else None),
        },
        "settings": {"repeats": args.repeats, "limit": args.limit,
                     "crfsuite_iterations": args.crfsuite_iterations, "data": str(args.data)},
    }


# ---------------------------------------------------------------- report


def model_log_note(train: Dict) -> str:
    log = train.get("model_log")
    if not log or log.get("seconds_per_pass") is None:
        return ""
    return f"; the model's own training log: {log['seconds_per_pass']:.1f}"


def markdown_section(r: Dict) -> str:
    m, a, c, mod = r["machine"], r["adf"], r["crfsuite"], r["model"]
    train = a["training"] or {}
    capped = (f"capped at {c['max_iterations']} iterations (not converged: its F1 is not "
              "CRFsuite's final score)" if c["capped"] else f"{c['iterations']} iterations")
    lines = [
        "## JNLPBA Bio-NER tagging speed: adf_tagger vs python-crfsuite, same templates", "",
        "Regenerate (from the repository root, with the project's venv Python):", "",
        f"    {r['command']}", "",
        f"Machine: {m['cores']} cores, {m['cpu']}; load average at start "
        f"{', '.join(f'{x:.2f}' for x in m['load_average_at_start'])}; Python {m['python']}, "
        f"spaCy {m['spacy']}, python-crfsuite {m['python_crfsuite']}, spacy-adf {m['spacy_adf']} "
        f"({m['git_commit']}). Run on {r['started']}, {r['total_wall_seconds'] / 60:.1f} min, "
        f"{r['process']}.", "",
        f"Model: `{mod['path']}`, component `{mod['component']}` after {', '.join(mod['upstream']) or 'nothing'}; "
        f"{mod['n_templates']} templates ("
        + ("the same as" if mod["matches_shipped_config"] else "**not** the same as")
        + f" `{mod['shipped_config']}`), {mod['scheme']} tags ({mod['n_tags']}), rich edges "
        f"`{mod['edge_features']}`, {mod['n_weights']:,} weights, {mod['n_features']:,} features. "
        "crfsuite: the same templates as attribute strings (`column_values`), "
        f"L-BFGS {c['params'].get('c2') and 'c2 = ' + str(c['params']['c2'])}, label transitions "
        f"only (no rich edges), trained on {c['training_sentences']:,} sentences "
        f"({c['training_tokens']:,} tokens), {capped}.", "",
        f"Test: {r['test']['file'].split('/')[-1]}, {r['test']['sentences']:,} sentences, "
        f"{r['test']['tokens']:,} tokens, its own words, POS from the pipeline's POS tagger "
        "(tagged once, not timed). tokens/s: best of "
        f"{r['settings']['repeats']}, features included (adf: `ner.pipe`, batch "
        f"{a['batch_size']}, Docs to `doc.ents`; crfsuite: attribute strings built per "
        "sentence, word-level values cached, plus `Tagger.tag`).", "",
        "| system | entity F1 (test) | tagging tokens/s | training s / pass |",
        "| --- | --- | --- | --- |",
        f"| python-crfsuite L-BFGS | {c['f1']:.2f} | {c['tokens_per_second']:,.0f} "
        f"({c['tag_only_tokens_per_second']:,.0f} for `Tagger.tag` on prebuilt attributes) "
        f"| {fmt(c['seconds_per_iteration'], '.2f')} per L-BFGS iteration (wall clock; CRFsuite's "
        f"log: {fmt(c['cpu_seconds_per_iteration'], '.2f')} CPU s; "
        f"{c['iterations']} iterations, {c['train_seconds']:.0f} s; attributes + append "
        f"{c['attribute_and_append_seconds']:.0f} s) |",
        f"| adf_tagger (ADF) | {a['f1']:.2f} | {a['tokens_per_second']:,.0f} "
        f"({r['ratios']['adf_tokens_per_second_over_crfsuite']:.1f}x; whole pipeline POS + NER "
        f"{a['pipeline_tokens_per_second']:,.0f}) | {fmt(train.get('seconds_per_pass'), '.1f')} "
        f"({'timed in this run' if train.get('fresh_run') else 'training log `' + str(train.get('log', 'n/a')) + '`'}"
        f"{model_log_note(train)}; POS tagging of every batch included) |",
        "",
        f"- adf tokens/s over crfsuite's: {r['ratios']['adf_tokens_per_second_over_crfsuite']:.2f} "
        f"(over `Tagger.tag` alone: {r['ratios']['adf_tokens_per_second_over_crfsuite_tag_only']:.2f}); "
        f"adf seconds per pass over crfsuite's per iteration: "
        f"{fmt(r['ratios']['adf_seconds_per_pass_over_crfsuite_iteration'], '.2f')}.",
        f"- crfsuite: {c['n_features']:,} features generated, model file "
        f"{c['model_file_bytes'] / 1e6:.0f} MB; timings {', '.join(f'{x:.2f}' for x in c['tag_seconds_all'])} s. "
        f"adf timings {', '.join(f'{x:.2f}' for x in a['tag_seconds_all'])} s.",
    ]
    if train:
        lines.append(f"- adf s/pass: {train.get('method', '')}, steps {train.get('from_step')} to "
                     f"{train.get('to_step')}, {train['steps_per_pass']} steps of "
                     f"{train['batch_size']} sentences per pass ({train['training_sentences']:,} sentences).")
    if r["repo_changed_during_run"]:
        lines.append("- **Warning: the repository changed during this run.**")
    return "\n".join(lines) + "\n"


def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA,
                   help="JNLPBA folder (Genia4EReval1.iob2, standoff/train)")
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="trained JNLPBA pipeline")
    p.add_argument("--component", default="ner")
    p.add_argument("--train", action="store_true",
                   help="train the adf pipeline here with the shipped config (needs --pos-model)")
    p.add_argument("--pos-model", type=Path, default=DEFAULT_POS_MODEL)
    p.add_argument("--pos-component", default="tagger")
    p.add_argument("--adf-epochs", type=int, default=2, help="passes of --train")
    p.add_argument("--time-adf-passes", type=int, default=3,
                   help="time this many adf training passes here (spacy train with the shipped "
                        "config, POS sourced from the model; 0: only the model's training log)")
    p.add_argument("--train-log", type=Path, default=None,
                   help="TimingLogger.v1 log of the model (default: its config's [paths] log)")
    p.add_argument("--limit", type=int, default=0,
                   help="training sentences for crfsuite (and --train); 0 = all")
    p.add_argument("--crfsuite-iterations", type=int, default=30,
                   help="cap on L-BFGS iterations (0 = until CRFsuite stops)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--out-json", type=Path, default=DEFAULT_JSON)
    p.add_argument("--out-md", type=Path, default=BENCHMARKS_MD)
    p.add_argument("--workdir", type=Path, default=None)
    return p.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if not (args.data / "Genia4EReval1.iob2").exists():
        sys.exit(f"missing {args.data / 'Genia4EReval1.iob2'}; pass --data DIR")
    with tempfile.TemporaryDirectory(prefix="bench_bioner_speed_") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        report = run(args, workdir.resolve(), argv)
    write_json(args.out_json, report)
    write_section(args.out_md, NAME, markdown_section(report))
    a, c = report["adf"], report["crfsuite"]
    print(f"[{NAME}] adf {a['tokens_per_second']:,.0f} tokens/s (F1 {a['f1']:.2f}), crfsuite "
          f"{c['tokens_per_second']:,.0f} tokens/s (F1 {c['f1']:.2f}): "
          f"{report['ratios']['adf_tokens_per_second_over_crfsuite']:.2f}x; s/pass adf "
          f"{fmt((a['training'] or {}).get('seconds_per_pass'), '.1f')}, crfsuite "
          f"{fmt(c['seconds_per_iteration'], '.1f')} per iteration; wrote {args.out_json} and "
          f"{args.out_md} in {report['total_wall_seconds'] / 60:.1f} min", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
