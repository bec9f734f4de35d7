"""Training as the user feels it: the whole `spacy train` process of every
shipped CRF config, next to the reference tools, in one run.

For every selected config (``--configs``), one ``python -m spacy train``
child process with the config as shipped (only the data paths, the logs and
the output folder are given on the command line), run alone on the machine:

* wall time from the process start to the first evaluation reaching the
  target score, and to the end of the process;
* where the time went: start-up (interpreter, imports, config, building the
  nlp object), initialize (``nlp.initialize``: corpus reading, labels,
  feature tables; plus the training loop's own set-up and its second reading
  of the training corpus before the first update), training (the updates),
  evaluation (dev corpus reading plus ``Language.evaluate``), saving
  (checkpoints after each evaluation and the final ``model-last``) and exit
  (interpreter shutdown);
* peak RSS of the ``spacy train`` process (``ru_maxrss`` through
  ``os.wait4``, reaped by a bare launcher process: a child's ``ru_maxrss``
  starts at its forking parent's peak, and this benchmark's own process
  loads models);
* tagging speed of ``model-last`` through ``nlp.pipe`` on the config's dev
  corpus (tokens/s over the reader's Docs, copied before timing; characters/s
  over raw texts for the segmenters), best of ``--repeats``, and one
  in-training evaluation over that ``nlp.pipe`` time.

Timing: the parent notes ``time.time()`` right before it starts the child
and when ``os.wait4`` returns; ``spacy_adf.TimingLogger.v1`` (its
``process_path``, set with ``--training.logger.process_path``) writes the
child's time line in ``time.time()`` stamps: the logger factory's first call
(spaCy's ``init_nlp`` resolving ``[training]``, just before the corpora and
``nlp.initialize``) = end of start-up; its last call (spaCy's ``train``
resolving ``[training]`` again, right after initialize) = end of initialize;
logger setup; the first ``nlp.update``; per evaluation the end of the step's
last ``finish_update``, the start and end of ``Language.evaluate`` and the
log call (after spaCy saved the checkpoint); the end of the training loop;
and an ``atexit`` hook (after ``model-last`` was saved). Everything is
reported in seconds since the parent started the child; the child's own
process start (``/proc/self/stat``) is recorded as a check. The time to the
target is the log call of the first evaluation whose main score (times 100)
reaches the target, i.e. when ``spacy train`` prints it and ``model-best``
holds it.

Reference tools, same run, same machine, one job at a time:

* python-crfsuite L-BFGS (``benchmarks.chunking``'s worker: the ADF paper's
  chunking templates, ``c2=1.0, max_iterations=1000``) on CoNLL-2000 base NP
  and all phrases: feature extraction + ``Trainer.append``, ``train()``, the
  whole child process, its peak RSS, tokens/s on the test set;
* spacy-pkuseg on Weibo (``benchmarks.segmentation``'s runner): the whole
  ``spacy_pkuseg.train`` process with ``--pkuseg-iters`` passes (default 2:
  its pass takes ~100 s here, its 20 default passes ~43 minutes; the peak RSS
  is that of the feature and weight tables, built before the first pass),
  characters/s of ``cut``.

Ratios of issue 17's "done when" (targets in brackets): base NP and all
phrases, process start -> first evaluation at the target F1 over crfsuite
L-BFGS feature extraction + ``train()`` (<= 0.30); peak RSS over crfsuite's
(<= 1.3) and over spacy-pkuseg's on Weibo (<= 1.0); one evaluation of the
CoNLL-2000 test set (the configs' dev file here) over ``nlp.pipe`` on the
same Docs (<= 2).

    python -m benchmarks.training_process                  # everything (~35 min, idle 2 cores)
    python -m benchmarks.training_process --quick          # smoke run (~3 min)
    python -m benchmarks.training_process --configs np,all --references crfsuite
    python -m benchmarks.training_process --configs issue17   # np, all, weibo, jnlpba_pos (+pos)

Output: ``metrics/bench_training_process.json`` and the section between
``<!-- bench_training_process:start -->`` and ``<!-- ..:end -->`` in
docs/benchmarks.md. Only the standard library is imported at top level.
"""
import argparse
import math
import os
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from benchmarks.config_epochs import epoch_overrides, epochs_of
from benchmarks.harness import (BENCHMARKS_MD, DATA, REPO, fmt, machine_info, markers, publish, read_jsonl,
                                repo_state, run_child, write_json)

NAME = "bench_training_process"
DEFAULT_JSON = REPO / "metrics" / "bench_training_process.json"
# smoke runs do not overwrite the recorded figures unless told to
QUICK_JSON = Path(tempfile.gettempdir()) / "bench_training_process.quick.json"
QUICK_MD = Path(tempfile.gettempdir()) / "bench_training_process.quick.md"
MD_START, MD_END = markers(NAME)
PIPE_BATCH_SIZE = 256

# Every shipped `spacy train` config of the CRF components (adf_tagger,
# adf_segmenter). paths: config [paths] values, relative to --data (except
# pos_model, filled from the pos run). target: main score (x100) to reach;
# None = the best logged score minus NEAR_BEST points.
CONFIGS: Dict[str, Dict[str, Any]] = {
    "pos": {"title": "POS tagger, CoNLL-2000 (WSJ) -> test", "config": "configs/pos_conll2000.cfg",
            "paths": {"train": "conll2000/train.txt", "dev": "conll2000/test.txt"},
            "unit": "tokens", "target": None},
    "np": {"title": "base-NP chunker, CoNLL-2000 -> test", "config": "configs/chunking_np.cfg",
           "paths": {"train": "conll2000/train.txt", "dev": "conll2000/test.txt"},
           "unit": "tokens", "target": 94.5, "crfsuite_task": "np"},
    "all": {"title": "all-phrase chunker, CoNLL-2000 -> test", "config": "configs/chunking.cfg",
            "paths": {"train": "conll2000/train.txt", "dev": "conll2000/test.txt"},
            "unit": "tokens", "target": 94.0, "crfsuite_task": "all"},
    "weibo": {"title": "segmenter, NLPCC-2016 Weibo -> dev", "config": "configs/seg_zh_weibo.cfg",
              "paths": {"train": "nlpcc2016_weibo/nlpcc2016-word-seg-train.dat",
                        "dev": "nlpcc2016_weibo/nlpcc2016-wordseg-dev.dat"},
              "unit": "chars", "target": 94.0, "pkuseg": True},
    "gsd": {"title": "segmenter, UD Chinese GSD -> dev", "config": "configs/seg_zh_gsd.cfg",
            "paths": {"train": "ud_chinese_gsd_r1.4/zh-ud-train.conllu",
                      "dev": "ud_chinese_gsd_r1.4/zh-ud-dev.conllu"},
            "unit": "chars", "target": None},
    "kwdlc_seg": {"title": "segmenter, KWDLC -> dev", "config": "configs/seg_ja_kwdlc.cfg",
                  "paths": {"train": "kwdlc/train.knp", "dev": "kwdlc/dev.knp"},
                  "unit": "chars", "target": None},
    "morph": {"title": "3 morph taggers, KWDLC -> dev", "config": "configs/morph_ja_kwdlc.cfg",
              "paths": {"train": "kwdlc/train.knp", "dev": "kwdlc/dev.knp"},
              "unit": "tokens", "target": None},
    "bunsetsu": {"title": "bunsetsu chunker, KWDLC -> dev", "config": "configs/bunsetsu_ja_kwdlc.cfg",
                 "paths": {"train": "kwdlc/train.knp", "dev": "kwdlc/dev.knp"},
                 "unit": "tokens", "target": None},
    "jnlpba_pos": {"title": "Bio-NER + WSJ POS, JNLPBA train 9/10 -> heldout 1/10",
                   "config": "configs/bioner_jnlpba_pos.cfg", "paths": {"jnlpba": "jnlpba"},
                   "unit": "tokens", "target": None, "needs_pos": True},
    "jnlpba": {"title": "Bio-NER without POS, JNLPBA train 9/10 -> heldout 1/10",
               "config": "configs/bioner_jnlpba.cfg", "paths": {"jnlpba": "jnlpba"},
               "unit": "tokens", "target": None},
    "ncbi": {"title": "Bio-NER, NCBI-disease -> devel", "config": "configs/bioner_ncbi.cfg",
             "paths": {"bioner": "bioner"}, "unit": "tokens", "target": None},
    "bc5cdr": {"title": "Bio-NER, BC5CDR -> devel", "config": "configs/bioner_bc5cdr.cfg",
               "paths": {"bioner": "bioner"}, "unit": "tokens", "target": None},
}
# bioner_jnlpba.cfg is the variant without POS; the shipped Bio pipeline uses bioner_jnlpba_pos
DEFAULT_CONFIGS = [k for k in CONFIGS if k != "jnlpba"]
QUICK_CONFIGS = ["np", "all", "weibo"]
CONFIG_GROUPS = {"shipped": DEFAULT_CONFIGS, "every": list(CONFIGS),
                 "issue17": ["np", "all", "weibo", "jnlpba_pos"], "quick": QUICK_CONFIGS}
NEAR_BEST = 0.1
REFERENCES = ["crfsuite", "pkuseg"]
DONE_WHEN = {  # ratio key: (description, target, comparison)
    "np_time_to_target_over_crfsuite": (
        "base NP: process start -> first evaluation at F1 >= 94.5, over crfsuite L-BFGS "
        "feature extraction + train()", 0.30),
    "all_time_to_target_over_crfsuite": (
        "all phrases: process start -> first evaluation at F1 >= 94.0, over crfsuite L-BFGS "
        "feature extraction + train()", 0.30),
    "np_peak_rss_over_crfsuite": ("base NP: peak RSS of spacy train over crfsuite's", 1.3),
    "all_peak_rss_over_crfsuite": ("all phrases: peak RSS of spacy train over crfsuite's", 1.3),
    "weibo_peak_rss_over_pkuseg": ("Weibo: peak RSS of spacy train over spacy-pkuseg's", 1.0),
    "np_eval_over_pipe": ("one evaluation of the CoNLL-2000 test set (base NP) over nlp.pipe "
                          "on the same Docs", 2.0),
    "all_eval_over_pipe": ("one evaluation of the CoNLL-2000 test set (all phrases) over "
                           "nlp.pipe on the same Docs", 2.0),
}


# ------------------------------------------------------------ pure parts


def read_process_log(path: Path) -> Dict[str, Any]:
    """The TimingLogger.v1 process log as {event: record} for the one-off
    events and "evaluations": [records]."""
    out: Dict[str, Any] = {"evaluations": []}
    for rec in read_jsonl(path):
        if rec.get("event") == "evaluation":
            out["evaluations"].append(rec)
        else:
            out[rec.get("event")] = rec
    return out


def phase_breakdown(log: Dict[str, Any], t_start: float, t_end: float) -> Dict[str, Any]:
    """Seconds since the parent started the child (``t_start``, time.time())
    of each event, and the phases, which add up to the whole wall time.

    startup = start -> init_start; initialize = init_start -> first update
    (nlp.initialize, loop set-up, the loop's second corpus reading);
    evaluation = the evaluations' measured seconds; saving = checkpoints
    after evaluations + finalize -> exit (model-last); exit = exit -> end;
    training = first update -> finalize minus evaluations and checkpoints.
    Missing events leave the phases that need them None."""
    def at(event: str) -> Optional[float]:
        rec = log.get(event)
        return None if rec is None else rec["time"] - t_start

    total = t_end - t_start
    events = {e: at(e) for e in ("init_start", "init_end", "setup", "first_update",
                                 "finalize", "exit")}
    proc = log.get("process") or {}
    start_offset = (proc["process_start_time"] - t_start
                    if proc.get("process_start_time") is not None else None)
    evals = log["evaluations"]
    eval_secs = [e["eval_seconds"] for e in evals if e.get("eval_seconds") is not None]
    save_secs = [e["save_seconds"] for e in evals if e.get("save_seconds") is not None]
    timed = bool(evals) and len(eval_secs) == len(evals) and len(save_secs) == len(evals)
    ev = events
    phases: Dict[str, Optional[float]] = dict.fromkeys(
        ("startup", "initialize", "training", "evaluation", "saving", "exit"))
    detail: Dict[str, Optional[float]] = dict.fromkeys(
        ("nlp_initialize", "loop_setup", "train_corpus_reread", "checkpoint_saves",
         "final_save", "dev_read"))
    if ev["init_start"] is not None:
        phases["startup"] = ev["init_start"]
    if ev["init_start"] is not None and ev["first_update"] is not None:
        phases["initialize"] = ev["first_update"] - ev["init_start"]
    if ev["init_start"] is not None and ev["init_end"] is not None:
        detail["nlp_initialize"] = ev["init_end"] - ev["init_start"]
    if ev["init_end"] is not None and ev["setup"] is not None:
        detail["loop_setup"] = ev["setup"] - ev["init_end"]
    if ev["setup"] is not None and ev["first_update"] is not None:
        detail["train_corpus_reread"] = ev["first_update"] - ev["setup"]
    if timed:
        phases["evaluation"] = sum(eval_secs)
        detail["checkpoint_saves"] = sum(save_secs)
        detail["dev_read"] = sum(e.get("dev_read_seconds") or 0.0 for e in evals)
    if ev["finalize"] is not None and ev["exit"] is not None:
        detail["final_save"] = ev["exit"] - ev["finalize"]
        phases["exit"] = total - ev["exit"]
        if timed:
            phases["saving"] = detail["checkpoint_saves"] + detail["final_save"]
    if timed and ev["first_update"] is not None and ev["finalize"] is not None:
        phases["training"] = (ev["finalize"] - ev["first_update"] - phases["evaluation"]
                              - detail["checkpoint_saves"])
    shares = {k: (v / total if v is not None and total > 0 else None) for k, v in phases.items()}
    return {"total_seconds": total, "events": events, "phases": phases, "shares": shares,
            "detail": detail, "child_process_start_offset": start_offset,
            "evaluation_seconds_each": eval_secs}


def evaluation_timeline(log: Dict[str, Any], t_start: float) -> List[Dict[str, Any]]:
    """Per evaluation: epoch, step, score (percent), seconds since the child
    started when the score was known (evaluate end) and when it was logged."""
    out = []
    for e in log["evaluations"]:
        score = e.get("score")
        out.append({
            "epoch": e.get("epoch"), "step": e.get("step"),
            "score": None if score is None else 100.0 * score,
            "scored_at": (e["evaluate_end_time"] - t_start
                          if e.get("evaluate_end_time") is not None else None),
            "logged_at": e["time"] - t_start,
            "eval_seconds": e.get("eval_seconds"),
        })
    return out


def time_to_target(timeline: List[Dict[str, Any]], target: Optional[float],
                   near_best: float = NEAR_BEST) -> Dict[str, Any]:
    """The first evaluation reaching `target` (percent); with target None,
    the best logged score minus `near_best` points."""
    scores = [e["score"] for e in timeline if e["score"] is not None]
    derived = target is None
    if derived:
        if not scores:
            return {"target": None, "target_derived": True, "reached": False,
                    "time_to_target": None, "evaluation": None}
        target = max(max(scores) - near_best, 0.0)
    hit = next((e for e in timeline if e["score"] is not None and e["score"] >= target - 1e-9),
               None)
    return {"target": target, "target_derived": derived, "reached": hit is not None,
            "time_to_target": hit["logged_at"] if hit else None,
            "time_to_target_scored": hit["scored_at"] if hit else None,
            "evaluation": hit}


def ratio(a: Optional[float], b: Optional[float]) -> Optional[float]:
    if a is None or b is None or b == 0:
        return None
    return a / b


def done_when_ratios(results: Dict[str, Dict], references: Dict[str, Dict]) -> Dict[str, Dict]:
    """The ratios of issue 17's done-when list, each with its target and
    whether it is met (None when a side is missing)."""
    values: Dict[str, Optional[float]] = {}
    for key in ("np", "all"):
        adf, crf = results.get(key), references.get(f"crfsuite-{key}")
        if adf and crf:
            values[f"{key}_time_to_target_over_crfsuite"] = ratio(
                adf["target"]["time_to_target"],
                crf["append_seconds"] + crf["train_seconds"])
            values[f"{key}_peak_rss_over_crfsuite"] = ratio(adf["peak_rss_mb"],
                                                            crf["peak_rss_mb"])
        if adf:
            values[f"{key}_eval_over_pipe"] = adf["speed"].get("eval_over_pipe")
    adf, pk = results.get("weibo"), references.get("pkuseg-weibo")
    if adf and pk:
        values["weibo_peak_rss_over_pkuseg"] = ratio(adf["peak_rss_mb"], pk["peak_rss_mb"])
    out = {}
    for key, (desc, target) in DONE_WHEN.items():
        if key not in values:
            continue
        v = values[key]
        out[key] = {"description": desc, "value": v, "target": target,
                    "met": None if v is None else v <= target}
    return out


# ---------------------------------------------------------------- markdown


def _pct(share: Optional[float]) -> str:
    return "n/a" if share is None else f"{100 * share:.0f}%"


def _phase_cell(r: Dict, phase: str) -> str:
    p = r["process"]
    return f"{fmt(p['phases'][phase], '.1f')} ({_pct(p['shares'][phase])})"


def markdown_section(report: Dict) -> str:
    m = report["machine"]
    s = report["settings"]
    lines = [
        "## Training as the user feels it: whole `spacy train` processes", "",
        "Regenerate (from the repository root, with the project's venv Python, on an idle "
        "machine):", "", f"    {report['command']}", "",
        f"Machine: {m['cores']} cores, {m['cpu']}; load average at start "
        f"{', '.join(f'{x:.2f}' for x in m['load_average_at_start'])}; Python {m['python']}, "
        f"spaCy {m['spacy']}, python-crfsuite {m['python_crfsuite']}, spacy-pkuseg "
        f"{m['spacy_pkuseg']}, spacy-adf {m['spacy_adf']} ({m['git_commit']}). Run on "
        f"{report['started']}, total {report['total_wall_seconds'] / 60:.1f} min."
        + (f" **Smoke run** (first {s['limit']} training / {s['dev_limit']} dev sentences, "
           f"{s['epochs']} epochs): the figures say nothing about the real runs."
           if s.get("quick") or s.get("limit") else ""), "",
        "Each config runs as shipped (`python -m spacy train CONFIG` with only data paths, "
        "logs and output given), one process at a time. Seconds since the benchmark started "
        "the process; phases from `spacy_adf.TimingLogger.v1`'s process log (`process_path`): "
        "start-up = imports, config, building the nlp object; initialize = `nlp.initialize` "
        "(corpus reading, labels, feature tables) plus the loop's set-up and its second "
        "reading of the training corpus; evaluation = dev corpus reading + "
        "`Language.evaluate`, measured around each call; saving = the checkpoint after each "
        "evaluation and the final `model-last`; exit = interpreter shutdown; training = the "
        "rest. Time to target = when the first evaluation reaching the target is logged "
        f"(targets marked * are the best logged score minus {NEAR_BEST}). Speed: `model-last` "
        "through `nlp.pipe` on the dev corpus (tokens/s over the reader's Docs; chars/s over "
        f"raw texts for segmenters), best of {s['repeats']}; eval/pipe = median in-training "
        "evaluation over that `nlp.pipe` time.", "",
        "| config | target | reached at s (epoch) | total s | start-up s | initialize s "
        "| training s | evaluation s | saving s | exit s | peak RSS MB | speed | eval/pipe |",
        "|---" * 13 + "|",
    ]
    for key, r in report["results"].items():
        t = r["target"]
        target = ("n/a" if t["target"] is None
                  else f"{t['target']:.2f}{'*' if t['target_derived'] else ''}")
        reached = ("not reached" if not t["reached"]
                   else f"{t['time_to_target']:.1f} ({t['evaluation']['epoch']})")
        sp = r["speed"]
        speed = f"{fmt(sp.get('per_second'), ',.0f')} {sp.get('unit', '')}/s"
        lines.append(
            f"| {key}: `{r['config']}` | {target} | {reached} | "
            f"{r['process']['total_seconds']:.1f} | " + " | ".join(
                _phase_cell(r, ph) for ph in ("startup", "initialize", "training",
                                              "evaluation", "saving", "exit"))
            + f" | {fmt(r['peak_rss_mb'], ',.0f')} | {speed} | "
              f"{fmt(sp.get('eval_over_pipe'), '.2f')} |")
    refs = report["references"]
    if refs:
        lines += ["", "Reference tools (same run):", "",
                  "| tool | data | final score | passes | feature extr. s | train s "
                  "| whole process s | peak RSS MB | speed |", "|---" * 9 + "|"]
        for key, r in refs.items():
            if key.startswith("crfsuite"):
                lines.append(
                    f"| python-crfsuite L-BFGS | {r['task_title']} | F1 "
                    f"{r['f1']:.2f} | {r['passes']} | {r['append_seconds']:.1f} | "
                    f"{r['train_seconds']:.1f} | {r['child_wall_seconds']:.1f} | "
                    f"{r['peak_rss_mb']:,.0f} | {r['tokens_per_second']:,.0f} tokens/s |")
            else:
                lines.append(
                    f"| spacy-pkuseg | Weibo -> dev | F {fmt(r.get('f'))} (own log "
                    f"{fmt(r['own_f_last'])}) | {r['passes']} | (in process) | "
                    f"{fmt(sum(r['seconds_per_pass']), '.1f')} | {r['train_wall_seconds']:.1f} | "
                    f"{r['peak_rss_mb']:,.0f} | {fmt(r.get('chars_per_s'), ',.0f')} chars/s |")
        pk = refs.get("pkuseg-weibo")
        if pk and pk["passes"] < 20:
            lines += ["", f"spacy-pkuseg ran {pk['passes']} of its default 20 passes (a pass "
                          f"takes {pk['mean_seconds_per_pass']:.0f} s here); 20 passes would "
                          f"take about {pk['projected_20_pass_seconds']:.0f} s (this run's "
                          "time outside the passes plus 20 mean passes)."]
    dw = report["done_when"]
    if dw:
        lines += ["", "Issue 17, done when:", "", "| ratio | value | target | met |",
                  "|---|---|---|---|"]
        for key, d in dw.items():
            met = "n/a" if d["met"] is None else ("yes" if d["met"] else "**no**")
            lines.append(f"| {d['description']} | {fmt(d['value'], '.3f')} | "
                         f"<= {d['target']} | {met} |")
    lines += ["", "Details per config (seconds): nlp.initialize / loop set-up / second "
                  "training-corpus reading / dev reading (inside evaluation) / checkpoint saves "
                  "/ final save; evaluations; logged scores."]
    for key, r in report["results"].items():
        d = r["process"]["detail"]
        ev = r["process"]["evaluation_seconds_each"]
        lines.append(
            f"- {key}: {fmt(d['nlp_initialize'], '.1f')} / {fmt(d['loop_setup'], '.2f')} / "
            f"{fmt(d['train_corpus_reread'], '.1f')} / {fmt(d['dev_read'], '.2f')} / "
            f"{fmt(d['checkpoint_saves'], '.1f')} / {fmt(d['final_save'], '.1f')}; "
            f"{len(ev)} evaluations of {fmt(statistics.median(ev) if ev else None, '.2f')} s "
            f"(median); scores " + ", ".join(fmt(e["score"]) for e in r["evaluations"]))
    for name, err in (report.get("failures") or {}).items():
        last = [line.strip() for line in err.splitlines() if line.strip()][-1:] or [""]
        lines += ["", f"**{name} failed:** `{last[0][:300]}` (the JSON has the log's end)"]
    if report.get("repo_changed_during_run"):
        lines += ["", "**Warning: the repository changed during this run; the figures may "
                      "mix code versions.**"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- children

# ---------------------------------------------------------------- runners


def config_overrides(key: str, data: Path, pos_model: Optional[Path],
                     configs: Dict[str, Dict[str, Any]] = CONFIGS) -> Dict[str, str]:
    spec = configs[key]
    out = {f"paths.{name}": str(data / rel) for name, rel in spec["paths"].items()}
    if spec.get("needs_pos"):
        out["paths.pos_model"] = str(pos_model)
    return out


def batch_size_of(config: Path) -> int:
    from spacy.util import load_config

    return int(load_config(config, interpolate=False)["training"]["batcher"]["size"])


def train_command(key: str, overrides: Dict[str, str], job: Path, args,
                  configs: Dict[str, Dict[str, Any]] = CONFIGS) -> List[str]:
    config = REPO / configs[key]["config"]
    cmd = [sys.executable, "-m", "spacy", "train", str(config)]
    for name, value in overrides.items():
        cmd += [f"--{name}", value]
    cmd += ["--paths.log", str(job / "log.jsonl"),
            "--training.logger.process_path", str(job / "process.jsonl"),
            "--output", str(job / "output")]
    steps = None
    if args.limit:
        steps = -(-args.limit // batch_size_of(config))
        cmd += ["--corpora.train.limit", str(args.limit), "--training.eval_frequency", str(steps)]
    if args.dev_limit:
        cmd += ["--corpora.dev.limit", str(args.dev_limit)]
    if args.epochs or steps:
        from spacy.util import load_config

        steps = steps or int(load_config(config, interpolate=False)["training"]["eval_frequency"])
        cmd += epoch_overrides(config, args.epochs or epochs_of(config), steps)
    return cmd


def pipe_speed(key: str, model_dir: Path, overrides: Dict[str, str], args,
               configs: Dict[str, Dict[str, Any]] = CONFIGS) -> Dict[str, Any]:
    """model-last through nlp.pipe over the config's dev corpus."""
    import spacy
    from spacy.util import load_config, resolve_dot_names

    nlp = spacy.load(model_dir)
    cfg = load_config(REPO / configs[key]["config"], overrides=dict(overrides),
                      interpolate=False)
    if args.dev_limit:
        cfg["corpora"]["dev"]["limit"] = args.dev_limit
    dev = resolve_dot_names(cfg.interpolate(), ["corpora.dev"])[0]
    examples = list(dev(nlp))
    unit = configs[key]["unit"]
    best = math.inf
    if unit == "chars":
        inputs = [eg.predicted.text for eg in examples]
        size = sum(map(len, inputs))
        for _ in range(args.repeats):
            start = time.perf_counter()
            for _doc in nlp.pipe(inputs, batch_size=PIPE_BATCH_SIZE):
                pass
            best = min(best, time.perf_counter() - start)
    else:
        docs = [eg.predicted for eg in examples]
        size = sum(len(d) for d in docs)
        for _ in range(args.repeats):
            copies = [d.copy() for d in docs]
            start = time.perf_counter()
            for _doc in nlp.pipe(copies, batch_size=PIPE_BATCH_SIZE):
                pass
            best = min(best, time.perf_counter() - start)
    return {"unit": unit, "n_docs": len(examples), "size": size, "pipe_seconds": best,
            "per_second": size / best if best > 0 else None}


def bench_config(key: str, args, workdir: Path, pos_model: Optional[Path],
                 configs: Dict[str, Dict[str, Any]] = CONFIGS) -> Dict[str, Any]:
    """One `spacy train` child of configs[key] (CONFIGS' keys by default):
    its process figures, evaluations, time to the target and pipe speed."""
    job = workdir / key
    if job.exists():
        shutil.rmtree(job)
    job.mkdir(parents=True)
    overrides = config_overrides(key, args.data, pos_model, configs)
    cmd = train_command(key, overrides, job, args, configs)
    print(f"[{NAME}] {key}: {shlex.join(cmd)}", flush=True)
    res = run_child(cmd, job / "train.log")
    t_start, t_end = res["start_time"], res["end_time"]
    log = read_process_log(job / "process.jsonl")
    process = phase_breakdown(log, t_start, t_end)
    timeline = evaluation_timeline(log, t_start)
    target = time_to_target(timeline, configs[key]["target"])
    speed = pipe_speed(key, job / "output" / "model-last", overrides, args, configs)
    ev = process["evaluation_seconds_each"]
    speed["eval_over_pipe"] = ratio(statistics.median(ev) if ev else None, speed["pipe_seconds"])
    out = {"title": configs[key]["title"], "config": configs[key]["config"],
           "command": shlex.join(cmd), "peak_rss_mb": res["peak_rss_mb"],
           "child_wall_seconds": res["wall_seconds"], "process": process,
           "evaluations": timeline, "target": target, "speed": speed,
           "model_dir": str(job / "output" / "model-last")}
    print(f"[{NAME}] {key}: total {process['total_seconds']:.1f} s, target "
          f"{fmt(target['target'])} at {fmt(target['time_to_target'], '.1f', 'not reached')} s, "
          f"peak RSS {res['peak_rss_mb']:,.0f} MB, {fmt(speed['per_second'], ',.0f')} "
          f"{speed['unit']}/s", flush=True)
    return out


def bench_crfsuite(task: str, args, workdir: Path) -> Dict[str, Any]:
    from benchmarks import chunking
    from spacy_adf.features.presets import chunking_templates

    train_path = args.data / "conll2000" / "train.txt"
    if args.limit:
        train_path = workdir / f"conll2000-train.first{args.limit}.txt"
        chunking.write_conll2000(train_path, chunking.read_conll2000(
            args.data / "conll2000" / "train.txt", args.limit))
    test = chunking.read_conll2000(args.data / "conll2000" / "test.txt", args.dev_limit)
    print(f"[{NAME}] crfsuite-{task} (L-BFGS)", flush=True)
    r = chunking.bench_crfsuite("crfsuite-lbfgs", task, train_path, test,
                                list(chunking_templates()), workdir / "crfsuite",
                                run=run_child)
    r["task_title"] = "CoNLL-2000 " + chunking.TASKS[task]["title"]
    print(f"[{NAME}] crfsuite-{task}: F1 {r['f1']:.2f}, features + train "
          f"{r['append_seconds'] + r['train_seconds']:.1f} s, whole {r['child_wall_seconds']:.1f} s, "
          f"peak RSS {r['peak_rss_mb']:,.0f} MB", flush=True)
    return r


def bench_pkuseg(args, workdir: Path) -> Dict[str, Any]:
    from benchmarks import segmentation as seg

    spec = seg.DATASETS["weibo"]
    job = workdir / "pkuseg-weibo"
    job.mkdir(parents=True, exist_ok=True)
    train = seg.read_words(args.data / spec["train"], spec["format"], args.limit)
    gold = seg.read_words(args.data / spec["dev"], spec["format"], args.dev_limit)
    train_file = seg.write_sighan(job / "train.txt", train)
    dev_file = seg.write_sighan(job / "dev.txt", gold)
    cmd = seg.pkuseg_command(train_file, dev_file, job / "model", args.pkuseg_iters)
    print(f"[{NAME}] spacy-pkuseg, Weibo, {args.pkuseg_iters} passes", flush=True)
    child = run_child(cmd, job / "train.log", cwd=job)
    r = seg.pkuseg_result(child, job / "train.log")
    outside = r["train_wall_seconds"] - sum(r["seconds_per_pass"])
    r["projected_20_pass_seconds"] = outside + 20 * r["mean_seconds_per_pass"]
    r["own_f_last"] = r["own_f_per_pass"][-1] if r["own_f_per_pass"] else None
    texts = ["".join(s) for s in gold]
    # best of 2 at most: a pass over the Weibo dev set takes ~15 s
    words, chars_per_s, chars_per_s_docs = seg.pkuseg_segment(job / "model", texts, None,
                                                              min(args.repeats, 2))
    r.update(seg.score(gold, words, seg.lexicon_of(train)), chars_per_s=chars_per_s,
             chars_per_s_docs=chars_per_s_docs, command=shlex.join(cmd))
    print(f"[{NAME}] spacy-pkuseg: F {r['f']:.2f}, whole {r['train_wall_seconds']:.1f} s, "
          f"peak RSS {r['peak_rss_mb']:,.0f} MB", flush=True)
    return r



# ------------------------------------------- optional: crfsuite on JNLPBA


def bio_tags(eg) -> List[str]:
    """Gold BIO entity tags on the predicted tokens (misaligned tokens: O)."""
    out, prev = [], None
    for tag in eg.get_aligned_ner():
        if not tag or tag == "O" or tag == "-":
            out.append("O")
            prev = None
            continue
        move, label = tag.split("-", 1)
        out.append(("I-" if move in ("I", "L") and prev == label else "B-") + label)
        prev = None if move in ("L", "U") else label
    return out


def template_attributes(templates, doc) -> List[List[str]]:
    """crfsuite attributes of a Doc: template index and hash of every
    active feature of the adf model's own templates (the same features)."""
    return [[f"{j}:{h}" for j, h in enumerate(row) if h]
            for row in templates.hashes(doc).tolist()]


def crfsuite_attrs_worker(spec_path: str) -> None:
    """Child process: read attribute sequences, train crfsuite L-BFGS, write a result JSON."""
    import json

    from benchmarks.chunking import train_crfsuite

    spec = json.loads(Path(spec_path).read_text(encoding="utf8"))

    def sequences():
        with open(spec["train"], encoding="utf8") as file_:
            for line in file_:
                seq = json.loads(line)
                yield seq["x"], seq["y"]

    Path(spec["result"]).write_text(json.dumps(train_crfsuite(spec, sequences())), encoding="utf8")


def bench_crfsuite_jnlpba(adf: Dict[str, Any], args, workdir: Path) -> Dict[str, Any]:
    """python-crfsuite L-BFGS on JNLPBA with the adf model's own templates
    (POS from the same WSJ tagger): features extracted in this process
    (POS tagging + template hashes, timed), training in a child."""
    import json

    import pycrfsuite
    import spacy
    from spacy.util import load_config, resolve_dot_names

    from benchmarks.chunking import tag_prf
    from benchmarks.harness import module_command

    key = "jnlpba_pos"
    job = workdir / "crfsuite-jnlpba"
    job.mkdir(parents=True, exist_ok=True)
    nlp = spacy.load(adf["model_dir"])
    pos, ner = nlp.get_pipe("pos"), nlp.get_pipe("ner")
    templates = ner.plain_model.templates
    cfg = load_config(REPO / CONFIGS[key]["config"], interpolate=False,
                      overrides=config_overrides(key, args.data, Path(adf["model_dir"])))
    if args.limit:
        cfg["corpora"]["train"]["limit"] = args.limit
    if args.dev_limit:
        cfg["corpora"]["dev"]["limit"] = args.dev_limit
    train_corpus, dev_corpus = resolve_dot_names(cfg.interpolate(),
                                                 ["corpora.train", "corpora.dev"])

    def featurize(examples):
        docs = list(pos.pipe([eg.predicted for eg in examples], batch_size=PIPE_BATCH_SIZE))
        return [template_attributes(templates, d) for d in docs]

    train = list(train_corpus(nlp))
    feature_seconds = 0.0
    with open(job / "train.jsonl", "w", encoding="utf8") as file_:
        for i in range(0, len(train), PIPE_BATCH_SIZE):  # streamed: ~20M attributes in all
            batch = train[i:i + PIPE_BATCH_SIZE]
            start = time.perf_counter()
            xs = featurize(batch)
            feature_seconds += time.perf_counter() - start
            for eg, x in zip(batch, xs):
                file_.write(json.dumps({"x": x, "y": bio_tags(eg)}) + "\n")
    spec = {"train": str(job / "train.jsonl"), "algorithm": "lbfgs",
            "params": {"c2": 1.0, "max_iterations": args.jnlpba_crfsuite_iters},
            "model": str(job / "model.crfsuite"), "result": str(job / "result.json")}
    (job / "spec.json").write_text(json.dumps(spec), encoding="utf8")
    print(f"[{NAME}] crfsuite-jnlpba (L-BFGS, at most {args.jnlpba_crfsuite_iters} "
          f"iterations): {len(train)} sentences", flush=True)
    child = run_child(module_command("benchmarks.training_process", "--crfsuite-attrs-worker",
                                        job / "spec.json"), job / "train.log")
    trained = json.loads((job / "result.json").read_text(encoding="utf8"))
    dev = list(dev_corpus(nlp))
    tagger = pycrfsuite.Tagger()
    tagger.open(spec["model"])
    start = time.perf_counter()
    pred = [tagger.tag(x) for x in featurize(dev)]
    tag_seconds = time.perf_counter() - start
    tagger.close()
    scores = tag_prf([bio_tags(eg) for eg in dev], pred)
    n_tokens = sum(len(eg.predicted) for eg in dev)
    os.remove(job / "train.jsonl")
    r = {**scores, "task_title": "JNLPBA (templates of the adf model, WSJ POS)",
         "passes": trained["iterations"], "params": spec["params"],
         "feature_seconds_parent": feature_seconds,
         "append_seconds": feature_seconds + trained["append_seconds"],
         "train_seconds": trained["train_seconds"], "child_wall_seconds": child["wall_seconds"],
         "peak_rss_mb": child["peak_rss_mb"], "tokens_per_second": n_tokens / tag_seconds,
         "active_features": trained["active_features"]}
    print(f"[{NAME}] crfsuite-jnlpba: F1 {r['f1']:.2f}, features {feature_seconds:.1f} s + "
          f"append {trained['append_seconds']:.1f} s, train {r['train_seconds']:.1f} s, peak "
          f"RSS {r['peak_rss_mb']:,.0f} MB", flush=True)
    return r


# ----------------------------------------------------------------- main


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--configs", default=None,
                   help=f"comma-separated from {', '.join(CONFIGS)} and the groups "
                        f"{', '.join(CONFIG_GROUPS)} (default: 'shipped', every config but "
                        f"jnlpba, the variant without POS; 'every' adds it; 'issue17': np, "
                        f"all, weibo, jnlpba_pos)")
    p.add_argument("--references", default=None,
                   help="comma-separated from crfsuite, pkuseg, or 'none' (default: both; "
                        "crfsuite runs with np/all, pkuseg with weibo)")
    p.add_argument("--pkuseg-iters", type=int, default=None,
                   help="spacy-pkuseg passes (default 2; its own default is 20, ~43 min here)")
    p.add_argument("--jnlpba-crfsuite", action="store_true",
                   help="also train python-crfsuite L-BFGS on JNLPBA with the jnlpba_pos "
                        "model's templates (long: not in the default run)")
    p.add_argument("--jnlpba-crfsuite-iters", type=int, default=1000,
                   help="L-BFGS max_iterations for --jnlpba-crfsuite (CoNLL-2000: 1000)")
    p.add_argument("--crfsuite-attrs-worker", metavar="SPEC", help=argparse.SUPPRESS)
    p.add_argument("--pos-model", type=Path, default=None,
                   help="POS model for jnlpba_pos (default: the pos run's model-last)")
    p.add_argument("--limit", type=int, default=None, help="first N training sentences")
    p.add_argument("--dev-limit", type=int, default=None, help="first N dev sentences")
    p.add_argument("--epochs", type=int, default=None, help="override max_epochs")
    p.add_argument("--repeats", type=int, default=3, help="nlp.pipe passes (best of)")
    p.add_argument("--quick", action="store_true",
                   help="smoke run: np, all, weibo; 300 training / 200 dev sentences, "
                        "2 epochs, 1 pkuseg pass")
    p.add_argument("--workdir", type=Path, default=None,
                   help="keep the trained models and logs here (default: a temp dir, removed)")
    p.add_argument("--out-json", type=Path, default=None,
                   help=f"default {DEFAULT_JSON.relative_to(REPO)} ({QUICK_JSON} with --quick)")
    p.add_argument("--out-md", type=Path, default=None,
                   help=f"default docs/benchmarks.md ({QUICK_MD} with --quick)")
    args = p.parse_args(argv)
    quick = args.quick
    if args.out_json is None:
        args.out_json = QUICK_JSON if quick else DEFAULT_JSON
    if args.out_md is None:
        args.out_md = QUICK_MD if quick else BENCHMARKS_MD
    if args.configs is None:
        args.configs = ",".join(QUICK_CONFIGS if quick else DEFAULT_CONFIGS)
    configs = []
    for c in (c.strip() for c in args.configs.split(",")):
        for k in CONFIG_GROUPS.get(c, [c] if c else []):
            if k not in configs:
                configs.append(k)
    unknown = [c for c in configs if c not in CONFIGS]
    if unknown or not configs:
        p.error(f"--configs: unknown or empty {unknown}; choose from {list(CONFIGS)}")
    if any(CONFIGS[c].get("needs_pos") for c in configs) and args.pos_model is None \
            and "pos" not in configs:
        configs.insert(0, "pos")  # jnlpba_pos sources the POS tagger trained first
    if "pos" in configs:  # train it before the configs that source it
        configs.remove("pos")
        configs.insert(0, "pos")
    args.configs = configs
    refs = ",".join(REFERENCES) if args.references is None else args.references
    args.references = [] if refs == "none" else [r.strip() for r in refs.split(",") if r.strip()]
    if [r for r in args.references if r not in REFERENCES]:
        p.error(f"--references: choose from {REFERENCES} or none")
    for name, full, smoke in (("pkuseg_iters", 2, 1), ("limit", 0, 300), ("dev_limit", 0, 200),
                              ("epochs", 0, 2)):
        if getattr(args, name) is None:
            setattr(args, name, smoke if quick else full)
    args.data = args.data.resolve()
    return args


def run(args, workdir: Path, argv: List[str]) -> Dict[str, Any]:
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    t0 = time.perf_counter()
    state = repo_state()
    machine = machine_info()
    if machine["load_average_at_start"][0] > 0.5:
        print(f"[{NAME}] WARNING: load average {machine['load_average_at_start'][0]:.2f} at "
              "start; the machine is not idle", flush=True)
    results: Dict[str, Dict] = {}
    references: Dict[str, Dict] = {}
    failures: Dict[str, str] = {}
    pos_model = args.pos_model.resolve() if args.pos_model else None

    def attempt(name: str, job, *job_args):
        """Run one job; a failure is recorded and the run goes on."""
        try:
            return job(*job_args)
        except Exception as err:  # noqa: BLE001 - one failed job must not lose the others
            failures[name] = f"{type(err).__name__}: {err}"
            tail = "\n".join(failures[name].splitlines()[-12:])
            print(f"[{NAME}] {name} FAILED:\n{tail}", flush=True)
            return None

    def report(complete: bool) -> Dict[str, Any]:
        return {
            "benchmark": NAME, "complete": complete,
            "command": shlex.join(["python", "-m", "benchmarks.training_process", *argv]),
            "started": started, "total_wall_seconds": time.perf_counter() - t0,
            "repo_changed_during_run": repo_state() != state, "machine": machine,
            "units": {"*_seconds, time_to_target, *_at": "seconds since the benchmark started "
                      "the training process", "score/target": "main score x 100",
                      "peak_rss_mb": "MiB, ru_maxrss of the child"},
            "settings": {"data": str(args.data), "configs": args.configs,
                         "references": args.references, "pkuseg_iters": args.pkuseg_iters,
                         "limit": args.limit, "dev_limit": args.dev_limit,
                         "epochs": args.epochs, "repeats": args.repeats, "quick": args.quick,
                         "near_best": NEAR_BEST, "pipe_batch_size": PIPE_BATCH_SIZE},
            "results": results, "references": references, "failures": failures,
            "done_when": done_when_ratios(results, references),
        }

    for key in args.configs:
        r = attempt(key, bench_config, key, args, workdir, pos_model)
        if r is not None:
            results[key] = r
            if key == "pos" and pos_model is None:
                pos_model = Path(r["model_dir"])
        task = CONFIGS[key].get("crfsuite_task")
        if task and "crfsuite" in args.references:
            r = attempt(f"crfsuite-{task}", bench_crfsuite, task, args, workdir)
            if r is not None:
                references[f"crfsuite-{task}"] = r
        if key == "jnlpba_pos" and args.jnlpba_crfsuite and key in results:
            r = attempt("crfsuite-jnlpba", bench_crfsuite_jnlpba, results[key], args, workdir)
            if r is not None:
                references["crfsuite-jnlpba"] = r
        if CONFIGS[key].get("pkuseg") and "pkuseg" in args.references:
            r = attempt("pkuseg-weibo", bench_pkuseg, args, workdir)
            if r is not None:
                references["pkuseg-weibo"] = r
        write_json(args.out_json, report(complete=False))  # partial figures survive a crash
    final = report(complete=True)
    if final["repo_changed_during_run"]:
        print(f"[{NAME}] WARNING: the repository changed during the run", flush=True)
    return final


def main(argv: Optional[List[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.crfsuite_attrs_worker:
        crfsuite_attrs_worker(args.crfsuite_attrs_worker)
        return 0
    temporary = args.workdir is None
    workdir = Path(tempfile.mkdtemp(prefix="bench_process_")) if temporary else args.workdir
    workdir = workdir.resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"[{NAME}] configs {', '.join(args.configs)}; references "
          f"{', '.join(args.references) or 'none'}; working directory {workdir}", flush=True)
    try:
        report = run(args, workdir, argv)
    finally:
        if temporary and not os.environ.get("BENCH_KEEP_WORKDIR"):
            shutil.rmtree(workdir, ignore_errors=True)
    publish(report, args.out_json, args.out_md, NAME, markdown_section(report))
    print(f"[{NAME}] wrote {args.out_json} and {args.out_md} in "
          f"{report['total_wall_seconds'] / 60:.1f} min", flush=True)
    if report["failures"]:
        print(f"[{NAME}] FAILED: {', '.join(report['failures'])}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
