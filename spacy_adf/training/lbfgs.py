"""L-BFGS (batch) training of spacy-adf's CRF and MaxEnt components on the exact objective, and
its command ``python -m spacy_adf.training.lbfgs`` (docs/training.md, "Training methods")."""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional

import numpy
from scipy.optimize import minimize

from .contract import BatchTrainable


def train_lbfgs(
    pipe,
    examples: Iterable,
    *,
    sigma: Optional[float] = 5.0,
    max_iter: int = 200,
    memory: int = 10,
    gtol: float = 1e-5,
    ftol: float = 1e-10,
    callback: Optional[Callable[[Dict], Optional[bool]]] = None,
) -> Dict:
    """Fit the `BatchTrainable` `pipe` by L-BFGS from its current weights; a
    summary dict. callback(info) runs after every iteration with its weights
    set: info has "iteration", "evaluations" (passes over the data),
    "train_seconds", "train_cpu_seconds" (callbacks excluded) and
    "objective"; returning True stops the run."""
    if sigma is not None and sigma <= 0:
        raise ValueError(f"sigma must be positive (or None for no prior), got {sigma}")
    if max_iter < 1 or memory < 1:
        raise ValueError("max_iter and memory must be >= 1")
    params = pipe.trainable_params
    loglik_and_grad = pipe.batch_objective(examples)
    inv_s2 = 0.0 if sigma is None else 1.0 / (sigma * sigma)
    state = {"evals": 0, "train": 0.0, "t0": time.perf_counter(), "f": None, "iter": 0,
             "cpu": 0.0, "c0": time.process_time()}

    def fun(w):
        state["evals"] += 1
        loglik, grad = loglik_and_grad(w)
        value = -loglik + 0.5 * inv_s2 * float(numpy.dot(w, w))
        grad = -grad
        if inv_s2:
            grad += inv_s2 * w
        state["f"] = value
        return value, grad

    def on_iteration(xk):
        state["iter"] += 1
        state["train"] += time.perf_counter() - state["t0"]
        state["cpu"] += time.process_time() - state["c0"]
        stop = False
        if callback is not None:
            params.set_weights(xk.astype(numpy.float32))
            stop = bool(callback({
                "iteration": state["iter"], "evaluations": state["evals"],
                "train_seconds": state["train"], "train_cpu_seconds": state["cpu"],
                "objective": state["f"],
            }))
        state["t0"] = time.perf_counter()
        state["c0"] = time.process_time()
        if stop:
            raise StopIteration

    x0 = numpy.asarray(params.weights, dtype=numpy.float64).copy()
    result = minimize(fun, x0, jac=True, method="L-BFGS-B", callback=on_iteration,
                      options={"maxiter": int(max_iter), "maxcor": int(memory),
                               "gtol": gtol, "ftol": ftol})
    state["train"] += time.perf_counter() - state["t0"]
    params.set_weights(numpy.asarray(result.x, dtype=numpy.float32))
    return {
        "iterations": int(result.nit),
        "evaluations": state["evals"],
        "objective": float(result.fun),
        "converged": bool(result.success),
        "message": str(result.message),
        "train_seconds": state["train"],
    }


def _trainable(nlp, names: Optional[List[str]]):
    found = [name for name, pipe in nlp.pipeline if isinstance(pipe, BatchTrainable)]
    if names:
        missing = [n for n in names if n not in found]
        if missing:
            raise ValueError(f"no spacy-adf trainable component named {missing}; found {found}")
        return names
    if not found:
        raise ValueError("the pipeline has no component that L-BFGS can train "
                         "(adf_tagger, adf_segmenter, adf_textcat)")
    return found


def main(argv=None) -> Dict:
    from spacy.training.initialize import init_nlp
    from spacy.cli._util import parse_config_overrides
    from spacy.util import load_config, registry, resolve_dot_names

    parser = argparse.ArgumentParser(
        prog="python -m spacy_adf.training.lbfgs",
        description="Train spacy-adf components with L-BFGS (batch) on the exact objective.",
    )
    parser.add_argument("config")
    parser.add_argument("output")
    parser.add_argument("--max-iter", type=int, default=200)
    parser.add_argument("--memory", type=int, default=10, help="L-BFGS history size m")
    parser.add_argument("--sigma", type=float, default=None,
                        help="Gaussian prior; default: the config optimizer's sigma, else 5")
    parser.add_argument("--component", action="append", default=None)
    args, rest = parser.parse_known_args(argv)
    overrides = parse_config_overrides(rest)
    config = load_config(args.config, overrides=overrides, interpolate=False)
    sigma = args.sigma
    if sigma is None:
        sigma = config["training"]["optimizer"].get("sigma") or 5.0
    nlp = init_nlp(config)
    config_i = nlp.config.interpolate()
    T = registry.resolve(config_i["training"], schema=None)
    train_corpus, dev_corpus = resolve_dot_names(config_i, [T["train_corpus"], T["dev_corpus"]])
    examples = list(train_corpus(nlp))
    summary = {"config": str(args.config), "sigma": sigma, "memory": args.memory, "components": {}}
    for name in _trainable(nlp, args.component):
        def log(info, name=name):
            print(f"[{name}] iter {info['iteration']:4d}  passes {info['evaluations']:4d}  "
                  f"objective {info['objective']:.4f}  {info['train_seconds']:.1f}s", flush=True)
        summary["components"][name] = train_lbfgs(
            nlp.get_pipe(name), examples, sigma=sigma, max_iter=args.max_iter,
            memory=args.memory, callback=log)
    dev = list(dev_corpus(nlp))
    scores = nlp.evaluate(dev)
    summary["dev_scores"] = {k: v for k, v in scores.items() if isinstance(v, (int, float))}
    out = Path(args.output)
    out.mkdir(parents=True, exist_ok=True)
    nlp.to_disk(out)
    (out / "lbfgs_summary.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    return summary


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
