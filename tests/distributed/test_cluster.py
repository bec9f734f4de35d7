"""On a 3-node Ray cluster on this machine (conftest.LocalCluster: head and
two worker nodes, one CPU and their own object store each), joined by
address as docs/distributed.md says:

- annotation of 100,000 short documents, one worker node killed mid-run:
  every document once, identical to nlp.pipe, traceable to its input line;
- IPM training of the shipped streamed chunking config: the CLI stopped by
  SIGINT (Ctrl-C) after its first checkpoint says in one line what was
  saved; the rerun resumes, a worker node holding a shard is killed during
  it, the lost shard's epoch is trained again, and the final weights and
  rates equal an uninterrupted run's bit for bit (every epoch depends only
  on the mixed state before it; the shards are mixed in shard order).

Marked slow (about 2-4 minutes on a busy 2-core machine); CI runs them."""
import json
import os
import signal
import subprocess
import sys
import time

import numpy
import pytest
import spacy
from spacy.tokens import DocBin

pytest.importorskip("ray", reason='Ray is not installed (pip install "spacy-adf[ray]")')

from spacy.attrs import ORTH, SENT_START, SPACY  # noqa: E402

from spacy_adf.distributed.annotate import LINE_KEY, Annotation, cached_msgpack_codecs  # noqa: E402
from spacy_adf.distributed.train import IPM, train  # noqa: E402

from .conftest import REPO, SAMPLE  # noqa: E402

pytestmark = pytest.mark.slow

CONFIG = REPO / "configs" / "chunking_np.cfg"


def kill_a_worker_node(cluster, node_ids):
    """Kill a worker node (not the head) that runs one of `node_ids`' actors."""
    for node_id in node_ids:
        node = cluster.worker_node(node_id)
        if node is not None:
            cluster.kill_node(node)
            return node_id
    raise AssertionError(f"no actor on a worker node: {node_ids}")


def test_annotation_on_three_nodes_survives_a_lost_node(three_nodes, blank_pipeline, tmp_path):
    n = 100_000
    inp = tmp_path / "in.txt"
    lines = [f"d{i} w{i % 13}." if i % 9973 else "" for i in range(n)]  # a few blank lines: no documents
    inp.write_text("\n".join(lines) + "\n", encoding="utf8")
    run = Annotation(str(blank_pipeline), str(inp), str(tmp_path / "out"), workers=2, shard_size=5000,
                     address=three_nodes.address, progress=False)
    killed = []

    def kill_once(result):
        if not killed:
            killed.append(kill_a_worker_node(three_nodes, list(run.actor_nodes.values())))

    try:
        run.start()
        assert len(set(run.actor_nodes.values())) == 2  # spread over two nodes
        summary = run.run(on_shard=kill_once)
    finally:
        run.shutdown()
    texts = [t for t in lines if t]
    assert killed and summary["workers_replaced"] >= 1
    assert summary["n_docs"] == len(texts) and summary["n_shards_run"] == 20
    nlp = spacy.load(blank_pipeline)
    with cached_msgpack_codecs():  # DocBin reads each Doc's user data with a msgpack call
        got = [d for f in sorted((tmp_path / "out").glob("shard-*.spacy"))
               for d in DocBin().from_disk(f).get_docs(nlp.vocab)]
    assert [d.text for d in got] == texts
    assert [lines[d.user_data[LINE_KEY] - 1] for d in got] == texts
    attrs = [ORTH, SPACY, SENT_START]
    want = nlp.pipe(texts, batch_size=1000)
    assert all(numpy.array_equal(a.to_array(attrs), b.to_array(attrs)) for a, b in zip(got, want))


def overrides(steps):
    return {"paths.train": str(SAMPLE / "train.txt"), "paths.dev": str(SAMPLE / "dev.txt"),
            "training.max_steps": steps, "training.logger.console": False}


def cli_args(steps):
    return [f"--{k}" if i % 2 == 0 else (json.dumps(v) if not isinstance(v, str) else v)
            for k, v in overrides(steps).items() for i, v in enumerate((k, v))]


def checkpoint_arrays(folder):
    with numpy.load(folder / "ipm-state" / "state.npz") as data:
        return {k: data[k] for k in data.files}


def test_ipm_resumes_after_ctrl_c_and_redoes_a_lost_node_s_epoch(three_nodes, tmp_path):
    steps = 150  # the sample corpus: 10 batches a pass, so 15 epochs
    # the uninterrupted run
    reference = tmp_path / "reference"
    history = train(CONFIG, reference, workers=2, shards=2, overrides=overrides(steps),
                    address=three_nodes.address)
    assert len(history) == 15
    # the CLI as docs/distributed.md runs it on a cluster, stopped by Ctrl-C after its first checkpoint
    out = tmp_path / "resumed"
    cmd = [sys.executable, "-m", "spacy_adf.distributed", "train", str(CONFIG), "--workers", "2",
           "--output", str(out), "--address", three_nodes.address] + cli_args(steps)
    # SIGINT's default action in the child: a shell starts background jobs with
    # SIGINT ignored, the child would inherit that, and Python then installs no
    # KeyboardInterrupt handler (the run went on to the end and exited 0)
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 600
    while not (out / "ipm-state" / "state.json").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, (stdout[-2000:], stderr[-3000:])
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith(f"interrupted: {out} holds model-last and the IPM state of epoch ") and \
        last.endswith("rerun the same command to resume from there"), last
    saved = json.loads((out / "ipm-state" / "state.json").read_text())
    assert 0 <= saved["epoch"] < 14 and saved["n_epochs"] == 15
    assert spacy.load(out / "model-last").pipe_names == ["chunker"]
    # the rerun resumes; a worker node with a shard's actor is lost during it
    killed = []

    def kill_once(record):
        if not killed:
            killed.append(kill_a_worker_node(three_nodes, ipm.actor_nodes))

    ipm = IPM(CONFIG, out, workers=2, shards=2, overrides=overrides(steps), address=three_nodes.address,
              on_epoch=kill_once)
    try:
        assert ipm.resume_from is not None
        history = ipm.run()
    finally:
        ipm.shutdown()
    assert killed and ipm.redone  # the lost shard's epoch was trained again
    assert len(history) == 15 and [h["epoch"] for h in history] == list(range(15))
    want, got = checkpoint_arrays(reference), checkpoint_arrays(out)
    assert sorted(got) == sorted(want) == ["chunker/rates", "chunker/weights"]
    for key in want:
        assert numpy.array_equal(got[key], want[key]), key
    for folder in (reference, out):
        assert json.loads((folder / "ipm-state" / "state.json").read_text())["epoch"] == 14
    # model-last holds the final mixed weights in both
    weights = [spacy.load(f / "model-last").get_pipe("chunker").trainer.export_state()["weights"]
               for f in (reference, out)]
    assert numpy.array_equal(weights[0], weights[1]) and numpy.array_equal(weights[0], want["chunker/weights"])
