"""Iterative parameter mixing on the sample chunking corpus, 2 shards on a
local 2-CPU Ray: mixed weights are the plain average of the shards', the
rates their geometric mean, and the trained pipeline loads and predicts."""
import numpy
import pytest
import spacy
from spacy.tokens import DocBin

pytest.importorskip("ray", reason='Ray is not installed (pip install "spacy-adf[ray]")')

from spacy_adf.corpora.conll import conll_to_docs  # noqa: E402
from spacy_adf.distributed.annotate import annotate  # noqa: E402
from spacy_adf.distributed.train import IPM  # noqa: E402

from .conftest import REPO, SAMPLE  # noqa: E402

CONFIG = REPO / "configs" / "chunking_np.cfg"


def overrides(**extra):
    base = {"paths.train": str(SAMPLE / "train.txt"), "paths.dev": str(SAMPLE / "dev.txt"),
            "training.max_epochs": 2, "training.logger.console": False}
    base.update(extra)
    return base


def test_mixed_weights_are_the_plain_average(ray_local):
    ipm = IPM(CONFIG, None, workers=2, shards=2, overrides=overrides(**{"corpora.train.limit": 200}))
    try:
        ipm.start()
        for epoch in range(2):
            results = ipm.epoch(epoch)
            shard_w = [r["states"]["chunker"]["weights"] for r in results]
            assert not numpy.array_equal(shard_w[0], shard_w[1])
            plain = ((shard_w[0].astype(numpy.float64) + shard_w[1]) / 2).astype(numpy.float32)
            assert numpy.array_equal(ipm.pipes["chunker"].trainer.model.params.weights, plain)
            rates = [r["states"]["chunker"]["rates"] for r in results]
            assert numpy.allclose(ipm.mixed["chunker"]["rates"], numpy.sqrt(rates[0] * rates[1]), rtol=1e-12)
            assert rates[0].min() < 0.05  # the frequent features' rates decayed
    finally:
        ipm.shutdown()


def test_trained_pipeline_loads_and_predicts(ray_local, tmp_path):
    from spacy_adf.distributed.train import train

    history = train(CONFIG, tmp_path / "out", workers=2, shards=2, overrides=overrides())
    assert len(history) == 2 and history[-1]["score"] > 0.9
    for name in ("model-last", "model-best"):
        nlp = spacy.load(tmp_path / "out" / name)
        assert nlp.meta["performance"]["spans_chunks_f"] > 0.9
    # annotate tagged Docs (DocBin input) with it: the same as nlp.pipe
    nlp = spacy.load(tmp_path / "out" / "model-last")
    docs = [pred for pred, _ in conll_to_docs(nlp.vocab, SAMPLE / "dev.txt", columns=["words", "tag", "iob"],
                                              iob_target="spans:chunks", limit=30)]
    inp = tmp_path / "dev.spacy"
    DocBin(docs=docs).to_disk(inp)
    annotate(str(tmp_path / "out" / "model-last"), str(inp), str(tmp_path / "ann"), workers=2, shard_size=8,
             progress=False)
    got = [d for f in sorted((tmp_path / "ann").glob("shard-*.spacy")) for d in DocBin().from_disk(f).get_docs(nlp.vocab)]
    want = list(nlp.pipe(DocBin(docs=docs).get_docs(nlp.vocab)))
    assert [[(s.start, s.end, s.label_) for s in d.spans["chunks"]] for d in got] == \
        [[(s.start, s.end, s.label_) for s in d.spans["chunks"]] for d in want]
    assert any(len(d.spans["chunks"]) for d in got)
