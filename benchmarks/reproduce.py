"""Regenerate the ADF paper's comparisons (Sun et al. 2014, Tables 4 and 6,
Figures 2-7) with spacy-adf: ADF vs SGD, perceptron, averaged perceptron
and L-BFGS on base-NP chunking, Bio-NER, Chinese segmentation and sentiment.

    python -m benchmarks.reproduce run --task chunking [--data ../shared/data]
    python -m benchmarks.reproduce all --jobs 2        # every task, then report
    python -m benchmarks.reproduce report              # metrics + docs + plots

Protocol (the same for every method of a task):
- one pipeline config per task (configs/), initialised from the training
  data once per method, so every method gets the same features;
- on-line methods (benchmarks.online_loop.train_online): the same
  seeded shuffle of the training set each pass, spaCy batches of 64
  examples, one optimizer step per `minibatch` samples; after each pass the
  test set is scored (with averaged weights for the averaged perceptron);
  scoring time is not training time;
- L-BFGS: scipy's L-BFGS-B on the exact objective, one pass = one function
  evaluation, the test set is scored after every iteration;
- empirical convergence as in the paper: the first pass at which the scores
  of the last five passes differ by less than 0.01 (points of F or accuracy);
  a run stops there, or at the task's pass cap (then "not converged").
Each run writes metrics/reproduction/<task>.json; `report` merges them into
metrics/reproduction.json and writes docs/reproduction.md with PNG plots.
"""
import argparse
import time
from typing import Dict, List, Optional, Sequence

from spacy.training import Example

from benchmarks.harness import DATA, REPO, Child, machine_info, module_command, write_json
from benchmarks.reproduce_report import write_report
from spacy_adf.training.contract import BatchTrainable
from benchmarks.online_loop import online_optimizer, train_online

RUN_DIR = REPO / "metrics" / "reproduction"
BATCH = 64

# The paper's settings (section 4.5): c per task, sigma per task and method.
TASKS: Dict[str, Dict] = {
    "chunking": {
        "title": "Base-NP chunking (CoNLL-2000)",
        "config": "configs/chunking_np.cfg",
        "overrides": {"paths.train": "{data}/conll2000/train.txt",
                      "paths.dev": "{data}/conll2000/test.txt"},
        "test": "corpora.dev",
        "score": "spans_chunks_f",
        "metric": "F1",
        "c": 0.05,
        "sigma": {"adf": 5.0, "sgd": 1.0, "lbfgs": 1.0},
        "sgd_lr": 0.05,
        "passes": 30,
        "lbfgs_iter": 100,
        "minibatch": True,
        "paper": {"adf": 94.5},
    },
    "bioner": {
        "title": "Bio-NER (JNLPBA 2004)",
        "config": "configs/bioner_jnlpba.cfg",
        # all 2,000 training abstracts (the config's default holds out a tenth
        # as dev); the test set is the original tokenised shared-task file
        "overrides": {"paths.jnlpba": "{data}/jnlpba", "corpora.train.part": "all"},
        "test_reader": {"@readers": "spacy_adf.ConllCorpus.v1",
                        "path": "{data}/jnlpba/Genia4EReval1.iob2",
                        "columns": ["words", "iob"], "iob_target": "ents", "input_attrs": []},
        "score": "ents_f",
        "metric": "F1",
        "c": 0.005,
        "sigma": {"adf": 5.0, "sgd": 5.0, "lbfgs": 5.0},
        "sgd_lr": 0.005,
        "passes": 20,
        "lbfgs_iter": 50,
        "minibatch": False,
        "paper": {"adf": 72.3},
    },
    "segmentation": {
        "title": "Chinese word segmentation (NLPCC-2016 Weibo dev; the paper: MSR)",
        "config": "configs/seg_zh_weibo.cfg",
        "overrides": {"paths.train": "{data}/nlpcc2016_weibo/nlpcc2016-word-seg-train.dat",
                      "paths.dev": "{data}/nlpcc2016_weibo/nlpcc2016-wordseg-dev.dat"},
        "test": "corpora.dev",
        "score": "token_f",
        "metric": "F1",
        "c": 0.1,
        "sigma": {"adf": 5.0, "sgd": 5.0, "lbfgs": 5.0},
        "sgd_lr": 0.1,
        "passes": 30,
        "lbfgs_iter": 100,
        "minibatch": False,
        "paper": {"adf": 97.5},
    },
    "sentiment": {
        "title": "Sentiment (Blitzer books, 1,600 train / 400 test)",
        "config": "configs/textcat_blitzer_books.cfg",
        "overrides": {"paths.blitzer": "{data}/blitzer_sentiment/books"},
        "test": "corpora.dev",
        "score": "cats_accuracy",
        "metric": "accuracy",
        "c": 0.005,
        "sigma": {"adf": 1.0, "sgd": 1.0, "lbfgs": 1.0},
        "sgd_lr": 0.005,
        "passes": 60,
        "lbfgs_iter": 200,
        "minibatch": True,
        "paper": {"lbfgs": 87.00, "sgd": 87.13, "perc": 84.55, "avgperc": 85.04, "adf": 87.89},
        "paper_passes": {"lbfgs": 86, "sgd": 44, "perc": 25, "avgperc": 46, "adf": 30},
        "paper_seconds": {"lbfgs": 72.20, "sgd": 55.88, "perc": 5.82, "avgperc": 12.22,
                          "adf": 57.12},
    },
}
METHODS = ["adf", "sgd", "perc", "avgperc", "lbfgs"]
WINDOW, TOL = 5, 0.01


def converged_at(scores: List[float]) -> Optional[int]:
    """1-based index of the first pass whose last five scores differ by < TOL."""
    for i in range(WINDOW - 1, len(scores)):
        window = scores[i - WINDOW + 1:i + 1]
        if max(window) - min(window) < TOL:
            return i + 1
    return None


def make_optimizer(method: str, spec: Dict):
    """The optimizer of a reproduction unit: method is a name, with "_mbK"
    for mini-batches of K; rates and priors come from the task's spec."""
    name, _, mb = method.partition("_mb")
    rate = spec["sgd_lr"] if name == "sgd" else spec["c"]
    sigma = spec["sigma"][name] if name in ("adf", "sgd") else None
    return online_optimizer(name, rate, sigma, minibatch=int(mb) if mb else 1,
                            decay=spec.get("sgd_decay", 0.9))


class Task:
    def __init__(self, name: str, data: str):
        from spacy.util import load_config

        if name not in TASKS:
            raise SystemExit(f"unknown task {name!r}; choose from {sorted(TASKS)}")
        self.name = name
        self.spec = TASKS[name]
        overrides = {k: v.format(data=data) for k, v in self.spec["overrides"].items()}
        self.config = load_config(REPO / self.spec["config"], overrides=overrides, interpolate=False)
        self.data = data

    def fresh(self):
        """A newly initialised pipeline plus train and test examples."""
        from spacy.training.initialize import init_nlp
        from spacy.util import registry, resolve_dot_names

        nlp = init_nlp(self.config)
        config = nlp.config.interpolate()
        T = registry.resolve(config["training"], schema=None)
        if "test_reader" in self.spec:
            reader = {k: v.format(data=self.data) if isinstance(v, str) else v
                      for k, v in self.spec["test_reader"].items()}
            (train_corpus,) = resolve_dot_names(config, [T["train_corpus"]])
            test_corpus = registry.resolve({"reader": reader})["reader"]
        else:
            train_corpus, test_corpus = resolve_dot_names(config, [T["train_corpus"], self.spec["test"]])
        return nlp, list(train_corpus(nlp)), list(test_corpus(nlp))

    def score(self, nlp, examples, averages=None) -> float:
        """The task's score with the components' own scorers (what
        nlp.evaluate reports for them, without its tokenization scoring)."""
        from spacy.training import Example

        with nlp.use_params(averages or {}):
            docs = nlp.pipe((eg.predicted.copy() for eg in examples), batch_size=256)
            scored = [Example(doc, eg.reference) for doc, eg in zip(docs, examples)]
        scores: Dict[str, float] = {}
        for _, proc in nlp.pipeline:
            if hasattr(proc, "score"):
                scores.update(proc.score(scored))
        return 100.0 * float(scores[self.spec["score"]])


def trainable_components(nlp, train: Sequence[Example]) -> list:
    """The spacy-adf components of `nlp` to train (those with a
    ``batch_objective``: `BatchTrainable`); every other component (e.g. a frozen POS tagger
    feeding the features) annotates the training Docs once, here."""
    names = [n for n, p in nlp.pipeline if isinstance(p, BatchTrainable)]
    if not names:
        raise ValueError("no spacy-adf trainable component in the pipeline")
    for name, proc in nlp.pipeline:
        if name not in names:
            for eg in train:
                proc(eg.predicted)
    return [nlp.get_pipe(n) for n in names]


def run_online(task: Task, method: str, max_passes: int, seed: int = 0) -> Dict:
    """Passes of an on-line method (spacy_adf's train_online), the test set
    scored after each; stops at convergence or after `max_passes`."""
    nlp, train, test = task.fresh()
    pipes = trainable_components(nlp, train)
    opt = make_optimizer(method, task.spec)
    scores: List[float] = []

    def evaluate(_pass: int) -> Dict:
        scores.append(task.score(nlp, test, opt.averages))
        return {"score": scores[-1]}

    def report(point: Dict) -> bool:
        print(f"[{task.name}/{method}] pass {point['pass']:3d}  {point['score']:.2f}  "
              f"{point['seconds']:.1f}s", flush=True)
        return converged_at(scores) is not None

    curve = train_online(pipes, train, opt, max_passes=max_passes, batch_size=BATCH, seed=seed,
                         evaluate=evaluate, callback=report)
    return _summary(curve)


def run_lbfgs(task: Task, max_iter: int) -> Dict:
    from spacy_adf.training.lbfgs import train_lbfgs

    nlp, train, test = task.fresh()
    pipes = trainable_components(nlp, train)
    if len(pipes) != 1:
        raise SystemExit(f"{task.name}: L-BFGS here trains one component, found {len(pipes)}")
    curve, scores = [], []

    def on_iteration(info):
        score = task.score(nlp, test)
        scores.append(score)
        curve.append({"pass": info["evaluations"], "iteration": info["iteration"],
                      "seconds": info["train_seconds"], "cpu_seconds": info["train_cpu_seconds"],
                      "score": score,
                      "loss": info["objective"]})
        print(f"[{task.name}/lbfgs] iter {info['iteration']:3d} passes {info['evaluations']:3d}"
              f"  {score:.2f}  {info['train_seconds']:.1f}s", flush=True)
        return converged_at(scores) is not None

    result = train_lbfgs(pipes[0], train, sigma=task.spec["sigma"]["lbfgs"],
                         max_iter=max_iter, memory=10, callback=on_iteration)
    out = _summary(curve)
    out["lbfgs"] = result
    return out


def _summary(curve: List[Dict]) -> Dict:
    scores = [c["score"] for c in curve]
    at = converged_at(scores)
    point = curve[at - 1] if at else curve[-1]
    return {
        "curve": curve,
        "converged": at is not None,
        "score": point["score"],
        "passes": point["pass"],
        "seconds": point["seconds"],
        "cpu_seconds": point.get("cpu_seconds"),
        "best_score": max(scores),
        "one_pass_score": curve[0]["score"] if curve[0]["pass"] == 1 else None,
    }


def default_methods(task: str) -> List[str]:
    methods = list(METHODS)
    if TASKS[task]["minibatch"]:
        methods += ["adf_mb10", "sgd_mb10"]
    return methods


def cmd_run(args) -> None:
    """Run methods of one task; each (task, method) goes to its own JSON."""
    task = Task(args.task, args.data)
    methods = args.methods.split(",") if args.methods else default_methods(task.name)
    for method in methods:
        start = time.perf_counter()
        if method == "lbfgs":
            cap = args.lbfgs_iter or task.spec["lbfgs_iter"]
            result = run_lbfgs(task, cap)
        else:
            cap = args.passes or task.spec["passes"]
            result = run_online(task, method, cap)
        result["cap"] = cap
        record = {"task": task.name, "method": method, "spec": task.spec, "machine": machine_info(),
                  "result": result, "wall_seconds": time.perf_counter() - start}
        write_json(RUN_DIR / f"{task.name}__{method}.json", record, indent=1)


# rough cost of a unit of work, to start the longest first
COST = {"bioner": 8.0, "segmentation": 3.0, "chunking": 1.0, "sentiment": 0.2}


def cmd_all(args) -> None:
    """Run every (task, method) as a subprocess, --jobs at a time, longest
    first, then write the report."""
    tasks = args.tasks.split(",") if args.tasks else list(TASKS)
    units = [(t, m) for t in tasks for m in default_methods(t)]
    units.sort(key=lambda u: -COST[u[0]] * (1.5 if u[1] == "lbfgs" else 1.0))
    start = time.perf_counter()
    running, failed = [], []
    while units or running:
        while units and len(running) < args.jobs:
            task, method = units.pop(0)
            cmd = module_command("benchmarks.reproduce", "run", "--task", task,
                                 "--methods", method, "--data", args.data)
            running.append((f"{task}/{method}", Child(cmd, RUN_DIR / f"{task}__{method}.log")))
        time.sleep(1)
        for item in list(running):
            name, child = item
            done = child.poll(check=False)
            if done is not None:
                running.remove(item)
                if done["returncode"]:
                    failed.append(name)
                print(f"{name}: exit {done['returncode']} at {time.perf_counter() - start:.0f}s",
                      flush=True)
    if failed:
        raise SystemExit(f"failed: {failed} (logs in metrics/reproduction/)")
    write_report(RUN_DIR, total_seconds=time.perf_counter() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    run = sub.add_parser("run")
    run.add_argument("--task", required=True)
    run.add_argument("--data", default=str(DATA))
    run.add_argument("--methods", default=None)
    run.add_argument("--passes", type=int, default=None)
    run.add_argument("--lbfgs-iter", type=int, default=None)
    everything = sub.add_parser("all")
    everything.add_argument("--data", default=str(DATA))
    everything.add_argument("--jobs", type=int, default=2)
    everything.add_argument("--tasks", default=None)
    sub.add_parser("report")
    args = parser.parse_args(argv)
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    if args.cmd == "run":
        cmd_run(args)
    elif args.cmd == "all":
        cmd_all(args)
    else:
        write_report(RUN_DIR)


if __name__ == "__main__":
    main()
