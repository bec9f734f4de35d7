"""Distributed on-line training by iterative parameter mixing (IPM) on Ray
actors, each a shard's complete on-line learner; an epoch depends only on the
mixed state before it, so a lost shard is redone and a stopped run resumes
with the same weights (docs/distributed.md, "Training")."""
import math
import random
import shutil
import sys
import threading
import time
from pathlib import Path
from typing import IO, Callable, Dict, Iterable, List, Optional

from spacy.language import Language
from spacy.pipeline import TrainablePipe
from spacy.schemas import ConfigSchemaTraining
from spacy.training.initialize import init_nlp
from spacy.training.loop import (DIR_MODEL_BEST, DIR_MODEL_LAST, create_before_to_disk_callback,
                                 create_evaluation_callback, subdivide_batch, update_meta)
from spacy.util import load_config, load_model_from_config, registry, resolve_dot_names
from thinc.api import Config, fix_random_seed

from ..pipeline.trainable import SparseTrainedPipe
from ..training.contract import SparseOptimizer
from .checkpoint import STATE_DIR, find_checkpoint, load_checkpoint, load_record, replace_dir, save_checkpoint
from .examples import examples_from_bytes, examples_to_bytes
from .mixing import average, mix, state_nbytes
from .raysupport import LOST, MAX_SHARD_RETRIES, SPREAD, ray, run_to_end, start_ray


def sparse_pipes(nlp: Language, frozen: List[str]) -> Dict[str, SparseTrainedPipe]:
    """The trained components, which must all be spacy-adf's sparse ones."""
    pipes, other = {}, []
    for name, proc in nlp.pipeline:
        if name in frozen:
            continue
        if isinstance(proc, SparseTrainedPipe):
            pipes[name] = proc
        elif isinstance(proc, TrainablePipe):
            other.append(name)
    if other:
        raise ValueError(f"parameter mixing trains spacy-adf's sparse components only; freeze {other} "
                         "(training.frozen_components) or train them with spacy train")
    if not pipes:
        raise ValueError("the pipeline has no sparse component to train")
    return pipes


def lexicon_folds(nlp: Language) -> Dict[str, Dict[str, int]]:
    """The sparse components' export_preparation() that are not None (an adf_segmenter lexicon's folds)."""
    prepared = {name: proc.trainer.export_preparation() for name, proc in nlp.pipeline
                if isinstance(proc, SparseTrainedPipe)}
    return {name: state for name, state in prepared.items() if state is not None}


def resolve_training(nlp: Language):
    """(interpolated config, resolved [training], the sparse components to train), checked for IPM."""
    config = nlp.config.interpolate()
    T = registry.resolve(config["training"], schema=ConfigSchemaTraining)
    if not isinstance(T["optimizer"], SparseOptimizer):
        raise ValueError("parameter mixing needs a sparse on-line optimizer (spacy_adf.ADF.v1, "
                         f"spacy_adf.SGD.v1, spacy_adf.Perceptron.v1), not {type(T['optimizer']).__name__}")
    return config, T, sparse_pipes(nlp, T["frozen_components"])


def n_epochs_of(max_epochs: int, max_steps: int, batches_per_pass: int) -> int:
    """The whole epochs IPM runs: max_epochs, or for a streamed corpus
    ceil(max_steps / batches per pass); with both set, the first reached."""
    by_steps = math.ceil(max_steps / max(batches_per_pass, 1)) if max_steps > 0 else 0
    if max_epochs >= 1:
        return min(max_epochs, by_steps) if by_steps else max_epochs
    if by_steps:
        return by_steps
    raise ValueError("the config bounds training by neither training.max_epochs nor training.max_steps: "
                     "set one of them (e.g. --training.max_epochs 8)")


def epoch_split(n: int, seed: int, epoch: int, shard: int, n_shards: int) -> List[int]:
    """The indices shard `shard` trains on in `epoch`: every n_shards-th
    position of one permutation (seeded by seed and epoch) of range(n)."""
    order = list(range(n))
    random.Random(f"{seed}/split/{epoch}").shuffle(order)
    return order[shard::n_shards]


class ShardTrainer:
    """One shard's on-line learner (made a Ray actor by IPM.start)."""

    def __init__(self, config: str, nlp_bytes: bytes, folds: Dict[str, Dict[str, int]], examples: bytes,
                 shard: int, n_shards: int) -> None:
        nlp = load_model_from_config(Config().from_str(config), auto_fill=False, validate=False)
        self.nlp = nlp.from_bytes(nlp_bytes)
        for name, fold_of in folds.items():
            self.nlp.get_pipe(name).trainer.import_preparation(fold_of)
        self.config, T, self.pipes = resolve_training(self.nlp)
        self.seed = T["seed"] or 0
        # the driver read and shuffled the corpus with the config's seed
        self.all_examples = examples_from_bytes(examples, self.nlp.vocab)
        self.n_shards = n_shards
        self.shard = shard
        # the same in every epoch's split: every n_shards-th of the corpus from position `shard`
        self.n_examples = len(range(shard, len(self.all_examples), n_shards))
        self.batcher, self.dropout = T["batcher"], T["dropout"]
        self.accumulate = T["accumulate_gradient"]
        self.frozen, self.annotating = T["frozen_components"], T["annotating_components"]
        for pipe in self.pipes.values():
            pipe.trainer.train_on_fraction(self.n_examples / max(len(self.all_examples), 1))

    def ready(self) -> dict:
        """The shard's number of Examples and node, once the actor is built."""
        return {"n_examples": self.n_examples, "node_id": ray.get_runtime_context().get_node_id()}

    def train_epoch(self, epoch: int, mixed: Optional[dict], steps_before: int = 0) -> dict:
        """One pass over this shard's part of `epoch` from the mixed state, with
        a new optimizer whose schedules are stepped past `steps_before`."""
        t0 = time.perf_counter()
        fix_random_seed(self.seed + 7919 * epoch + self.shard)
        # a new optimizer object (no state of earlier epochs), from the mixed weights and rates
        optimizer = registry.resolve({"optimizer": self.config["training"]["optimizer"]})["optimizer"]
        for _ in range(steps_before):
            optimizer.step_schedules()
        if mixed:
            for name, pipe in self.pipes.items():
                pipe.trainer.restart_from(mixed[name], optimizer)
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
                pipe.finish_update(optimizer)
            optimizer.step_schedules()
            words += sum(len(eg) for eg in batch)
            steps += 1
        t2 = time.perf_counter()
        # the weights are the model's own array: Ray copies it when the call returns, before anything else runs
        states = {name: pipe.trainer.export_state() for name, pipe in self.pipes.items()}
        t3 = time.perf_counter()
        return {"states": states, "losses": losses, "words": words, "steps": steps, "seconds": t3 - t0,
                "load_seconds": t1 - t0, "train_seconds": t2 - t1, "state_seconds": t3 - t2}


class IPM:
    """A distributed training run: start() builds the pipeline and the actors,
    run() every epoch (docs/distributed.md); every check is made before Ray starts."""

    def __init__(self, config_path, output: Optional[Path], *, workers: int = 2,
                 shards: Optional[int] = None, overrides: Optional[dict] = None,
                 address: Optional[str] = None, eval_every: int = 1,
                 on_epoch: Optional[Callable[[dict], None]] = None,
                 stdout: IO = sys.stdout, stderr: IO = sys.stderr) -> None:
        if not Path(config_path).is_file():
            raise FileNotFoundError(f"no config file at {config_path}")
        self.workers = workers
        self.n_shards = shards or workers
        if self.workers < 1 or self.n_shards < 1 or eval_every < 1:
            raise ValueError("--workers, --shards and --eval-every must be positive")
        self.config = load_config(config_path, overrides=overrides or {}, interpolate=False)
        self.output = Path(output) if output is not None else None
        self.eval_every = eval_every
        self.on_epoch = on_epoch  # called with each epoch's record, the next epoch already running
        self.address = address
        self.stdout, self.stderr = stdout, stderr
        self.mixed: Optional[dict] = None
        self.mixed_ref = None
        self.actors: list = []
        self.history: List[dict] = []
        self.setup: Dict[str, float] = {}
        self.shard_steps = [0] * self.n_shards  # each shard's optimizer steps so far (its schedules)
        self.redone: List[dict] = []  # shards trained again after their actor was lost
        self.saved_epoch: Optional[int] = None  # the last epoch with a complete checkpoint
        self.resume_from = self._check_output()
        self._saver: Optional[threading.Thread] = None
        self._saved: Dict[str, float] = {}

    def _check_output(self) -> Optional[Path]:
        """The checkpoint to resume from, or None for a new run into an
        absent or empty folder; a ValueError for any other folder."""
        if self.output is None:
            return None
        if self.output.exists() and not self.output.is_dir():
            raise ValueError(f"--output {self.output} is a file: give a folder")
        folder = find_checkpoint(self.output) if self.output.is_dir() else None
        if folder is None:
            if self.output.is_dir() and any(self.output.iterdir()):
                raise ValueError(f"--output {self.output} is not empty and holds no IPM checkpoint "
                                 f"({STATE_DIR}): give a new or empty folder")
            return None
        record = load_record(folder)
        if record["config"] != self.config.to_str() or record["n_shards"] != self.n_shards:
            raise ValueError(f"--output {self.output} holds the checkpoint of another run (another config, "
                             "overrides or --shards): give the same arguments to resume it, or a new folder")
        return folder

    def start(self) -> None:
        t0 = time.perf_counter()
        self.nlp = init_nlp(self.config)
        config, self.T, self.pipes = resolve_training(self.nlp)
        t1 = time.perf_counter()
        self.seed = self.T["seed"] or 0
        train_corpus, dev_corpus = resolve_dot_names(config, [self.T["train_corpus"], self.T["dev_corpus"]])
        # one pass of the reader, as spacy train reads a corpus it holds
        examples = list(train_corpus(self.nlp))
        if not examples:
            raise ValueError(f"the training corpus ({self.T['train_corpus']}) has no examples")
        random.Random(self.seed).shuffle(examples)
        self.n_examples = len(examples)
        self.batches_per_pass = sum(1 for _ in self.T["batcher"](examples))
        self.n_epochs = n_epochs_of(self.T["max_epochs"], self.T["max_steps"], self.batches_per_pass)
        # read once: nlp.evaluate copies the Examples before it annotates them
        dev = list(dev_corpus(self.nlp))
        self.evaluate = create_evaluation_callback(self.nlp, lambda nlp: dev, self.T["score_weights"])
        examples_blob = examples_to_bytes(examples)
        del examples
        t2 = time.perf_counter()
        start_ray(self.workers, self.address)
        t3 = time.perf_counter()
        # shards share the workers' CPUs: 8 shards on 2 CPUs run 4 to a CPU
        cpus = min(1.0, self.workers / self.n_shards)
        self._actor_class = ray.remote(num_cpus=cpus, scheduling_strategy=SPREAD)(ShardTrainer)
        self._actor_args = (self.nlp.config.to_str(), ray.put(self.nlp.to_bytes()),
                            ray.put(lexicon_folds(self.nlp)), ray.put(examples_blob))
        self.actors = [self._new_actor(k) for k in range(self.n_shards)]
        ready = ray.get([a.ready.remote() for a in self.actors])
        self.shard_sizes = [r["n_examples"] for r in ready]
        self.actor_nodes = [r["node_id"] for r in ready]  # the Ray node of each shard's first actor
        t4 = time.perf_counter()
        self.setup = {"init_nlp_seconds": t1 - t0, "corpora_seconds": t2 - t1, "ray_start_seconds": t3 - t2,
                      "actors_seconds": t4 - t3, "setup_seconds": t4 - t0}

    def _new_actor(self, shard: int):
        return self._actor_class.remote(*self._actor_args, shard, self.n_shards)

    def _dispatch(self, epoch: int, shards: Optional[Iterable[int]] = None) -> list:
        """The shards (all by default) train epoch `epoch` from the mixed state in the object store."""
        return [self.actors[k].train_epoch.remote(epoch, self.mixed_ref, self.shard_steps[k])
                for k in (range(self.n_shards) if shards is None else shards)]

    def _gather(self, refs: list, epoch: int) -> List[dict]:
        """The shards' results of `epoch`; a shard whose actor was lost is
        trained again on a new actor, from the same mixed state."""
        results: List[dict] = []
        for k, ref in enumerate(refs):
            tries = 0
            while len(results) == k:
                try:
                    results.append(ray.get(ref))
                except LOST as e:
                    tries += 1
                    if tries > MAX_SHARD_RETRIES:
                        raise RuntimeError(
                            f"shard {k} lost its Ray worker {tries} times in epoch {epoch + 1} ({type(e).__name__}); "
                            "the checkpoint of the last completed epoch is in --output: rerun the same "
                            "command to resume") from None
                    self.stderr.write(f"IPM: shard {k} lost its worker in epoch {epoch + 1} "
                                      f"({type(e).__name__}); training it again on a new actor\n")
                    ray.kill(self.actors[k])
                    self.actors[k] = self._new_actor(k)
                    ref = self._dispatch(epoch, [k])[0]
                    self.redone.append({"epoch": epoch, "shard": k, "error": type(e).__name__})
        return results

    def _mix(self, results: List[dict], epoch: int) -> None:
        """Mix the shards' states and put the result into the object store once; running averages:
        the mean of the epochs' mixed averages (docs/distributed.md)."""
        mixed = mix([r["states"] for r in results])
        for name, state in mixed.items():
            previous = self.mixed[name]["averages"] if self.mixed else None
            if state["averages"] is not None and previous is not None and epoch > 0:
                state["averages"] = average([previous] * epoch + [state["averages"]])
        for k, r in enumerate(results):
            self.shard_steps[k] += r["steps"]
        self.mixed = mixed
        self.mixed_ref = ray.put(self.mixed)

    def _set_driver_weights(self) -> None:
        """The driver's pipeline binds the mixed weights without a copy (the
        mixed averages if kept, as spacy train evaluates optimizer.averages)."""
        self.wait_for_saves()  # a background save may still read the old weights
        for name, pipe in self.pipes.items():
            state = self.mixed[name]
            weights = state["averages"] if state["averages"] is not None else state["weights"]
            pipe.trainer.bind_weights(weights)

    def _save_async(self, before_to_disk: Callable, epoch: int, is_best: bool, record: dict) -> None:
        """Write model-best (if the epoch is the best), model-last and the
        checkpoint (each swapped in by `replace_dir`) in a thread that the next
        epoch's wait for the shards hides; the weights stay until it is joined."""
        self.wait_for_saves()
        mixed = self.mixed

        def save() -> None:
            t0 = time.perf_counter()
            best, last = self.output / DIR_MODEL_BEST, self.output / DIR_MODEL_LAST
            if is_best:
                replace_dir(lambda tmp: before_to_disk(self.nlp).to_disk(tmp), best)
                replace_dir(lambda tmp: shutil.copytree(best, tmp), last)
            else:
                replace_dir(lambda tmp: before_to_disk(self.nlp).to_disk(tmp), last)
            save_checkpoint(self.output, mixed, record)
            self._saved = {"epoch": epoch, "seconds": time.perf_counter() - t0}

        self._saver = threading.Thread(target=save, name="save-epoch", daemon=True)
        self._saver.start()

    def wait_for_saves(self) -> None:
        """Let a save in progress complete (also after a Ctrl-C, before saying what was saved)."""
        if self._saver is not None:
            self._saver.join()
            self._saver = None
            saved = self._saved
            if saved:
                self.saved_epoch = saved["epoch"]
                for record in self.history:
                    if record["epoch"] == saved["epoch"]:
                        record["save_seconds"] = saved["seconds"]

    def _restore(self) -> dict:
        """The state of a checkpoint: the mixed weights in the object store and
        in the driver's pipeline, and the run's record."""
        self.mixed, record = load_checkpoint(self.resume_from)
        self.mixed_ref = ray.put(self.mixed)
        self._set_driver_weights()
        self.history = record["history"]
        self.shard_steps = record["shard_steps"]
        self.saved_epoch = record["epoch"]
        return record

    def run(self) -> List[dict]:
        if not self.actors:
            self.start()
        T = self.T
        n_epochs = self.n_epochs
        before_to_disk = create_before_to_disk_callback(T["before_to_disk"])
        s = self.setup
        self.stdout.write(f"IPM: {self.n_shards} shards on {self.workers} workers, pipeline {self.nlp.pipe_names}, "
                          f"{n_epochs} epochs of {self.n_examples} examples ({self.batches_per_pass} batches); "
                          f"set-up {s['setup_seconds']:.1f} s (init_nlp {s['init_nlp_seconds']:.1f}, corpora "
                          f"{s['corpora_seconds']:.1f}, Ray {s['ray_start_seconds']:.1f}, actors "
                          f"{s['actors_seconds']:.1f})\n")
        checkpoints: list = []
        words = steps = 0
        best_score = float("-inf")
        first = 0
        if self.resume_from is not None:
            record = self._restore()
            checkpoints = [tuple(c) for c in record["checkpoints"]]
            words, steps, best_score = record["words"], record["steps"], record["best_score"]
            first = record["epoch"] + 1
            if first < n_epochs:
                self.stdout.write(f"IPM: resuming after epoch {first} of {n_epochs} from {self.resume_from}\n")
            else:
                self.stdout.write(f"IPM: the run in {self.output} is complete ({n_epochs} epochs): nothing to do\n")
        if self.output is not None:
            self.output.mkdir(parents=True, exist_ok=True)
        log_step, finalize = T["logger"](self.nlp, self.stdout, self.stderr)
        start = last_mixed = time.perf_counter()
        if first < n_epochs:
            refs, dispatched = self._dispatch(first), start
        try:
            for epoch in range(first, n_epochs):
                t0 = time.perf_counter()
                results = self._gather(refs, epoch)
                t1 = time.perf_counter()
                self._mix(results, epoch)
                t2 = time.perf_counter()
                transfer = max(0.0, (t1 - dispatched) - max(r["seconds"] for r in results))
                if epoch + 1 < n_epochs:  # the shards train on while the driver evaluates
                    refs, dispatched = self._dispatch(epoch + 1), time.perf_counter()
                self._set_driver_weights()
                t3 = time.perf_counter()
                losses: Dict[str, float] = {}
                for r in results:
                    for k, v in r["losses"].items():
                        losses[k] = losses.get(k, 0.0) + v
                words += sum(r["words"] for r in results)
                steps += sum(r["steps"] for r in results)
                record = {
                    "epoch": epoch, "score": None, "epoch_seconds": t2 - last_mixed,
                    "wait_seconds": t1 - t0,
                    **{f"shard_{key}": [r[key] for r in results]
                       for key in ("seconds", "train_seconds", "load_seconds", "state_seconds")},
                    "transfer_seconds": transfer,
                    "mix_seconds": t2 - t1, "set_seconds": t3 - t2, "eval_seconds": 0.0, "save_seconds": 0.0,
                    "bytes_per_shard": state_nbytes(results[0]["states"]),
                }
                self.history.append(record)
                last_mixed = t2
                is_best = False
                if not (epoch + 1) % self.eval_every or epoch + 1 == n_epochs:
                    score, other = self.evaluate()
                    record["eval_seconds"] = time.perf_counter() - t3
                    record["score"] = score
                    checkpoints.append((score, steps))
                    is_best = score > best_score
                    best_score = max(best_score, score)
                    info = {"epoch": epoch, "step": steps, "score": score, "other_scores": other,
                            "losses": losses, "checkpoints": checkpoints,
                            "seconds": int(time.perf_counter() - start), "words": words}
                    update_meta(T, self.nlp, info)
                    if self.output is not None:
                        info["output_path"] = str(self.output / DIR_MODEL_LAST)
                    log_step(info)
                if self.output is not None:
                    state = {"epoch": epoch, "n_epochs": n_epochs, "config": self.config.to_str(),
                             "n_shards": self.n_shards, "history": [dict(h) for h in self.history],
                             "checkpoints": checkpoints, "words": words, "steps": steps,
                             "best_score": best_score, "shard_steps": list(self.shard_steps), "setup": self.setup}
                    self._save_async(before_to_disk, epoch, is_best, state)
                if self.on_epoch is not None:
                    self.on_epoch(record)
        finally:
            self.wait_for_saves()
            finalize()
        self.total_seconds = time.perf_counter() - start
        done = [h["epoch_seconds"] for h in self.history[first:]]
        if done:
            self.stdout.write(f"IPM: {len(done)} epochs in {sum(done):.1f} s (mean {sum(done) / len(done):.2f} s "
                              f"an epoch) after {s['setup_seconds']:.1f} s of set-up\n")
        return self.history

    def shutdown(self) -> None:
        for a in self.actors:
            ray.kill(a)
        self.actors = []

    def interrupted_message(self) -> str:
        """What a Ctrl-C leaves behind, in one line (once a save in progress is complete)."""
        self.wait_for_saves()
        if self.output is None:
            return "interrupted: nothing saved (no --output)"
        if self.saved_epoch is None:
            return f"interrupted before the first epoch ended: nothing saved in {self.output}; a rerun starts over"
        return (f"interrupted: {self.output} holds model-last and the IPM state of epoch {self.saved_epoch + 1}; "
                "rerun the same command to resume from there")


def train(config_path, output, **kwargs) -> List[dict]:
    """Train with IPM (see IPM); a Ctrl-C raises Interrupted saying what was saved."""
    return run_to_end(IPM(config_path, output, **kwargs))
