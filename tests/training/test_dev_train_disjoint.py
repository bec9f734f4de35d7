"""No logged dev score is measured on training data: for every `spacy train`
of project.yml, the config with the overrides the step passes has a dev
corpus disjoint from its training corpus. Different files pass; the same
file only as complementary parts of the same folds (ConllCorpus part
"train" / "heldout" with equal folds, BratCorpus likewise), and then, where
the data is at hand, no dev sentence is a training sentence (bar the few
that recur across the documents of a corpus split by document)."""
import os
import shlex
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
import spacy
import srsly
from spacy import util
from spacy.cli._util import parse_config_overrides

REPO = Path(__file__).resolve().parents[2]
PROJECT = srsly.read_yaml(REPO / "project.yml")
# where project.yml's ../shared/data is not beside this checkout (a worktree)
DATA_ENV = "SPACY_ADF_SHARED_DATA"


def _vars() -> Dict[str, str]:
    values = dict(PROJECT["vars"])
    other = os.environ.get(DATA_ENV)
    if other and not (REPO / values["data"]).exists():
        values = {k: v.replace("../shared/data", other) if isinstance(v, str) else v for k, v in values.items()}
    return values


def _substitute(text: str, values: Dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("${vars.%s}" % key, str(value))
    return text


def train_steps() -> List[Tuple[str, str, Dict]]:
    """(step name, config path, overrides) of every `spacy train` line."""
    steps = []
    for command in PROJECT["commands"]:
        for line in command.get("script", []):
            args = shlex.split(_substitute(line, _vars()))
            if args[:4] != ["python", "-m", "spacy", "train"]:
                continue
            rest, i = [], 5
            while i < len(args):
                if args[i] in ("--output", "-o", "--code", "-c", "--gpu-id", "-g"):
                    i += 2
                    continue
                rest.append(args[i])
                i += 1
            steps.append((command["name"], args[4], parse_config_overrides(rest)))
    return steps


STEPS = train_steps()


def _corpus(config, dotted: str) -> Dict:
    node = config
    for part in dotted.split("."):
        node = node[part]
    return node


def _base(section: Dict) -> Dict:
    """The reader section that reads a file, under FoldSplit /
    JackknifedCorpus wrappers; the wrappers' split settings merged in."""
    split = {}
    while "corpus" in section and isinstance(section["corpus"], dict):
        if section.get("@readers") == "spacy_adf.FoldSplit.v1":
            split = {"n_folds": section["n_folds"], "folds": section["folds"], "part": section["part"],
                     "fold_seed": section.get("seed", 0)}
        section = section["corpus"]
    return {**section, **split}


def _split_key(section: Dict) -> Tuple:
    folds = section.get("folds", [section.get("fold", 0)])
    return (section.get("n_folds"), tuple(folds), section.get("fold_seed", section.get("seed", 0)))


def _readers(config_path: str, overrides: Dict):
    config = util.load_config(REPO / config_path, overrides=overrides, interpolate=True)
    training = config["training"]
    return config, _base(_corpus(config, training["train_corpus"])), _base(_corpus(config, training["dev_corpus"]))


def test_every_train_step_is_found():
    names = {name for name, _, _ in STEPS}
    assert {"train-pos-wsj", "train-np", "train-phrases", "train-bioner-jnlpba-pos"} <= names


@pytest.mark.parametrize("name,config_path,overrides", STEPS, ids=[s[0] for s in STEPS])
def test_dev_is_another_file_or_the_complementary_folds(name, config_path, overrides):
    _, train, dev = _readers(config_path, overrides)
    if str(train.get("path")) != str(dev.get("path")):
        return
    if train.get("split") is not None and train.get("split") != dev.get("split"):
        return  # one folder, the corpus's own train and test parts (BlitzerCorpus)
    parts = (train.get("part", "all"), dev.get("part", "all"))
    assert parts == ("train", "heldout"), (
        f"{name}: train and dev read {train.get('path')} as parts {parts}; the dev set must be the "
        "held-out folds of the training file (part train / heldout)")
    assert _split_key(train) == _split_key(dev), f"{name}: train and dev split the file differently"


def _same_file_steps():
    out = []
    for name, config_path, overrides in STEPS:
        try:
            _, train, dev = _readers(config_path, overrides)
        except Exception:  # noqa: BLE001 - a step whose config needs models is checked above only
            continue
        if str(train.get("path")) == str(dev.get("path")) and train.get("split") == dev.get("split"):
            out.append((name, config_path, overrides))
    return out


@pytest.mark.parametrize("name,config_path,overrides", _same_file_steps(),
                         ids=[s[0] for s in _same_file_steps()])
def test_no_dev_sentence_is_a_training_sentence(name, config_path, overrides):
    config, train, _ = _readers(config_path, overrides)
    if not Path(str(train["path"])).exists():
        pytest.skip(f"{train['path']} not available (set {DATA_ENV} for a worktree)")
    # the jack-knifed input annotation changes the predicted Docs only
    overrides = {k: (None if k == "paths.pos_annotations" else v) for k, v in overrides.items()}
    config = util.load_config(REPO / config_path, overrides=overrides, interpolate=True)
    nlp = spacy.blank(config["nlp"]["lang"])
    corpora = util.registry.resolve({"corpora": config["corpora"]})["corpora"]
    words = {}
    for key in ("train", "dev"):
        reader = corpora[config["training"][f"{key}_corpus"].split(".")[-1]]
        words[key] = [tuple(t.text for t in eg.reference) for eg in reader(nlp)]
    assert words["train"] and words["dev"]
    # list markers and the like ("1 .", "( 2 )") recur everywhere: sentences of 4+ tokens
    shared = {w for w in set(words["train"]) & set(words["dev"]) if len(w) >= 4}
    # readers that split by document (BratCorpus: abstracts) may see a sentence
    # that recurs across documents ("1 .", a stock phrase) on both sides; a dev
    # set read from the training folds shares all of its sentences
    assert len(shared) <= 0.01 * len(set(words["dev"])), (
        f"{name}: {len(shared)} of {len(set(words['dev']))} dev sentences are training sentences, "
        f"e.g. {sorted(shared)[:3]}")
