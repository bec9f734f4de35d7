"""Distributed on-line training by iterative parameter mixing (IPM).

The driver initializes the pipeline from a `spacy train` config exactly as
`spacy train` does (init_nlp: labels, feature tables from the whole training
corpus) and ships its bytes to N Ray actors (with what the bytes leave out
but training needs: the segmenter lexicon's jackknife folds). Actor k reads the training
corpus and shuffles it with the config's seed (the same order on every
actor). Each epoch the corpus is split anew: every actor draws the same
permutation (seeded by the seed and the epoch) and takes every N-th Example
from position k, so the N shards cover the corpus exactly once per epoch
(a fixed split converged more slowly at many shards). Each epoch every actor sets the mixed weights (and, for ADF,
the mixed per-feature rates), trains one pass over its shard with the
config's optimizer and batcher (spaCy's own update / finish_update calls),
settles its lazy updates and returns its weights; the driver mixes them
(mixing.py), evaluates on the dev corpus with the pipeline's scorer, logs
with the config's logger and saves model-last / model-best like spacy train.

A shard is a complete on-line learner of its own data: its trainer counts
n = the shard's samples, so ADF's window (n / 10) and the Gaussian prior
(1 / (n sigma^2) per sample) are those of a corpus of the shard's size.
"""
import os
import random
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import IO, Callable, Dict, List, Optional

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


def lexicon_folds(nlp: Language) -> Dict[str, Dict[str, int]]:
    """What each sparse component's example preparation needs beyond
    nlp.to_bytes (SparseTrainer.export_preparation: an adf_segmenter
    lexicon's training folds): the actors restore it."""
    prepared = {name: proc.trainer.export_preparation() for name, proc in nlp.pipeline
                if isinstance(proc, SparseTrainedPipe)}
    return {name: state for name, state in prepared.items() if state is not None}


def resolve_training(nlp: Language):
    config = nlp.config.interpolate()
    return config, registry.resolve(config["training"], schema=ConfigSchemaTraining)


def epoch_split(n: int, seed: int, epoch: int, shard: int, n_shards: int) -> List[int]:
    """The indices shard `shard` of `n_shards` trains on in `epoch`: every
    n_shards-th position of one permutation of range(n) that every actor
    draws alike (seeded by the seed and the epoch), so the shards partition
    the corpus in every epoch."""
    order = list(range(n))
    random.Random(f"{seed}/split/{epoch}").shuffle(order)
    return order[shard::n_shards]


class ShardTrainer:
    """One shard's on-line learner (made a Ray actor by IPM.start)."""

    def __init__(self, config: str, nlp_bytes: bytes, folds: Dict[str, Dict[str, int]], shard: int,
                 n_shards: int) -> None:
        nlp = load_model_from_config(Config().from_str(config), auto_fill=False, validate=False)
        self.nlp = nlp.from_bytes(nlp_bytes)
        for name, fold_of in folds.items():
            self.nlp.get_pipe(name).trainer.import_preparation(fold_of)
        config, T = resolve_training(self.nlp)
        self.seed = T["seed"] or 0
        fix_random_seed(self.seed + shard)
        (train_corpus,) = resolve_dot_names(config, [T["train_corpus"]])
        examples = list(train_corpus(self.nlp))
        random.Random(self.seed).shuffle(examples)
        self.all_examples = examples
        self.n_shards = n_shards
        self.shard = shard
        # the same in every epoch's split: every n_shards-th of the corpus from position `shard`
        self.n_examples = len(range(shard, len(examples), n_shards))
        self.optimizer = T["optimizer"]
        check_optimizer(self.optimizer)
        self.batcher, self.dropout = T["batcher"], T["dropout"]
        self.accumulate = T["accumulate_gradient"]
        self.frozen, self.annotating = T["frozen_components"], T["annotating_components"]
        self.pipes = sparse_pipes(self.nlp, self.frozen)
        for pipe in self.pipes.values():
            pipe.trainer.train_on_fraction(self.n_examples / max(len(examples), 1))

    def ready(self) -> int:
        """The shard's number of Examples, once the actor is built."""
        return self.n_examples

    def load_mixed(self, mixed: Optional[dict]) -> None:
        """Start from the mixed weights, copied into the model's own buffer
        (Ray's zero-copy arrays are read-only), and, once the optimizer has a
        state, the mixed learning rates."""
        if not mixed:
            return
        for name, pipe in self.pipes.items():
            pipe.trainer.import_state(mixed[name])

    def train_epoch(self, epoch: int, mixed: Optional[dict]) -> dict:
        t0 = time.perf_counter()
        self.load_mixed(mixed)
        t1 = time.perf_counter()
        picked = epoch_split(len(self.all_examples), self.seed, epoch, self.shard, self.n_shards)
        examples = [self.all_examples[i] for i in picked]
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
        t2 = time.perf_counter()
        states = self.states()
        t3 = time.perf_counter()
        return {"states": states, "losses": losses, "words": words, "steps": steps, "seconds": t3 - t0,
                "load_seconds": t1 - t0, "train_seconds": t2 - t1, "state_seconds": t3 - t2}

    def states(self) -> dict:
        """Settled weights, ADF rates and running averages of every component.
        The weights are the model's own array: Ray copies it into the object
        store when the call returns, before the actor runs anything else."""
        return {name: pipe.trainer.export_state() for name, pipe in self.pipes.items()}


class IPM:
    """A distributed training run: start() builds the pipeline and the
    actors, epoch() runs one mixed epoch, run() all of them with evaluation,
    logging and checkpoints, the evaluation of epoch e overlapping the
    training of epoch e + 1 (eval_every: evaluate every that many epochs, and
    after the last)."""

    def __init__(self, config_path, output: Optional[Path], *, workers: int = 2,
                 shards: Optional[int] = None, overrides: Optional[dict] = None,
                 address: Optional[str] = None, eval_every: int = 1,
                 stdout: IO = sys.stdout, stderr: IO = sys.stderr) -> None:
        self.config = load_config(config_path, overrides=overrides or {}, interpolate=False)
        self.output = Path(output) if output is not None else None
        self.workers = workers
        self.n_shards = shards or workers
        if self.workers < 1 or self.n_shards < 1 or eval_every < 1:
            raise ValueError("workers, shards and eval_every must be positive")
        self.eval_every = eval_every
        self.address = address
        self.stdout, self.stderr = stdout, stderr
        self.mixed: Optional[dict] = None
        self.mixed_ref = None
        self.actors: list = []
        self.history: List[dict] = []
        self._saver: Optional[threading.Thread] = None
        self._saved: Dict[str, float] = {}

    def start(self) -> None:
        self.nlp = init_nlp(self.config)
        config, self.T = resolve_training(self.nlp)
        check_optimizer(self.T["optimizer"])
        if self.T["max_epochs"] < 1:
            raise ValueError(
                "parameter mixing runs whole epochs: set training.max_epochs >= 1 (a config that streams "
                "its training corpus, max_epochs = -1 with max_steps, as the shipped chunking and Weibo "
                "configs do, takes e.g. --training.max_epochs 8 --training.max_steps 0)")
        self.pipes = sparse_pipes(self.nlp, self.T["frozen_components"])
        (dev_corpus,) = resolve_dot_names(config, [self.T["dev_corpus"]])
        # read once: nlp.evaluate copies the Examples before it annotates them
        dev = list(dev_corpus(self.nlp))
        self.evaluate = create_evaluation_callback(self.nlp, lambda nlp: dev, self.T["score_weights"])
        ray = start_ray(self.workers, self.address)
        # shards share the workers' CPUs: 8 shards on 2 CPUs run 4 to a CPU
        cpus = min(1.0, self.workers / self.n_shards)
        actor = ray.remote(num_cpus=cpus)(ShardTrainer)
        blob, folds = ray.put(self.nlp.to_bytes()), ray.put(lexicon_folds(self.nlp))
        text = self.nlp.config.to_str()
        self.actors = [actor.remote(text, blob, folds, k, self.n_shards) for k in range(self.n_shards)]
        self.shard_sizes = ray.get([a.ready.remote() for a in self.actors])

    # ------------------------------------------------------------ one epoch

    def _dispatch(self, epoch: int) -> list:
        """Every shard trains epoch `epoch` from the mixed state in the object store."""
        return [a.train_epoch.remote(epoch, self.mixed_ref) for a in self.actors]

    def _mix(self, results: List[dict]) -> None:
        """Mix the shards' states and put the result into the object store once."""
        ray = start_ray(self.workers, self.address)
        self.mixed = mix([r["states"] for r in results])
        self.mixed_ref = ray.put(self.mixed)

    def _set_driver_weights(self) -> None:
        """The driver's pipeline takes the mixed weights (the mixed running
        averages if the optimizer keeps them, as spacy train evaluates and
        saves optimizer.averages). It only evaluates and saves, so it binds the
        mixed arrays without a copy."""
        self._join_saver()  # a background save may still read the old weights
        for name, pipe in self.pipes.items():
            state = self.mixed[name]
            weights = state["averages"] if state["averages"] is not None else state["weights"]
            pipe.trainer.bind_weights(weights)

    def epoch(self, epoch: int) -> List[dict]:
        """One epoch on every shard from the current mixed state; the driver's
        pipeline then holds the new mixed weights. The shards' results."""
        ray = start_ray(self.workers, self.address)
        results = ray.get(self._dispatch(epoch))
        self._mix(results)
        self._set_driver_weights()
        return results

    # ------------------------------------------------------------ saving

    def _save_async(self, before_to_disk: Callable, name: str, epoch: int) -> None:
        """Write the driver's pipeline to OUTPUT/name in a thread (into a
        temporary folder, then renamed): the next epoch's wait for the shards
        hides it. The weights are not touched until the thread is joined."""
        self._join_saver()

        def save() -> None:
            t0 = time.perf_counter()
            final = self.output / name
            tmp = self.output / f".{name}.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            before_to_disk(self.nlp).to_disk(tmp)
            if final.exists():
                shutil.rmtree(final)
            os.replace(tmp, final)
            self._saved = {"epoch": epoch, "seconds": time.perf_counter() - t0}

        self._saver = threading.Thread(target=save, name=f"save-{name}", daemon=True)
        self._saver.start()

    def _join_saver(self) -> None:
        if self._saver is not None:
            self._saver.join()
            self._saver = None
            saved = self._saved
            if saved and saved["epoch"] < len(self.history):
                self.history[saved["epoch"]]["save_seconds"] = saved["seconds"]

    # ------------------------------------------------------------ the run

    def run(self) -> List[dict]:
        if not self.actors:
            self.start()
        ray = start_ray(self.workers, self.address)
        T = self.T
        n_epochs = T["max_epochs"]
        before_to_disk = create_before_to_disk_callback(T["before_to_disk"])
        log_step, finalize = T["logger"](self.nlp, self.stdout, self.stderr)
        self.stdout.write(f"IPM: {self.n_shards} shards on {self.workers} workers, "
                          f"pipeline {self.nlp.pipe_names}\n")
        if self.output is not None:
            self.output.mkdir(parents=True, exist_ok=True)
        checkpoints: list = []
        words = steps = 0
        best_epoch = -1
        start = last_mixed = time.perf_counter()
        refs, dispatched = self._dispatch(0), start
        try:
            for epoch in range(n_epochs):
                t0 = time.perf_counter()
                results = ray.get(refs)
                t1 = time.perf_counter()
                self._mix(results)
                t2 = time.perf_counter()
                if epoch + 1 < n_epochs:  # the shards train on while the driver evaluates
                    refs, next_dispatched = self._dispatch(epoch + 1), time.perf_counter()
                self._set_driver_weights()
                t3 = time.perf_counter()
                losses: Dict[str, float] = {}
                for r in results:
                    for k, v in r["losses"].items():
                        losses[k] = losses.get(k, 0.0) + v
                words += sum(r["words"] for r in results)
                steps += sum(r["steps"] for r in results)
                slowest = max(r["seconds"] for r in results)
                record = {
                    "epoch": epoch, "score": None, "epoch_seconds": t2 - last_mixed,
                    "wait_seconds": t1 - t0, "shard_seconds": [r["seconds"] for r in results],
                    "shard_train_seconds": [r["train_seconds"] for r in results],
                    "shard_load_seconds": [r["load_seconds"] for r in results],
                    "shard_state_seconds": [r["state_seconds"] for r in results],
                    "transfer_seconds": max(0.0, (t1 - dispatched) - slowest),
                    "mix_seconds": t2 - t1, "set_seconds": t3 - t2, "eval_seconds": 0.0, "save_seconds": 0.0,
                    "bytes_per_shard": state_nbytes(results[0]["states"]),
                }
                self.history.append(record)
                last_mixed = t2
                if epoch + 1 < n_epochs:
                    dispatched = next_dispatched
                if (epoch + 1) % self.eval_every and epoch + 1 < n_epochs:
                    continue
                score, other = self.evaluate()
                record["eval_seconds"] = time.perf_counter() - t3
                record["score"] = score
                checkpoints.append((score, steps))
                is_best = score > max((c[0] for c in checkpoints[:-1]), default=float("-inf"))
                info = {"epoch": epoch, "step": steps, "score": score, "other_scores": other,
                        "losses": losses, "checkpoints": checkpoints,
                        "seconds": int(time.perf_counter() - start), "words": words}
                update_meta(T, self.nlp, info)
                if self.output is not None:
                    info["output_path"] = str(self.output / DIR_MODEL_LAST)
                    if is_best:
                        best_epoch = epoch
                        self._save_async(before_to_disk, DIR_MODEL_BEST, epoch)
                log_step(info)
            self._join_saver()
            if self.output is not None:
                self._save_last(before_to_disk, best_epoch == n_epochs - 1)
        finally:
            self._join_saver()
            finalize()
        self.total_seconds = time.perf_counter() - start
        return self.history

    def _save_last(self, before_to_disk: Callable, last_is_best: bool) -> None:
        """model-last, once: a copy of model-best if the last epoch was the
        best (the same weights and meta), else written now."""
        t0 = time.perf_counter()
        last = self.output / DIR_MODEL_LAST
        if last.exists():
            shutil.rmtree(last)
        if last_is_best:
            shutil.copytree(self.output / DIR_MODEL_BEST, last)
        else:
            before_to_disk(self.nlp).to_disk(last)
        self.final_save_seconds = time.perf_counter() - t0

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
