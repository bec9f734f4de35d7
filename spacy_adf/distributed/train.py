"""Distributed on-line training by iterative parameter mixing (IPM).

The driver initializes the pipeline from a `spacy train` config exactly as
`spacy train` does (init_nlp: labels, feature tables from the whole training
corpus) and ships its bytes to N Ray actors. Actor k reads the training
corpus, shuffles it with the config's seed (the same order on every actor)
and keeps every N-th Example from position k: the N shards cover the corpus
exactly once. Each epoch every actor sets the mixed weights (and, for ADF,
the mixed per-feature rates), trains one pass over its shard with the
config's optimizer and batcher (spaCy's own update / finish_update calls),
settles its lazy updates and returns its weights; the driver mixes them
(mixing.py), evaluates on the dev corpus with the pipeline's scorer, logs
with the config's logger and saves model-last / model-best like spacy train.

A shard is a complete on-line learner of its own data: its trainer counts
n = the shard's samples, so ADF's window (n / 10) and the Gaussian prior
(1 / (n sigma^2) per sample) are those of a corpus of the shard's size.
"""
import contextlib
import random
import shutil
import sys
import time
from pathlib import Path
from typing import IO, Dict, List, Optional

import numpy
from spacy.language import Language
from spacy.schemas import ConfigSchemaTraining
from spacy.training.initialize import init_nlp
from spacy.training.loop import (DIR_MODEL_BEST, DIR_MODEL_LAST, create_before_to_disk_callback,
                                 create_evaluation_callback, subdivide_batch, update_meta)
from spacy.util import load_config, load_model_from_config, registry, resolve_dot_names
from thinc.api import Config, fix_random_seed

from ..pipeline.trainable import SparseTrainedPipe
from .mixing import mix, state_nbytes
from .raysupport import start_ray


def sparse_pipes(nlp: Language, frozen: List[str]) -> Dict[str, SparseTrainedPipe]:
    """The trained components, which must all be spacy-adf's sparse ones."""
    pipes, other = {}, []
    for name, proc in nlp.pipeline:
        if name in frozen or not getattr(proc, "is_trainable", False):
            continue
        if isinstance(proc, SparseTrainedPipe):
            pipes[name] = proc
        else:
            other.append(name)
    if other:
        raise ValueError(f"parameter mixing trains spacy-adf's sparse components only; freeze {other} "
                         "(training.frozen_components) or train them with spacy train")
    if not pipes:
        raise ValueError("the pipeline has no sparse component to train")
    return pipes


def check_optimizer(optimizer) -> None:
    if not hasattr(optimizer, "sparse_state"):
        raise ValueError("parameter mixing needs a sparse on-line optimizer (spacy_adf.ADF.v1, "
                         f"spacy_adf.SGD.v1, spacy_adf.Perceptron.v1), not {type(optimizer).__name__}")


def resolve_training(nlp: Language):
    config = nlp.config.interpolate()
    return config, registry.resolve(config["training"], schema=ConfigSchemaTraining)


class ShardTrainer:
    """One shard's on-line learner (made a Ray actor by IPM.start)."""

    def __init__(self, config: str, nlp_bytes: bytes, shard: int, n_shards: int) -> None:
        nlp = load_model_from_config(Config().from_str(config), auto_fill=False, validate=False)
        self.nlp = nlp.from_bytes(nlp_bytes)
        config, T = resolve_training(self.nlp)
        self.seed = T["seed"] or 0
        fix_random_seed(self.seed + shard)
        (train_corpus,) = resolve_dot_names(config, [T["train_corpus"]])
        examples = list(train_corpus(self.nlp))
        random.Random(self.seed).shuffle(examples)
        self.examples = examples[shard::n_shards]
        self.shard = shard
        self.optimizer = T["optimizer"]
        check_optimizer(self.optimizer)
        self.batcher, self.dropout = T["batcher"], T["dropout"]
        self.accumulate = T["accumulate_gradient"]
        self.frozen, self.annotating = T["frozen_components"], T["annotating_components"]
        self.pipes = sparse_pipes(self.nlp, self.frozen)
        for pipe in self.pipes.values():
            full = pipe.trainer.n_samples()
            n = max(1, round(full * len(self.examples) / max(len(examples), 1)))
            pipe.trainer.n_samples = lambda n=n: n

    def ready(self) -> int:
        """The shard's number of Examples, once the actor is built."""
        return len(self.examples)

    def load_mixed(self, mixed: Optional[dict]) -> None:
        """Start from the mixed weights (a copy: Ray's buffers are read-only)
        and, once the optimizer has a state, the mixed learning rates."""
        if not mixed:
            return
        for name, pipe in self.pipes.items():
            model = pipe.trainer.model
            model.settle()
            model.params.set_weights(numpy.array(mixed[name]["weights"], dtype=numpy.float32))
            state = pipe.trainer.state
            if state is not None and mixed[name]["rates"] is not None:
                state.set_learning_rates(mixed[name]["rates"])

    def train_epoch(self, epoch: int, mixed: Optional[dict]) -> dict:
        start = time.perf_counter()
        self.load_mixed(mixed)
        examples = list(self.examples)
        random.Random(f"{self.seed}/{self.shard}/{epoch}").shuffle(examples)
        losses: Dict[str, float] = {}
        words = steps = 0
        dropout = self.dropout if isinstance(self.dropout, float) else 0.0
        for batch in self.batcher(examples):
            for sub in subdivide_batch(batch, self.accumulate):
                self.nlp.update(sub, drop=dropout, losses=losses, sgd=False, exclude=self.frozen,
                                annotates=self.annotating)
            for pipe in self.pipes.values():
                pipe.finish_update(self.optimizer)
            self.optimizer.step_schedules()
            words += sum(len(eg) for eg in batch)
            steps += 1
        return {"states": self.states(), "losses": losses, "words": words, "steps": steps,
                "seconds": time.perf_counter() - start}

    def states(self) -> dict:
        """Settled weights, ADF rates and running averages of every component."""
        out = {}
        for name, pipe in self.pipes.items():
            model = pipe.trainer.model
            model.settle()
            state = pipe.trainer.state
            out[name] = {
                "weights": numpy.array(model.params.weights, dtype=numpy.float32, copy=True),
                "rates": state.learning_rates() if state is not None else None,
                "averages": state.averaged_weights() if state is not None and state.use_averages else None,
            }
        return out


class IPM:
    """A distributed training run: start() builds the pipeline and the
    actors, epoch() runs one mixed epoch, run() all of them with logging
    and checkpoints."""

    def __init__(self, config_path, output: Optional[Path], *, workers: int = 2,
                 shards: Optional[int] = None, overrides: Optional[dict] = None,
                 address: Optional[str] = None, stdout: IO = sys.stdout, stderr: IO = sys.stderr) -> None:
        self.config = load_config(config_path, overrides=overrides or {}, interpolate=False)
        self.output = Path(output) if output is not None else None
        self.workers = workers
        self.n_shards = shards or workers
        if self.workers < 1 or self.n_shards < 1:
            raise ValueError("workers and shards must be positive")
        self.address = address
        self.stdout, self.stderr = stdout, stderr
        self.mixed: Optional[dict] = None
        self.actors: list = []
        self.history: List[dict] = []

    def start(self) -> None:
        self.nlp = init_nlp(self.config)
        config, self.T = resolve_training(self.nlp)
        check_optimizer(self.T["optimizer"])
        if self.T["max_epochs"] < 1:
            raise ValueError("parameter mixing runs whole epochs: set training.max_epochs >= 1")
        self.pipes = sparse_pipes(self.nlp, self.T["frozen_components"])
        (dev_corpus,) = resolve_dot_names(config, [self.T["dev_corpus"]])
        self.evaluate = create_evaluation_callback(self.nlp, dev_corpus, self.T["score_weights"])
        ray = start_ray(self.workers, self.address)
        # shards share the workers' CPUs: 8 shards on 2 CPUs run 4 to a CPU
        cpus = min(1.0, self.workers / self.n_shards)
        actor = ray.remote(num_cpus=cpus)(ShardTrainer)
        blob = ray.put(self.nlp.to_bytes())
        text = self.nlp.config.to_str()
        self.actors = [actor.remote(text, blob, k, self.n_shards) for k in range(self.n_shards)]
        self.shard_sizes = ray.get([a.ready.remote() for a in self.actors])

    def epoch(self, epoch: int) -> List[dict]:
        """One epoch on every shard from the current mixed state; the driver's
        pipeline then holds the new mixed weights. The shards' results."""
        ray = start_ray(self.workers, self.address)
        mixed_ref = ray.put(self.mixed)
        results = ray.get([a.train_epoch.remote(epoch, mixed_ref) for a in self.actors])
        self.mixed = mix([r["states"] for r in results])
        for name, pipe in self.pipes.items():
            pipe.trainer.model.params.set_weights(self.mixed[name]["weights"].copy())
        return results

    @contextlib.contextmanager
    def averaged(self):
        """The mixed running averages in place of the weights, if the
        optimizer keeps them (as spaCy's use_params(optimizer.averages))."""
        with contextlib.ExitStack() as stack:
            for name, pipe in self.pipes.items():
                if self.mixed and self.mixed[name]["averages"] is not None:
                    stack.enter_context(pipe.trainer.model.swapped_weights(self.mixed[name]["averages"]))
            yield

    def run(self) -> List[dict]:
        if not self.actors:
            self.start()
        T = self.T
        before_to_disk = create_before_to_disk_callback(T["before_to_disk"])
        log_step, finalize = T["logger"](self.nlp, self.stdout, self.stderr)
        self.stdout.write(f"IPM: {self.n_shards} shards on {self.workers} workers, "
                          f"pipeline {self.nlp.pipe_names}\n")
        if self.output is not None:
            self.output.mkdir(parents=True, exist_ok=True)
        checkpoints, losses_total, words, steps = [], {}, 0, 0
        start = time.perf_counter()
        try:
            for epoch in range(T["max_epochs"]):
                t0 = time.perf_counter()
                results = self.epoch(epoch)
                t_train = time.perf_counter() - t0
                losses = {}
                for r in results:
                    for k, v in r["losses"].items():
                        losses[k] = losses.get(k, 0.0) + v
                words += sum(r["words"] for r in results)
                steps += sum(r["steps"] for r in results)
                with self.averaged():
                    score, other = self.evaluate()
                    checkpoints.append((score, steps))
                    is_best = score == max(checkpoints)[0]
                    info = {"epoch": epoch, "step": steps, "score": score, "other_scores": other,
                            "losses": losses, "checkpoints": checkpoints,
                            "seconds": int(time.perf_counter() - start), "words": words}
                    update_meta(T, self.nlp, info)
                    if self.output is not None:
                        self.save(before_to_disk, is_best)
                        info["output_path"] = str(self.output / DIR_MODEL_LAST)
                log_step(info)
                self.history.append({
                    "epoch": epoch, "score": score, "epoch_seconds": time.perf_counter() - t0,
                    "train_seconds": t_train, "shard_seconds": [r["seconds"] for r in results],
                    "bytes_per_shard": state_nbytes(results[0]["states"]),
                })
        finally:
            finalize()
        return self.history

    def save(self, before_to_disk, is_best: bool) -> None:
        last = self.output / DIR_MODEL_LAST
        before_to_disk(self.nlp).to_disk(last)
        if is_best:
            best = self.output / DIR_MODEL_BEST
            if best.exists():
                shutil.rmtree(best)
            shutil.copytree(last, best)

    def shutdown(self) -> None:
        if self.actors:
            ray = start_ray(self.workers, self.address)
            for a in self.actors:
                ray.kill(a)
            self.actors = []


def train(config_path, output, **kwargs) -> List[dict]:
    run = IPM(config_path, output, **kwargs)
    try:
        return run.run()
    finally:
        run.shutdown()
