"""What each word-representation source adds on dev, per task, in one table
(issue #48, item 4).

Rows are tasks, each trained as project.yml trains it (`python -m spacy train
CONFIG` with the same paths and overrides); columns are sources, each one
more set of overrides on that command:

- none: the config as the task's plain training runs it (no clusters, no
  lexicon); every other cell is its difference against this one;
- lookups clusters: the Brown clusters of spaCy's lookups
  (``lookups:lexeme_cluster``, spacy-lookups-data) in the cluster templates;
- vector clusters: a cluster table made from word vectors
  (``python -m spacy_adf vector-clusters``; ``--ja-clusters``);
- real-valued vectors: word vectors as real-valued features. adf_tagger has
  none at this commit, so the column is n/a; a task fills it with one more
  entry in its ``uses`` (see `Use`), reading ``--ja-vectors``;
- lexicon: a word list as the segmenter's dictionary features
  (``--paths.user_dict FILE --components.adf_segmenter.user_words
  features``): jieba's dict.txt for Weibo, ``--ja-words`` (made by
  ``python -m spacy_adf vector-words``) for Japanese;
- own-text clusters: clusters induced from unlabelled text: by default the
  task's own training text (the templates' clusters on, the table left
  null: induced at initialize), or a raw text given with ``--own-text``,
  clustered by ``python -m spacy_adf clusters`` into a table first.

A cell is n/a where the source does not apply to the task (a segmenter reads
no clusters, a tagger no lexicon) or its resource is absent (spacy-lookups-
data or jieba not importable, no file given, the task's corpus missing); the
report says why. The score of a cell is the last dev evaluation of the
training (model-last's meta.json ``performance``, else the training log):
the configs train a fixed number of epochs and only log dev, so the best
epoch would be chosen on dev; the best is in the JSON too.

One training at a time (the configs use both cores); each prints a line
when it starts and when it ends. Full data on an idle 2-core machine: about
25 minutes for everything with every resource, 12 for Japanese alone
(`estimated_seconds`).

    python -m benchmarks.representation_sources                   # every task and source
    python -m benchmarks.representation_sources --tasks seg-ja,morph-ja \\
        --ja-clusters chive_clusters.tsv --ja-words chive_words.txt
    python -m benchmarks.representation_sources --limit 200 --max-steps 20   # smoke run

Output: ``metrics/bench_representation_sources.json`` and the section between
``<!-- bench_representation_sources:start -->`` and ``<!-- ..:end -->`` in
docs/benchmarks.md (smoke runs with --limit or --max-steps write to the temp
folder unless told otherwise). Only the standard library at top level.
"""
import argparse
import hashlib
import importlib.util
import json
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Tuple

from benchmarks.harness import (BENCHMARKS_MD, DATA, REPO, machine_info, module_command, publish, read_jsonl,
                                repo_state, run_child, write_json)

NAME = "bench_representation_sources"
DEFAULT_JSON = REPO / "metrics" / f"{NAME}.json"
DEFAULT_WORKDIR = Path(tempfile.gettempdir()) / NAME
# smoke runs do not overwrite the recorded figures unless told to
SMOKE_JSON = Path(tempfile.gettempdir()) / f"{NAME}.smoke.json"
SMOKE_MD = Path(tempfile.gettempdir()) / f"{NAME}.smoke.md"
JACKKNIFED_POS = REPO / "training" / "jackknife" / "pos_conll2000" / "annotations.spacy"

# column key: title
SOURCES = {
    "none": "none",
    "lookups": "lookups clusters",
    "vector-clusters": "vector clusters",
    "vectors": "real-valued vectors",
    "lexicon": "lexicon",
    "own-text": "own-text clusters",
}
CLUSTER_SOURCES = ("lookups", "vector-clusters", "own-text")
VECTORS_NOTE = ("adf_tagger takes no real-valued vector features at this commit (a task's "
                "'vectors' entry in TASKS fills the column)")


# ------------------------------------------------------------ the task table


class Use(NamedTuple):
    """How a task uses a source: the resource it needs (a key of
    `resource_absent` and `Resources.value`; None: nothing) and the
    overrides of `spacy train` given the resource's value and the parsed
    options."""
    resource: Optional[str]
    overrides: Callable[[Optional[str], argparse.Namespace], List[str]]


NONE = Use(None, lambda value, args: [])


def cluster_table(component: str, resource: str, words_option: str = "") -> Use:
    """The component's cluster templates on, their table from `resource`;
    a value of None leaves the table null, so the component induces it from
    its training text at initialize. `words_option`: the option whose value
    is cluster_words (the most frequent words kept; 0: all)."""
    def overrides(value: Optional[str], args: argparse.Namespace) -> List[str]:
        out = [f"--components.{component}.model.templates.clusters", "true"]
        if value is not None:
            out += [f"--initialize.components.{component}.clusters", value]
        words = getattr(args, words_option, 0) if words_option else 0
        if words:
            out += [f"--initialize.components.{component}.cluster_words", str(words)]
        return out
    return Use(resource, overrides)


def lexicon(resource: str) -> Use:
    """A word list as the segmenter's dictionary features only: "features"
    rather than the default "force", so the CRF still decides every
    boundary and the cell measures the features, not forced matches."""
    return Use(resource, lambda value, args: ["--paths.user_dict", value,
                                               "--components.adf_segmenter.user_words", "features"])


KWDLC_TRAIN = ["kwdlc/train.knp", "ku_wikipedia_annotated/train.knp"]
KWDLC_DEV = ["kwdlc/dev.knp", "ku_wikipedia_annotated/dev.knp"]

# Each task as project.yml trains it. train/dev: corpus files relative to
# --data (a comma-joined --paths.train/--paths.dev); data_paths: other
# [paths] values relative to --data; metric: the dev score of the cells;
# uses: source -> Use (a source not listed does not apply); seconds: one
# training on the full data, idle 2 cores (metrics/train_*.jsonl and
# bench_training_process.json), for the estimate printed at the start.
# Real-valued vectors, once adf_tagger reads them, are one more entry in a
# task's uses, e.g. "vectors": Use("ja-vectors", lambda value, args:
# ["--initialize.vectors", value, <the option that turns them on>]).
TASKS: Dict[str, Dict[str, Any]] = {
    "np": {
        "title": "English base-NP chunker (train-np)", "lang": "en", "config": "configs/chunking_np.cfg",
        "dev_title": "CoNLL-2000 train.txt fold 0, held out",
        "train": ["conll2000/train.txt"], "dev": ["conll2000/train.txt"],
        "overrides": ["--corpora.train.part", "train", "--corpora.dev.part", "heldout"],
        "pos_annotations": True, "metric": "spans_chunks_f", "seconds": 35,
        "uses": {"none": NONE, "lookups": cluster_table("chunker", "lookups:en"),
                 "own-text": cluster_table("chunker", "own-text:np")}},
    "pos-en": {
        "title": "English POS tagger (train-pos-en)", "lang": "en", "config": "configs/pos_conll2000.cfg",
        "dev_title": "CoNLL-2000 train.txt fold 0, held out",
        "train": ["conll2000/train.txt"], "dev": ["conll2000/train.txt"],
        "overrides": ["--corpora.train.part", "train", "--corpora.dev.part", "heldout"],
        "metric": "tag_acc", "seconds": 30,
        "uses": {"none": NONE, "lookups": cluster_table("tagger", "lookups:en"),
                 "own-text": cluster_table("tagger", "own-text:pos-en")}},
    "weibo": {
        "title": "Chinese segmenter, Weibo (train-seg-weibo)", "lang": "zh",
        "config": "configs/seg_zh_weibo.cfg", "dev_title": "NLPCC-2016 Weibo dev",
        "train": ["nlpcc2016_weibo/nlpcc2016-word-seg-train.dat"],
        "dev": ["nlpcc2016_weibo/nlpcc2016-wordseg-dev.dat"],
        "metric": "token_f", "seconds": 50,
        "uses": {"none": NONE, "lexicon": lexicon("jieba")}},
    "seg-ja": {
        "title": "Japanese segmenter (train-seg-kwdlc)", "lang": "ja", "config": "configs/seg_ja_kwdlc.cfg",
        "dev_title": "KWDLC + KU Wikipedia dev", "train": KWDLC_TRAIN, "dev": KWDLC_DEV,
        "metric": "token_f", "seconds": 40,
        "uses": {"none": NONE, "lexicon": lexicon("ja-words")}},
    "morph-ja": {
        "title": "Japanese POS + sub-POS tagger (train-morph-ja)", "lang": "ja",
        "config": "configs/morph_ja_kwdlc.cfg", "dev_title": "KWDLC + KU Wikipedia dev",
        "train": KWDLC_TRAIN, "dev": KWDLC_DEV, "metric": "morph_SrcPos_SrcSubPos_acc", "seconds": 200,
        # the cluster table goes to the POS tagger only: the conjugation
        # taggers are already at 99% and would triple the cost
        "uses": {"none": NONE, "lookups": cluster_table("morph_pos", "lookups:ja"),
                 "vector-clusters": cluster_table("morph_pos", "ja-clusters", "ja_cluster_words"),
                 "own-text": cluster_table("morph_pos", "own-text:morph-ja")}},
    "bio": {
        "title": "JNLPBA Bio-NER with WSJ POS (train-bioner-jnlpba-pos)", "lang": "en",
        "config": "configs/bioner_jnlpba_pos.cfg", "dev_title": "JNLPBA train fold 0, held out",
        "train": [], "dev": [], "data_paths": {"jnlpba": "jnlpba"}, "needs_pos_model": True,
        "metric": "ents_f", "seconds": 130,
        "uses": {"none": NONE, "lookups": cluster_table("ner", "lookups:en"),
                 "own-text": cluster_table("ner", "own-text:bio")}},
}
# the corpus a task cannot run without (besides its train and dev files)
REQUIRED_DIRS = {"bio": ["jnlpba/standoff/train"]}


def not_applicable(task: str, source: str) -> str:
    """Why `source` has no cell in `task`'s row."""
    segmenter = "lexicon" in TASKS[task]["uses"]
    if source == "vectors":
        return "adf_segmenter takes no word vectors" if segmenter else VECTORS_NOTE
    if source in CLUSTER_SOURCES and segmenter:
        return "adf_segmenter has no word-cluster templates"
    if source == "lexicon":
        return "a lexicon feeds a segmenter's dictionary features; the taggers have none"
    if source == "vector-clusters":
        return f"no vector cluster table for {TASKS[task]['lang']} (--ja-clusters is Japanese)"
    return "does not apply"


# ------------------------------------------------------------ resources


def lookups_clusters_absent(lang: str) -> str:
    """Why spaCy's lookups have no lexeme_cluster table for `lang` ("" when
    they have it)."""
    if importlib.util.find_spec("spacy_lookups_data") is None:
        return "spacy-lookups-data is not installed (spacy project run install-resources)"
    from spacy.util import registry

    files = registry.lookups.get(lang) if lang in registry.lookups else {}
    if "lexeme_cluster" not in files:
        return f"spacy-lookups-data has no lexeme_cluster table for {lang}"
    return ""


def own_text_file(task: str, own_text: Dict[str, Path]) -> Optional[Path]:
    """The raw text given for `task`: by its name, else by its language."""
    return own_text.get(task, own_text.get(TASKS[task]["lang"]))


def resource_absent(key: str, args: argparse.Namespace) -> str:
    """Why resource `key` is absent ("" when present), without making it."""
    kind, _, arg = key.partition(":")
    if kind == "lookups":
        return lookups_clusters_absent(arg)
    if kind == "jieba":
        if importlib.util.find_spec("jieba") is None:
            return "jieba is not installed (spacy project run install-resources)"
        return ""
    if kind == "own-text":
        return ""  # the training text at least
    option = {"ja-clusters": args.ja_clusters, "ja-words": args.ja_words, "ja-vectors": args.ja_vectors}
    if kind in option:
        return "" if option[kind] else f"no --{kind} given"
    raise ValueError(f"unknown resource {key!r}")


def corpus_missing(task: str, data: Path) -> str:
    """The first corpus file or folder of `task` missing under `data` ("" if none)."""
    t = TASKS[task]
    for rel in [*t["train"], *t["dev"], *REQUIRED_DIRS.get(task, [])]:
        if not (data / rel).exists():
            return f"corpus missing: {data / rel}"
    return ""


def cell_plan(task: str, source: str, args: argparse.Namespace) -> Tuple[Optional[Use], str]:
    """The Use of `source` in `task`, or None and why the cell is n/a."""
    missing = corpus_missing(task, args.data)
    if missing:
        return None, missing
    use = TASKS[task]["uses"].get(source)
    if use is None:
        return None, not_applicable(task, source)
    absent = resource_absent(use.resource, args) if use.resource else ""
    return (None, absent) if absent else (use, "")


class Resources:
    """The values of the resources, made once when a training first needs
    them: the clusters command over an --own-text file runs here."""

    def __init__(self, args: argparse.Namespace, workdir: Path) -> None:
        self.args = args
        self.workdir = workdir
        self.made: Dict[str, Dict[str, Any]] = {}  # own-text tables by source file

    def value(self, key: str) -> Tuple[Optional[str], str]:
        """(the value the overrides get, what it is for the report)."""
        kind, _, arg = key.partition(":")
        if kind == "lookups":
            return "lookups:lexeme_cluster", "lookups:lexeme_cluster (spacy-lookups-data)"
        if kind == "jieba":
            return "pkg:jieba/dict.txt", "pkg:jieba/dict.txt"
        if kind == "own-text":
            text = own_text_file(arg, self.args.own_text)
            if text is None:
                return None, "the task's training text (induced at initialize)"
            table = self.own_text_table(text)
            return str(table), f"{text} (python -m spacy_adf clusters)"
        path = {"ja-clusters": self.args.ja_clusters, "ja-words": self.args.ja_words,
                "ja-vectors": self.args.ja_vectors}[kind]
        return str(path), str(path)

    def own_text_table(self, text: Path) -> Path:
        """The cluster table of a raw text, made once per file."""
        key = str(text)
        if key in self.made:
            return Path(self.made[key]["table"])
        name = hashlib.sha1(key.encode()).hexdigest()[:10]
        folder = self.workdir / "own_text"
        folder.mkdir(parents=True, exist_ok=True)
        table = folder / f"{text.stem}-{name}.tsv"
        say(f"clusters of {text}: started")
        child = run_child(module_command("spacy_adf", "clusters", text, table), folder / f"{table.stem}.log")
        say(f"clusters of {text}: finished in {child['wall_seconds']:.1f} s")
        self.made[key] = {"table": str(table), "seconds": child["wall_seconds"],
                          "peak_rss_mb": child["peak_rss_mb"]}
        return table


# ------------------------------------------------------------ trainings


def say(message: str) -> None:
    print(f"[{NAME}] {message}", flush=True)


def smoke_overrides(args: argparse.Namespace) -> List[str]:
    """--limit, --dev-limit and --max-steps as config overrides. With
    --max-steps the evaluation comes every max-steps steps, so the step
    that ends the training is scored."""
    out: List[str] = []
    if args.limit:
        out += ["--corpora.train.limit", str(args.limit)]
    if args.dev_limit:
        out += ["--corpora.dev.limit", str(args.dev_limit)]
    if args.max_steps:
        out += ["--training.max_steps", str(args.max_steps),
                "--training.eval_frequency", str(args.max_steps)]
    return out


def train_command(task: str, use: Use, value: Optional[str], job: Path, args: argparse.Namespace,
                  pos_model: Optional[Path]) -> List[str]:
    """`python -m spacy train` of `task` with `use`'s overrides (run from the
    repository root: the configs' relative defaults are the repository's)."""
    t = TASKS[task]
    cmd = module_command("spacy", "train", t["config"], "--output", job / "output",
                         "--paths.log", job / "log.jsonl")
    if t["train"]:
        cmd += ["--paths.train", ",".join(str(args.data / p) for p in t["train"]),
                "--paths.dev", ",".join(str(args.data / p) for p in t["dev"])]
    for name, rel in t.get("data_paths", {}).items():
        cmd += [f"--paths.{name}", str(args.data / rel)]
    if t.get("pos_annotations") and args.pos_annotations is not None:
        cmd += ["--paths.pos_annotations", str(args.pos_annotations)]
    if t.get("needs_pos_model"):
        cmd += ["--paths.pos_model", str(pos_model)]
    cmd += t.get("overrides", [])
    cmd += use.overrides(value, args)
    return cmd + smoke_overrides(args)


def read_scores(job: Path, metric: str) -> Dict[str, Any]:
    """The dev scores of a finished training: the last evaluation from
    model-last's meta.json (the training log's last record when the metric
    is not there), the best and the number of evaluations from the log.
    Percent."""
    records = [r for r in read_jsonl(job / "log.jsonl") if "other_scores" in r] \
        if (job / "log.jsonl").exists() else []
    meta_path = job / "output" / "model-last" / "meta.json"
    performance = json.loads(meta_path.read_text(encoding="utf8")).get("performance", {}) \
        if meta_path.exists() else {}
    if metric in performance:
        last, where = performance[metric], "model-last/meta.json"
    elif records and metric in records[-1]["other_scores"]:
        last, where = records[-1]["other_scores"][metric], "log.jsonl (last evaluation)"
    else:
        raise RuntimeError(f"no {metric} in {meta_path} or {job / 'log.jsonl'}")
    history = [r["other_scores"][metric] for r in records if metric in r["other_scores"]]
    scores = {k: 100 * v for k, v in performance.items()
              if isinstance(v, (int, float)) and not k.endswith("_loss")}
    return {"value": 100 * last, "read_from": where,
            "best": 100 * max(history) if history else None, "evaluations": len(history),
            "last_step": records[-1].get("step") if records else None, "scores": scores}


def cluster_words(model: Path) -> Dict[str, int]:
    """{component: words in its cluster table} of a trained pipeline, as
    each component's cfg records them (after cluster_words): a cell's delta
    reads differently for a table of 500 words and one of 500,000."""
    out = {}
    for cfg in sorted(model.glob("*/cfg")):
        try:
            clusters = json.loads(cfg.read_text(encoding="utf8")).get("clusters")
        except (ValueError, AttributeError):
            continue  # not a JSON object: not an adf component's cfg
        if isinstance(clusters, dict) and "n_words" in clusters:
            out[cfg.parent.name] = clusters["n_words"]
    return out


def run_training(task: str, source: str, use: Use, resources: Resources, args: argparse.Namespace,
                 workdir: Path, pos_model: Optional[Path], label: str) -> Dict[str, Any]:
    """Train one cell and read its dev score."""
    value, described = resources.value(use.resource) if use.resource else (None, "")
    job = workdir / task / source
    shutil.rmtree(job, ignore_errors=True)  # a stale model must not be read as this run's
    job.mkdir(parents=True)
    cmd = train_command(task, use, value, job, args, pos_model)
    say(f"{label} {task} / {SOURCES[source]}: training started")
    child = run_child(cmd, job / "train.log")
    metric = TASKS[task]["metric"]
    scores = read_scores(job, metric)
    clusters = cluster_words(job / "output" / "model-last")
    # nothing reads model-best (a cell is the last evaluation): half the disk
    shutil.rmtree(job / "output" / "model-best", ignore_errors=True)
    say(f"{label} {task} / {SOURCES[source]}: finished in {child['wall_seconds']:.1f} s, "
        f"{metric} {scores['value']:.2f}")
    return {"status": "ok", "metric": metric, **scores, "delta": None, "source": described,
            "cluster_words": clusters,
            "seconds": child["wall_seconds"], "peak_rss_mb": child["peak_rss_mb"],
            "model": str(job / "output" / "model-last"), "command": shlex.join(cmd)}


# ------------------------------------------------------------ the run


def planned(args: argparse.Namespace) -> Dict[str, Dict[str, Tuple[Optional[Use], str]]]:
    """task -> source -> (Use or None, why n/a)."""
    return {task: {source: cell_plan(task, source, args) for source in args.sources}
            for task in args.tasks}


def pos_prerequisite(plan: Dict, args: argparse.Namespace) -> bool:
    """Whether the run trains a POS tagger for the Bio-NER that it would not
    train anyway: bio runs, no --pos-model, and pos-en's plain training is
    not in the run (it is the WSJ tagger train-bioner-jnlpba-pos sources)."""
    bio_runs = any(use is not None for use, _ in plan.get("bio", {}).values())
    pos_runs = plan.get("pos-en", {}).get("none", (None, ""))[0] is not None
    return bio_runs and args.pos_model is None and not pos_runs


def estimated_seconds(plan: Dict, args: argparse.Namespace) -> float:
    """The run's length on the full data from the tasks' known training times."""
    total = sum(TASKS[task]["seconds"] for task, row in plan.items() for use, _ in row.values() if use)
    return total + (TASKS["pos-en"]["seconds"] if pos_prerequisite(plan, args) else 0)


def add_deltas(row: Dict[str, Dict[str, Any]]) -> None:
    """Each trained cell's difference from the row's none cell (points)."""
    base = row.get("none", {})
    for source, cell in row.items():
        if cell["status"] == "ok" and source != "none" and base.get("status") == "ok":
            cell["delta"] = cell["value"] - base["value"]


def run(args: argparse.Namespace, workdir: Path, argv: List[str]) -> Dict[str, Any]:
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    t0 = time.perf_counter()
    state = repo_state()
    machine = machine_info()
    plan = planned(args)
    n_jobs = sum(use is not None for row in plan.values() for use, _ in row.values())
    prerequisite = pos_prerequisite(plan, args)
    say(f"{n_jobs + prerequisite} trainings in {workdir}; on the full data about "
        f"{estimated_seconds(plan, args) / 60:.0f} min on an idle 2-core machine")
    resources = Resources(args, workdir)
    table: Dict[str, Dict[str, Dict[str, Any]]] = {}
    prerequisites: Dict[str, Any] = {}
    failures: Dict[str, str] = {}
    pos_model = args.pos_model
    done = 0

    def report(complete: bool) -> Dict[str, Any]:
        return {
            "benchmark": NAME, "complete": complete,
            "command": shlex.join(["python", "-m", "benchmarks.representation_sources", *argv]),
            "started": started, "total_wall_seconds": time.perf_counter() - t0,
            "repo_changed_during_run": repo_state() != state, "machine": machine,
            "units": {"value, best, delta": "dev score x 100 (delta: points against the row's none)",
                      "seconds": "wall time of the spacy train process"},
            "settings": settings_of(args),
            "sources": {s: SOURCES[s] for s in args.sources},
            "tasks": {t: {"title": TASKS[t]["title"], "dev": TASKS[t]["dev_title"],
                          "metric": TASKS[t]["metric"], "config": TASKS[t]["config"]} for t in args.tasks},
            "table": table, "prerequisites": prerequisites, "own_text_tables": resources.made,
            "failures": failures,
        }

    for task in args.tasks:
        row: Dict[str, Dict[str, Any]] = {}
        table[task] = row
        if TASKS[task].get("needs_pos_model") and pos_model is None and any(u for u, _ in plan[task].values()):
            if prerequisite:
                try:
                    prerequisites["pos-en/none"] = run_training(
                        "pos-en", "none", NONE, resources, args, workdir, None, "[prerequisite]")
                    pos_model = Path(prerequisites["pos-en/none"]["model"])
                except Exception as err:  # noqa: BLE001 - the other rows still run
                    failures["pos-en/none"] = f"{type(err).__name__}: {err}"
            elif table.get("pos-en", {}).get("none", {}).get("status") == "ok":
                pos_model = Path(table["pos-en"]["none"]["model"])
        for source in args.sources:
            use, why = plan[task][source]
            if use is None:
                row[source] = {"status": "n/a", "note": why}
                continue
            if TASKS[task].get("needs_pos_model") and pos_model is None:
                row[source] = {"status": "failed", "note": "no POS model (its training failed)"}
                continue
            done += 1
            try:
                row[source] = run_training(task, source, use, resources, args, workdir, pos_model,
                                           f"[{done}/{n_jobs}]")
            except Exception as err:  # noqa: BLE001 - one failed training must not lose the others
                failures[f"{task}/{source}"] = f"{type(err).__name__}: {err}"
                row[source] = {"status": "failed", "note": str(err).splitlines()[0][:300]}
                say(f"{task} / {SOURCES[source]} FAILED:\n" + "\n".join(str(err).splitlines()[-12:]))
        add_deltas(row)
        write_json(args.out_json, report(complete=False))  # partial figures survive a crash
    final = report(complete=True)
    if final["repo_changed_during_run"]:
        say("WARNING: the repository changed during the run")
    return final


def settings_of(args: argparse.Namespace) -> Dict[str, Any]:
    return {"data": str(args.data), "tasks": args.tasks, "sources": args.sources,
            "ja_clusters": str(args.ja_clusters) if args.ja_clusters else None,
            "ja_cluster_words": args.ja_cluster_words,
            "ja_words": str(args.ja_words) if args.ja_words else None,
            "ja_vectors": str(args.ja_vectors) if args.ja_vectors else None,
            "own_text": {k: str(v) for k, v in args.own_text.items()},
            "pos_annotations": str(args.pos_annotations) if args.pos_annotations else "gold POS",
            "pos_model": str(args.pos_model) if args.pos_model else None,
            "limit": args.limit, "dev_limit": args.dev_limit, "max_steps": args.max_steps,
            "smoke": bool(args.limit or args.dev_limit or args.max_steps)}


# ------------------------------------------------------------ report


def cell_text(cell: Dict[str, Any]) -> str:
    if cell["status"] == "n/a":
        return "n/a"
    if cell["status"] == "failed":
        return "**failed**"
    delta = "" if cell["delta"] is None else f" ({cell['delta']:+.2f})"
    return f"{cell['metric']} {cell['value']:.2f}{delta}"


def markdown_section(report: Dict[str, Any]) -> str:
    m, s = report["machine"], report["settings"]
    sources = list(report["sources"])
    lines = [
        "## What each representation source adds on dev (issue #48)", "",
        "Regenerate (from the repository root, with the project's venv Python; "
        "`spacy project run bench-representations`):", "", f"    {report['command']}", "",
        f"Machine: {m['cores']} cores, {m['cpu']}; spaCy {m['spacy']}, spacy-adf {m['spacy_adf']} "
        f"({m['git_commit']}). Run on {report['started']}, total "
        f"{report['total_wall_seconds'] / 60:.1f} min."
        + (f" **Smoke run** (--limit {s['limit']}, --dev-limit {s['dev_limit']}, --max-steps "
           f"{s['max_steps']}): the figures say nothing about the real runs." if s.get("smoke") else ""), "",
        "Each task trains as its project.yml command does (`python -m spacy train CONFIG`, the same "
        "paths and overrides), once per source; a cell is the dev score of the last evaluation "
        "(model-last), x 100, and its difference from the row's none in points. n/a: the source does "
        "not apply or its resource is absent (reasons below). Sources: lookups clusters = "
        "`lookups:lexeme_cluster` (spacy-lookups-data); vector clusters = a `vector-clusters` table "
        "(`--ja-clusters`); lexicon = the segmenter's `user_dict` as dictionary features (jieba's "
        "dict.txt for Weibo, `--ja-words` for Japanese); own-text clusters = induced from the "
        "training text, or from `--own-text` through `python -m spacy_adf clusters`.", "",
        "| task | dev | " + " | ".join(report["sources"].values()) + " |",
        "|---" * (2 + len(sources)) + "|",
    ]
    for task, row in report["table"].items():
        t = report["tasks"][task]
        lines.append(f"| {t['title']} | {t['dev']} | " + " | ".join(cell_text(row[s]) for s in sources) + " |")
    used = [(task, source, c) for task, row in report["table"].items() for source, c in row.items()
            if c["status"] == "ok" and c.get("source")]
    if used:
        lines += ["", "Sources read:"] + [f"- {task} / {report['sources'][source]}: {c['source']}"
                                          + table_sizes(c) for task, source, c in used]
    lines += notes(report)
    if "np" in report["table"]:
        lines += ["", f"POS of the base-NP chunker's corpora: {s['pos_annotations']} (train-np reads the "
                      "jack-knifed POS of jackknife-pos-conll)."]
    if report.get("repo_changed_during_run"):
        lines += ["", "**Warning: the repository changed during this run; the figures may mix code versions.**"]
    return "\n".join(lines) + "\n"


def table_sizes(cell: Dict[str, Any]) -> str:
    sizes = cell.get("cluster_words") or {}
    return "".join(f"; {name}'s table: {n:,} words" for name, n in sizes.items())


def notes(report: Dict[str, Any]) -> List[str]:
    """The n/a and failed cells grouped by reason; a row whose cells all
    share one reason (its corpus is missing) as one entry."""
    by_reason: Dict[str, List[str]] = {}
    for task, row in report["table"].items():
        reasons = {cell.get("note") for cell in row.values() if cell["status"] != "ok"}
        if len(reasons) == 1 and all(cell["status"] != "ok" for cell in row.values()):
            by_reason.setdefault(reasons.pop(), []).append(f"{task} (every column)")
            continue
        for source, cell in row.items():
            if cell["status"] != "ok":
                by_reason.setdefault(cell["note"], []).append(f"{task} / {report['sources'][source]}")
    if not by_reason:
        return []
    return ["", "Cells without a score:"] + [f"- {why}: {', '.join(cells)}" for why, cells in by_reason.items()]


# ------------------------------------------------------------ main


def split_list(value: str, known: Dict[str, Any], what: str, p: argparse.ArgumentParser) -> List[str]:
    """A comma-separated selection in the order of `known`."""
    chosen = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in chosen if v not in known]
    if unknown or not chosen:
        p.error(f"{what}: unknown or empty {unknown}; choose from {', '.join(known)}")
    return [k for k in known if k in chosen]


def parse_own_text(values: List[str], tasks: List[str], p: argparse.ArgumentParser) -> Dict[str, Path]:
    """--own-text [TASK=|LANG=]FILE values as {task or language: file}; a
    bare FILE is for every selected task with cluster templates, which must
    then share one language (English clusters would be no test of Japanese)."""
    out: Dict[str, Path] = {}
    names = set(TASKS) | {t["lang"] for t in TASKS.values()}
    for value in values:
        if not value:
            continue  # project.yml passes '' when vars.own_text is empty
        key, sep, path = value.partition("=")
        if not sep or key not in names:
            langs = {TASKS[t]["lang"] for t in tasks if "own-text" in TASKS[t]["uses"]}
            if len(langs) != 1:
                p.error(f"--own-text {value}: the selected tasks with cluster templates are of "
                        f"{sorted(langs)}: write LANG=FILE or TASK=FILE")
            key, path = langs.pop(), value
        out[key] = Path(path).resolve()
    return out


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA, help="the corpora folder (default ../shared/data)")
    p.add_argument("--tasks", default=",".join(TASKS), help=f"comma-separated from {', '.join(TASKS)}")
    p.add_argument("--sources", default=",".join(SOURCES),
                   help=f"comma-separated from {', '.join(SOURCES)} (none always runs: the deltas need it)")
    p.add_argument("--ja-clusters", type=Path, default=None,
                   help="vector clusters for morph-ja: a PATH<TAB>WORD table of python -m spacy_adf vector-clusters")
    p.add_argument("--ja-cluster-words", type=int, default=0,
                   help="cluster_words for --ja-clusters: the most frequent words kept (0: all)")
    p.add_argument("--ja-words", type=Path, default=None,
                   help="lexicon for seg-ja: a word list, e.g. of python -m spacy_adf vector-words")
    p.add_argument("--ja-vectors", type=Path, default=None,
                   help="word vectors for the real-valued vector column (no task reads them at this commit)")
    p.add_argument("--own-text", action="append", default=[], metavar="[TASK=|LANG=]FILE",
                   help="raw text, words separated by spaces, clustered by python -m spacy_adf clusters for "
                        "the own-text column of that task or language (default: each task's training text)")
    p.add_argument("--pos-annotations", default="auto",
                   help="np's POS: an annotations.spacy of spacy_adf jackknife, 'gold', or 'auto' (default: "
                        "training/jackknife/pos_conll2000/annotations.spacy if it exists, else gold)")
    p.add_argument("--pos-model", type=Path, default=None,
                   help="the POS tagger bio sources (default: pos-en's none model of this run)")
    p.add_argument("--limit", type=int, default=0, help="first N training sentences (smoke runs)")
    p.add_argument("--dev-limit", type=int, default=0, help="first N dev sentences (smoke runs)")
    p.add_argument("--max-steps", type=int, default=0, help="stop each training after N steps (smoke runs)")
    p.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR,
                   help=f"the trained models and logs (default {DEFAULT_WORKDIR}, kept)")
    p.add_argument("--out-json", type=Path, default=None,
                   help=f"default {DEFAULT_JSON.relative_to(REPO)} ({SMOKE_JSON} for smoke runs)")
    p.add_argument("--out-md", type=Path, default=None,
                   help=f"default docs/benchmarks.md ({SMOKE_MD} for smoke runs)")
    args = p.parse_args(argv)
    args.tasks = split_list(args.tasks, TASKS, "--tasks", p)
    args.sources = split_list("none," + args.sources, SOURCES, "--sources", p)
    args.data = args.data.resolve()
    args.own_text = parse_own_text(args.own_text, args.tasks, p)
    for name in ("ja_clusters", "ja_words", "ja_vectors", "pos_model"):
        path = getattr(args, name)
        if path is not None and str(path) == ".":
            setattr(args, name, None)  # project.yml passes '' for an empty var
        elif path is not None and not path.exists():
            p.error(f"--{name.replace('_', '-')} {path}: no such file or folder")
        elif path is not None:
            setattr(args, name, path.resolve())
    for text in args.own_text.values():
        if not text.is_file():
            p.error(f"--own-text {text}: no such file")
    args.pos_annotations = {"auto": JACKKNIFED_POS if JACKKNIFED_POS.exists() else None,
                            "gold": None}.get(args.pos_annotations, Path(args.pos_annotations))
    if args.pos_annotations is not None and not args.pos_annotations.exists():
        p.error(f"--pos-annotations {args.pos_annotations}: no such file")
    smoke = bool(args.limit or args.dev_limit or args.max_steps)
    if args.out_json is None:
        args.out_json = SMOKE_JSON if smoke else DEFAULT_JSON
    if args.out_md is None:
        args.out_md = SMOKE_MD if smoke else BENCHMARKS_MD
    return args


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    workdir = args.workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    report = run(args, workdir, argv)
    publish(report, args.out_json, args.out_md, NAME, markdown_section(report))
    say(f"wrote {args.out_json} and {args.out_md} in {report['total_wall_seconds'] / 60:.1f} min")
    if report["failures"]:
        say(f"FAILED: {', '.join(report['failures'])}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
