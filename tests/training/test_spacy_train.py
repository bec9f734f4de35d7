"""Training through spaCy's machinery: registry, configs, spacy train, and
the ADF optimizer's dense path on spaCy's own components."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.training import Example
from spacy.util import registry
from thinc.api import Optimizer

from spacy_adf.optimizers.adf import ADF

REPO = Path(__file__).resolve().parents[2]


def test_registered_names_resolve_in_a_fresh_interpreter():
    code = (
        "from spacy.util import registry\n"
        "import spacy, sys\n"
        "assert 'spacy_adf' not in sys.modules\n"
        "registry.architectures.get('spacy_adf.CRF.v1')\n"
        "registry.optimizers.get('spacy_adf.ADF.v1')\n"
        "registry.readers.get('spacy_adf.ConllCorpus.v1')\n"
        "registry.readers.get('spacy_adf.DocBinCorpus.v1')\n"
        "registry.scorers.get('spacy_adf.tagger_scorer.v1')\n"
        "registry.misc.get('spacy_adf.templates.chunking.v1')\n"
        "registry.loggers.get('spacy_adf.TimingLogger.v1')\n"
        "registry.callbacks.get('spacy_adf.freeze_gc.v1')\n"
        "nlp = spacy.blank('en'); nlp.add_pipe('adf_tagger')\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_adf_from_config_is_a_thinc_optimizer():
    cfg = {"@optimizers": "spacy_adf.ADF.v1", "learn_rate": 0.05, "sigma": 5.0}
    opt = registry.resolve({"o": cfg})["o"]
    assert isinstance(opt, Optimizer) and isinstance(opt, ADF)
    for bad, match in [
        ({"alpha": 0.5, "beta": 0.9}, "beta"),
        ({"window": 0}, "window"),
        ({"learn_rate": -1.0}, "positive"),
        ({"sigma": 0.0}, "sigma"),
        ({"minibatch": 0}, "minibatch"),
    ]:
        with pytest.raises(ValueError, match=match):
            ADF(**{"learn_rate": 0.05, **bad})
    with pytest.raises(ValueError, match="learn_rate must be"):
        ADF([0.1, 0.05])


def test_adf_dense_path_trains_spacys_tagger():
    nlp = spacy.blank("en")
    nlp.add_pipe("tagger")
    data = [
        (["I", "like", "green", "eggs"], ["PRP", "VBP", "JJ", "NNS"]),
        (["Eat", "blue", "ham"], ["VB", "JJ", "NN"]),
        (["They", "like", "ham"], ["PRP", "VBP", "NN"]),
    ]
    examples = [Example(nlp.make_doc(" ".join(w)), spacy.tokens.Doc(nlp.vocab, words=w, tags=t))
                for w, t in data]
    nlp.initialize(lambda: examples)
    opt = ADF(0.01, dense_window=10)
    losses = []
    for _ in range(60):
        l = {}
        nlp.update(examples, sgd=opt, losses=l)
        losses.append(l["tagger"])
    assert losses[-1] < 0.2 * losses[0]
    assert nlp.evaluate(examples)["tag_acc"] == pytest.approx(1.0)
    # per-element rates decayed for the weights that kept getting gradients
    rates = next(iter(opt._dense_rates.values()))
    assert rates.min() < 0.01


def test_spacy_train_end_to_end_on_sample_data(tmp_path):
    log = tmp_path / "log.jsonl"
    cmd = [
        sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "chunking_np.cfg"),
        "--paths.train", str(REPO / "assets" / "sample_chunking" / "train.txt"),
        "--paths.dev", str(REPO / "assets" / "sample_chunking" / "dev.txt"),
        "--paths.log", str(log),
        "--training.max_epochs", "2", "--training.eval_frequency", "10",
        "--output", str(tmp_path / "out"),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert records and records[-1]["train_seconds"] <= records[-1]["wall_seconds"]
    assert records[-1]["other_scores"]["spans_chunks_f"] > 0.8
    nlp = spacy.load(tmp_path / "out" / "model-last")
    doc = nlp(spacy.tokens.Doc(nlp.vocab, words=["the", "dog", "saw", "a", "cat"],
                               tags=["DT", "NN", "VBD", "DT", "NN"]))
    assert [(s.start, s.end) for s in doc.spans["chunks"]] == [(0, 2), (3, 5)]


def test_training_corpus_shared_with_initialize_gives_identical_weights(tmp_path):
    """reuse_docs on the training corpus (the shipped configs): the training
    loop takes the Examples initialize read instead of reading the file
    again; the trained weights are bit-identical to reading it anew."""
    outputs = {}
    for reuse in ("true", "false"):
        cmd = [
            sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "chunking_np.cfg"),
            "--paths.train", str(REPO / "assets" / "sample_chunking" / "train.txt"),
            "--paths.dev", str(REPO / "assets" / "sample_chunking" / "dev.txt"),
            "--corpora.train.reuse_docs", reuse,
            "--training.max_epochs", "2", "--training.eval_frequency", "10",
            "--output", str(tmp_path / reuse),
        ]
        out = subprocess.run(cmd, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-3000:]
        outputs[reuse] = sorted((p.relative_to(tmp_path / reuse), p.read_bytes())
                                for p in (tmp_path / reuse / "model-last").rglob("*")
                                if p.is_file() and p.name != "config.cfg")
    assert outputs["true"] == outputs["false"]


def test_freeze_gc_callback_freezes_what_exists_after_initialize():
    import gc

    nlp = spacy.blank("en")
    before = gc.get_freeze_count()
    try:
        assert registry.callbacks.get("spacy_adf.freeze_gc.v1")()(nlp) is nlp
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()

