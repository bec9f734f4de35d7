"""Iterative parameter mixing on the sample chunking corpus and on a
synthetic segmentation corpus, 2 shards on a local 2-CPU Ray: mixed weights
are the plain average of the shards', the rates their geometric mean, the
trained pipelines load, predict, annotate and package with `spacy package`."""
import importlib.util
import json
import subprocess
import sys

import numpy
import pytest
import spacy
from spacy.tokens import DocBin

pytest.importorskip("ray", reason='Ray is not installed (pip install "spacy-adf[ray]")')

from spacy_adf.corpora.conll import conll_to_docs  # noqa: E402
from spacy_adf.distributed.annotate import annotate  # noqa: E402
from spacy_adf.distributed.train import IPM, epoch_split  # noqa: E402

from tests.helpers.seg_data import make_sentences  # noqa: E402

from .conftest import REPO, SAMPLE  # noqa: E402

CONFIG = REPO / "configs" / "chunking_np.cfg"
SEG_CONFIG = REPO / "configs" / "seg_zh_weibo.cfg"


def overrides(**extra):
    base = {"paths.train": str(SAMPLE / "train.txt"), "paths.dev": str(SAMPLE / "dev.txt"),
            "training.max_epochs": 2, "training.logger.console": False}
    base.update(extra)
    return base


def run_epoch(ipm, epoch):
    """One epoch on every shard from the current mixed state; the driver's
    pipeline then holds the new mixed weights. The shards' results."""
    results = ipm._gather(ipm._dispatch(epoch), epoch)
    ipm._mix(results, epoch)
    ipm._set_driver_weights()
    return results


def test_mixed_weights_are_the_plain_average(ray_local):
    ipm = IPM(CONFIG, None, workers=2, shards=2, overrides=overrides(**{"corpora.train.limit": 200}))
    try:
        ipm.start()
        for epoch in range(2):
            results = run_epoch(ipm, epoch)
            shard_w = [r["states"]["chunker"]["weights"] for r in results]
            assert not numpy.array_equal(shard_w[0], shard_w[1])
            plain = ((shard_w[0].astype(numpy.float64) + shard_w[1]) / 2).astype(numpy.float32)
            assert numpy.array_equal(ipm.pipes["chunker"].trainer.model.params.weights, plain)
            rates = [r["states"]["chunker"]["rates"] for r in results]
            assert numpy.allclose(ipm.mixed["chunker"]["rates"], numpy.sqrt(rates[0] * rates[1]), rtol=1e-12)
            assert rates[0].min() < 0.05  # the frequent features' rates decayed
    finally:
        ipm.shutdown()


@pytest.fixture(scope="module")
def np_ipm(ray_local, tmp_path_factory):
    """The output folder of a 2-epoch IPM run of the chunker, and its history."""
    from spacy_adf.distributed.train import train

    out = tmp_path_factory.mktemp("np_ipm")
    history = train(CONFIG, out, workers=2, shards=2, overrides=overrides())
    return out, history


def test_trained_pipeline_loads_and_predicts(np_ipm, tmp_path):
    out, history = np_ipm
    assert len(history) == 2 and history[-1]["score"] > 0.9
    for key in ("epoch_seconds", "wait_seconds", "transfer_seconds", "mix_seconds", "eval_seconds",
                "save_seconds", "shard_train_seconds"):
        assert key in history[-1]
    for name in ("model-last", "model-best"):
        nlp = spacy.load(out / name)
        assert nlp.meta["performance"]["spans_chunks_f"] > 0.9
    assert not list(out.glob(".*tmp"))
    # annotate tagged Docs (DocBin input) with it: the same as nlp.pipe
    nlp = spacy.load(out / "model-last")
    docs = [pred for pred, _ in conll_to_docs(nlp.vocab, SAMPLE / "dev.txt", columns=["words", "tag", "iob"],
                                              iob_target="spans:chunks", limit=30)]
    inp = tmp_path / "dev.spacy"
    DocBin(docs=docs).to_disk(inp)
    annotate(str(out / "model-last"), str(inp), str(tmp_path / "ann"), workers=2, shard_size=8,
             progress=False)
    got = [d for f in sorted((tmp_path / "ann").glob("shard-*.spacy")) for d in DocBin().from_disk(f).get_docs(nlp.vocab)]
    want = list(nlp.pipe(DocBin(docs=docs).get_docs(nlp.vocab)))
    assert [[(s.start, s.end, s.label_) for s in d.spans["chunks"]] for d in got] == \
        [[(s.start, s.end, s.label_) for s in d.spans["chunks"]] for d in want]
    assert any(len(d.spans["chunks"]) for d in got)


def test_spacy_package_accepts_ipm_output(np_ipm, tmp_path):
    """`spacy package --build sdist` of IPM's model-last: the meta validates,
    the package directory and the sdist are made, the packaged data loads."""
    if importlib.util.find_spec("build") is None:  # spacy package then runs setup.py sdist
        pytest.importorskip("setuptools")
    out, _ = np_ipm
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    proc = subprocess.run([sys.executable, "-m", "spacy", "package", str(out / "model-last"), str(pkg),
                           "--name", "ipm_np", "--version", "0.0.1", "--build", "sdist"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-2000:])
    root = pkg / "en_ipm_np-0.0.1"
    assert list((root / "dist").glob("en_ipm_np-0.0.1.tar.gz"))
    meta = json.loads((root / "meta.json").read_text())
    assert meta["performance"]["spans_chunks_f"] > 0.9 and "spacy-adf" in " ".join(meta["requirements"])
    nlp = spacy.load(root / "en_ipm_np" / "en_ipm_np-0.0.1")
    assert nlp.pipe_names == spacy.load(out / "model-last").pipe_names


def write_seg_corpus(tmp_path):
    train_file, dev_file = tmp_path / "train.txt", tmp_path / "dev.txt"
    train = make_sentences(300, seed=0)
    # words seen in one sentence only: the lexicon hides each from its own fold
    train += [s + [chr(0x4E00 + 7 * i) + chr(0x4F00 + 11 * i)] for i, s in enumerate(make_sentences(30, seed=2))]
    train_file.write_text("".join(" ".join(s) + "\n" for s in train), encoding="utf8")
    dev = make_sentences(60, seed=1)
    dev_file.write_text("".join(" ".join(s) + "\n" for s in dev), encoding="utf8")
    return {"paths.train": str(train_file), "paths.dev": str(dev_file), "training.max_epochs": 2,
            "training.logger.console": False}, dev


def test_shard_trainer_restores_the_lexicon_folds(tmp_path):
    """nlp.to_bytes keeps the lexicon's words, not their jackknife folds: a
    shard gets them from the driver and extracts the same training features
    as the driver's pipeline (without them, every word is visible to its own
    sentence and IPM's segmenter loses about 5 F on Weibo)."""
    from spacy_adf.distributed.train import lexicon_folds

    over, _ = write_seg_corpus(tmp_path)
    nlp, examples, shard = shard_of(SEG_CONFIG, over)
    folds = lexicon_folds(nlp)
    assert set(folds["adf_segmenter"].values()) - {-1}  # some words are hidden from their fold
    assert shard.nlp.get_pipe("adf_segmenter").plain_model.lexicon_folds() == folds["adf_segmenter"]
    same_training_samples(nlp.get_pipe("adf_segmenter"), shard.nlp.get_pipe("adf_segmenter"), examples,
                          shard.all_examples)


def shard_of(config_path, over):
    """(the driver's pipeline, its training Examples, a one-shard trainer
    built from what IPM ships through Ray: pipeline bytes, folds, the
    Examples as bytes)."""
    from spacy.training.initialize import init_nlp
    from spacy.util import load_config, resolve_dot_names

    from spacy_adf.distributed.examples import examples_to_bytes
    from spacy_adf.distributed.train import ShardTrainer, lexicon_folds, resolve_training

    nlp = init_nlp(load_config(config_path, overrides=over, interpolate=False))
    config, T, _ = resolve_training(nlp)
    (corpus,) = resolve_dot_names(config, [T["train_corpus"]])
    examples = list(corpus(nlp))
    shard = ShardTrainer(nlp.config.to_str(), nlp.to_bytes(), lexicon_folds(nlp), examples_to_bytes(examples), 0, 1)
    return nlp, examples, shard


def same_training_samples(pipe, copy, examples, shipped):
    assert len(shipped) == len(examples)
    n = 0
    for eg, eg_copy in zip(examples[:40], shipped[:40]):
        a_all, b_all = pipe.training_samples(eg), copy.training_samples(eg_copy)
        assert len(a_all) == len(b_all)
        for a, b in zip(a_all, b_all):
            assert all(numpy.array_equal(x, y) for x, y in zip(a, b))
            n += 1
    assert n >= 20


def test_shipped_examples_give_the_chunker_the_same_training_samples():
    """The compact CoNLL reader's Examples, shipped as bytes (examples.py):
    the actor's chunker extracts the driver's features and gold."""
    nlp, examples, shard = shard_of(CONFIG, overrides())
    same_training_samples(nlp.get_pipe("chunker"), shard.nlp.get_pipe("chunker"), examples, shard.all_examples)


@pytest.mark.parametrize("max_epochs,max_steps,batches,want", [(8, 0, 140, 8), (-1, 1119, 140, 8), (0, 10, 3, 4),
                                                                (3, 1119, 140, 3), (8, 280, 140, 2)])
def test_epochs_of_a_streamed_config(max_epochs, max_steps, batches, want):
    from spacy_adf.distributed.train import n_epochs_of

    assert n_epochs_of(max_epochs, max_steps, batches) == want


def test_unbounded_config_is_refused():
    from spacy_adf.distributed.train import n_epochs_of

    with pytest.raises(ValueError, match="neither training.max_epochs nor training.max_steps"):
        n_epochs_of(-1, 0, 10)


def test_ipm_trains_the_segmenter(ray_local, tmp_path):
    """adf_segmenter (the Weibo config) on a synthetic corpus: 2 shards, the
    mixed weights and rates, a pipeline that segments, and annotation of raw
    text with it equal to nlp.pipe."""
    from spacy_adf.distributed.train import IPM

    over, dev = write_seg_corpus(tmp_path)
    ipm = IPM(SEG_CONFIG, tmp_path / "out", workers=2, shards=2, overrides=over)
    try:
        ipm.start()
        assert sorted(ipm.shard_sizes) == [165, 165]
        history = ipm.run()
        mixed = ipm.mixed["adf_segmenter"]
        assert numpy.array_equal(ipm.pipes["adf_segmenter"].trainer.model.params.weights, mixed["weights"])
        assert mixed["rates"].min() < 0.1  # ADF's rates decayed (c = 0.1)
    finally:
        ipm.shutdown()
    assert len(history) == 2 and history[-1]["score"] > 0.9
    nlp = spacy.load(tmp_path / "out" / "model-last")
    assert nlp.meta["performance"]["token_f"] > 0.9
    texts = ["".join(s) for s in dev]
    assert sum([t.text for t in d] == s for d, s in zip(nlp.pipe(texts), dev)) > 50
    inp = tmp_path / "raw.txt"
    inp.write_text("\n".join(texts) + "\n", encoding="utf8")
    annotate(str(tmp_path / "out" / "model-last"), str(inp), str(tmp_path / "ann"), workers=2, shard_size=16,
             progress=False)
    got = [d for f in sorted((tmp_path / "ann").glob("shard-*.spacy")) for d in DocBin().from_disk(f).get_docs(nlp.vocab)]
    assert [[t.text for t in d] for d in got] == [[t.text for t in d] for d in nlp.pipe(texts)]


@pytest.mark.parametrize("n,n_shards", [(0, 2), (1, 3), (10, 2), (101, 8)])
def test_every_epoch_split_partitions_the_corpus(n, n_shards):
    for epoch in range(3):
        parts = [epoch_split(n, 0, epoch, k, n_shards) for k in range(n_shards)]
        assert sorted(i for part in parts for i in part) == list(range(n))
        assert max(map(len, parts)) - min(map(len, parts)) <= 1
    if n > 10:  # a new split each epoch, the same on every actor
        assert epoch_split(n, 0, 0, 0, n_shards) != epoch_split(n, 0, 1, 0, n_shards)
        assert epoch_split(n, 0, 1, 0, n_shards) == epoch_split(n, 0, 1, 0, n_shards)
