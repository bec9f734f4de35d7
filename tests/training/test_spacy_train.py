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


def _trained_files(out_dir: Path):
    return sorted((p.relative_to(out_dir), p.read_bytes()) for p in (out_dir / "model-last").rglob("*")
                  if p.is_file() and p.name != "config.cfg")


def test_compact_streamed_corpus_gives_the_weights_of_held_docs(tmp_path):
    """The shipped chunking configs stream a compact training corpus
    (max_epochs = -1, Docs built anew each epoch, samples cached by corpus
    item). Bit-identical weights to the same corpus held as Docs (the
    reuse_docs path, samples cached by Doc) and to re-reading the file every
    epoch (no cache hits after the first epoch), in the same shuffled order;
    initialize reads the whole corpus (the corpus setting), not spaCy's
    first 100 examples of a streamed corpus."""
    outputs = {}
    forms = {"compact": [], "held": ["--corpora.train.compact", "false", "--corpora.train.reuse_docs", "true"],
             "reread": ["--corpora.train.compact", "false"]}
    for form, extra in forms.items():
        cmd = [
            sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "chunking_np.cfg"),
            "--paths.train", str(REPO / "assets" / "sample_chunking" / "train.txt"),
            "--paths.dev", str(REPO / "assets" / "sample_chunking" / "dev.txt"),
            "--training.max_steps", "20", "--training.eval_frequency", "10",
            "--output", str(tmp_path / form), *extra,
        ]
        out = subprocess.run(cmd, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-3000:]
        outputs[form] = _trained_files(tmp_path / form)
    assert outputs["compact"] == outputs["held"] == outputs["reread"]
    cfg = json.loads((tmp_path / "compact" / "model-last" / "chunker" / "cfg").read_text())
    n_sentences = (REPO / "assets" / "sample_chunking" / "train.txt").read_text().count("\n\n")
    assert cfg["n_train_examples"] > 100 and abs(cfg["n_train_examples"] - n_sentences) <= 1


def test_initialize_corpus_setting_names_a_reader_or_says_what_is_wrong():
    from spacy_adf.pipeline.trainable import initialize_examples

    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="corpora.nothing"):
        list(initialize_examples(lambda: [], "chunker.initialize", nlp, "corpora.nothing"))
    with pytest.raises(ValueError, match="needs nlp"):
        list(initialize_examples(lambda: [], "chunker.initialize", None, "corpora.train"))


@pytest.mark.parametrize("config, overrides", [
    ("chunking_np.cfg", {"paths.train": "assets/sample_chunking/train.txt",
                         "paths.dev": "assets/sample_chunking/dev.txt"}),
    ("ebc_conll2000.cfg", {"paths.train": "assets/sample_chunking/train.txt",
                           "paths.dev": "assets/sample_chunking/dev.txt"}),
])
def test_a_batcher_that_makes_no_batches_is_refused_at_initialize(config, overrides):
    """size = 0 gives spaCy's loop no batch: it would train nothing, and run
    forever over a streamed corpus (chunking_np.cfg has max_epochs = -1)."""
    from spacy.training.initialize import init_nlp

    cfg = spacy.util.load_config(REPO / "configs" / config,
                                 overrides={**{k: str(REPO / v) for k, v in overrides.items()},
                                            "training.batcher.size": 0}, interpolate=False)
    with pytest.raises(ValueError, match=r"\[training.batcher\] size = 0 makes no batches"):
        init_nlp(cfg)


def test_freeze_gc_callback_freezes_what_exists_after_initialize():
    import gc

    nlp = spacy.blank("en")
    before = gc.get_freeze_count()
    try:
        assert registry.callbacks.get("spacy_adf.freeze_gc.v1")()(nlp) is nlp
        assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()



def test_return_freed_memory_callback_hands_back_the_pipeline():
    from spacy_adf.training.callbacks import large_blocks_mapped

    nlp = spacy.blank("en")
    assert registry.callbacks.get("spacy_adf.return_freed_memory.v1")()(nlp) is nlp
    assert isinstance(large_blocks_mapped(), bool)
