"""k-fold jack-knifing: deterministic folds, readers that split a corpus and
put jack-knifed annotation on the predicted Docs, and a chunker that learns
from that predicted annotation, not from the gold tags."""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.tokens import Doc, DocBin
from spacy.util import registry

from spacy_adf.corpora.conll import ConllCorpus, conll_to_docs
from spacy_adf.corpora.jackknifed import (FoldSplit, JackknifeAnnotations, JackknifedCorpus, JackknifeSettings,
                                          fold_config, fold_of)

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "assets" / "sample_chunking"
COLUMNS = ["words", "tag", "iob"]


def _words(examples):
    return [tuple(t.text for t in eg.reference) for eg in examples]


def test_fold_of_is_deterministic_seeded_and_spreads():
    words = ["The", "dog", "barked", "."]
    assert fold_of(words, 10, 0) == fold_of(list(words), 10, 0)
    sentences = [[f"w{i}", f"x{i % 7}"] for i in range(2000)]
    by_seed = {seed: [fold_of(s, 10, seed) for s in sentences] for seed in (0, 1)}
    assert by_seed[0] != by_seed[1]
    counts = [by_seed[0].count(f) for f in range(10)]
    assert min(counts) > 150 and max(counts) < 250  # ~200 each


def test_train_and_heldout_parts_partition_the_file():
    nlp = spacy.blank("en")
    parts = {part: _words(ConllCorpus(SAMPLE / "train.txt", columns=COLUMNS, part=part, folds=[3])(nlp))
             for part in ("all", "train", "heldout")}
    assert parts["heldout"] and parts["train"]
    assert not set(parts["train"]) & set(parts["heldout"])
    assert sorted(parts["train"] + parts["heldout"]) == sorted(parts["all"])
    # the wrapper reader selects the same sentences from any reader, in any order
    shuffled = ConllCorpus(SAMPLE / "train.txt", columns=COLUMNS, shuffle=True)
    wrapped = FoldSplit(shuffled, n_folds=10, folds=[3], part="heldout")
    assert sorted(_words(wrapped(nlp))) == sorted(parts["heldout"])
    with pytest.raises(ValueError, match="part must be"):
        ConllCorpus(SAMPLE / "train.txt", columns=COLUMNS, part="dev")
    with pytest.raises(ValueError, match="fold numbers"):
        FoldSplit(shuffled, n_folds=10, folds=[10], part="train")


def _renamed_annotations(path: Path, source: Path) -> Path:
    """A DocBin as spacy_adf jackknife writes it, with every tag renamed
    ("NN" -> "p_NN"): predicted tags that differ from gold everywhere."""
    vocab = spacy.blank("en").vocab
    docs = DocBin()
    for _, ref in conll_to_docs(vocab, source, columns=COLUMNS, input_attrs=[]):
        docs.add(Doc(vocab, words=[t.text for t in ref], tags=["p_" + t.tag_ for t in ref]))
    docs.to_disk(path)
    return path


def test_jackknifed_reader_sets_predicted_tags_and_keeps_gold_reference(tmp_path):
    annotations = _renamed_annotations(tmp_path / "a.spacy", SAMPLE / "dev.txt")
    nlp = spacy.blank("en")
    for reader in (ConllCorpus(SAMPLE / "dev.txt", columns=COLUMNS, iob_target="spans:chunks",
                               annotations=annotations, compact=True),
                   JackknifedCorpus(ConllCorpus(SAMPLE / "dev.txt", columns=COLUMNS, iob_target="spans:chunks"),
                                    JackknifeAnnotations(annotations, ["TAG"]))):
        examples = list(reader(nlp))
        assert examples
        for eg in examples:
            assert [t.tag_ for t in eg.predicted] == ["p_" + t.tag_ for t in eg.reference]
            assert not any(t.tag_.startswith("p_") for t in eg.reference)
            assert "chunks" in eg.reference.spans
    other = ConllCorpus(SAMPLE / "train.txt", columns=COLUMNS, annotations=annotations)
    with pytest.raises(ValueError, match="rerun it"):
        list(other(nlp))


def test_registered_readers_resolve_from_a_config(tmp_path):
    annotations = _renamed_annotations(tmp_path / "a.spacy", SAMPLE / "dev.txt")
    section = {"r": {"@readers": "spacy_adf.JackknifedCorpus.v1", "annotations": str(annotations),
                     "attrs": ["TAG"],
                     "corpus": {"@readers": "spacy_adf.FoldSplit.v1", "n_folds": 10, "folds": [0],
                                "part": "train", "seed": 0,
                                "corpus": {"@readers": "spacy_adf.ConllCorpus.v1", "path": str(SAMPLE / "dev.txt"),
                                           "columns": COLUMNS}}}}
    reader = registry.resolve(section)["r"]
    examples = list(reader(spacy.blank("en")))
    assert examples and all(t.tag_.startswith("p_") for eg in examples for t in eg.predicted)


def _chunk_f(nlp, path: Path, renamed: bool) -> float:
    gold, pred = set(), set()
    for n, (_, ref) in enumerate(conll_to_docs(nlp.vocab, path, columns=COLUMNS, iob_target="spans:chunks",
                                               input_attrs=[])):
        tags = [("p_" if renamed else "") + t.tag_ for t in ref]
        doc = nlp(Doc(nlp.vocab, words=[t.text for t in ref], tags=tags))
        gold |= {(n, s.start, s.end, s.label_) for s in ref.spans["chunks"]}
        pred |= {(n, s.start, s.end, s.label_) for s in doc.spans["chunks"]}
    tp = len(gold & pred)
    return 2 * tp / (len(gold) + len(pred))


def test_a_chunker_trained_on_jackknifed_tags_learns_the_predicted_tags(tmp_path):
    """The features of adf_tagger's training come from eg.predicted: a
    chunker trained where every predicted tag is renamed chunks text tagged
    the renamed way well, and text with the gold tag names (which it never
    saw as features) clearly worse."""
    train = _renamed_annotations(tmp_path / "train.spacy", SAMPLE / "train.txt")
    cmd = [sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "chunking.cfg"),
           "--paths.train", str(SAMPLE / "train.txt"), "--paths.dev", str(SAMPLE / "train.txt"),
           "--corpora.train.part", "train", "--corpora.dev.part", "heldout",
           "--paths.pos_annotations", str(train),
           "--training.max_steps", "60", "--training.eval_frequency", "30",
           "--output", str(tmp_path / "out")]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    nlp = spacy.load(tmp_path / "out" / "model-last")
    renamed, gold_names = _chunk_f(nlp, SAMPLE / "dev.txt", True), _chunk_f(nlp, SAMPLE / "dev.txt", False)
    assert renamed > 0.8
    assert renamed - gold_names > 0.1


def test_fold_config_splits_the_named_corpus_and_applies_overrides(tmp_path):
    settings = JackknifeSettings(upstream=[REPO / "configs" / "pos_conll2000.cfg"], output=tmp_path, n_folds=5,
                                 seed=3, overrides={"paths.train": "X.txt", "corpora.train.part": "all",
                                                    "paths.log": "{fold_dir}/log.jsonl"})
    config = fold_config(settings.upstream[0], settings, 2, tmp_path / "fold2")
    train, dev = config["corpora"]["train"], config["corpora"]["dev"]
    assert (train["@readers"], train["part"], train["folds"], train["n_folds"], train["seed"]) == \
           ("spacy_adf.FoldSplit.v1", "train", [2], 5, 3)
    assert dev["part"] == "heldout" and dev["corpus"] == train["corpus"]
    assert train["corpus"]["@readers"] == "spacy_adf.ConllCorpus.v1" and train["corpus"]["part"] == "all"
    assert config["paths"]["train"] == "X.txt"
    assert config["paths"]["log"] == str(tmp_path / "fold2" / "log.jsonl")


def test_jackknife_cli_annotates_every_sentence_once_by_a_model_that_did_not_see_it(tmp_path):
    out = tmp_path / "jk"
    cmd = [sys.executable, "-m", "spacy_adf", "jackknife", str(out), "--upstream", str(REPO / "configs" / "pos_conll2000.cfg"),
           "--n-folds", "3", "--paths.train", str(SAMPLE / "dev.txt"), "--training.max_epochs", "2"]
    first = subprocess.run(cmd + ["--folds", "1"], capture_output=True, text=True, cwd=REPO)
    assert first.returncode == 0, first.stderr[-3000:]
    assert (out / "fold1" / "annotations.spacy").exists() and not (out / "annotations.spacy").exists()
    # the two folds left run at the same time, each in its own process
    done = subprocess.run(cmd + ["--jobs", "2"], capture_output=True, text=True, cwd=REPO)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "folds [1, 3] in 2 processes" in done.stdout
    assert done.stdout.count("held-out sentences") == 2  # progress per fold; fold 2 of 3 was done
    assert "fold 2/3: already annotated" in done.stdout
    summary = json.loads((out / "jackknife.json").read_text())
    nlp = spacy.blank("en")
    docs = list(DocBin().from_disk(out / "annotations.spacy").get_docs(nlp.vocab))
    words = [tuple(t.text for t in d) for d in docs]
    gold = [tuple(t.text for t in ref) for _, ref in conll_to_docs(nlp.vocab, SAMPLE / "dev.txt",
                                                                   columns=COLUMNS, input_attrs=[])]
    assert sorted(words) == sorted(gold) and summary["sentences"] == len(gold)
    assert all(d.has_annotation("TAG") for d in docs)
    # fold by fold, in fold order: each held-out sentence's fold is the fold that annotated it
    sizes = [f["sentences"] for f in summary["folds"]]
    expected = [fold for fold in range(3) for _ in range(sizes[fold])]
    assert [fold_of(w, 3, 0) for w in words] == expected
    assert all(f["upstream"]["pos_conll2000"]["heldout_score"] > 0.5 for f in summary["folds"])
    assert not (out / "fold0" / "pos_conll2000").exists()  # fold models deleted unless --keep-models


def test_a_fold_annotated_under_other_settings_is_redone_not_reused(tmp_path):
    out = tmp_path / "jk"
    cmd = [sys.executable, "-m", "spacy_adf", "jackknife", str(out), "--upstream", str(REPO / "configs" / "pos_conll2000.cfg"),
           "--n-folds", "3", "--folds", "1", "--paths.train", str(SAMPLE / "dev.txt")]
    first = subprocess.run(cmd + ["--training.max_epochs", "1"], capture_output=True, text=True, cwd=REPO)
    assert first.returncode == 0, first.stderr[-3000:]
    same = subprocess.run(cmd + ["--training.max_epochs", "1"], capture_output=True, text=True, cwd=REPO)
    assert "fold 2/3: already annotated" in same.stdout
    changed = subprocess.run(cmd + ["--training.max_epochs", "2"], capture_output=True, text=True, cwd=REPO)
    assert changed.returncode == 0, changed.stderr[-3000:]
    assert "fold 2/3: annotated under other settings" in changed.stdout
    assert "held-out sentences" in changed.stdout
