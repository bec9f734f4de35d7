"""The three kernel components (pke_dependency, pke_tagger, pke_segmenter)
take the trainer settings the same way: the same config values reach
`kernel_forms.train_binary` as the same arguments, and the defaults of
their configs and of their models' `train` are the same."""
import inspect

import pytest
import spacy
from spacy.language import Language

import spacy_adf.pipeline.kernel_tagger  # noqa: F401  (registers the factory)
from spacy_adf.models import boundary_segmenter, bunsetsu_parser, kernel_forms, kernel_tagger
from spacy_adf.models.kernel_forms import TRAINER_SETTINGS
from tests.helpers.dep_data import corpus_examples, knp_text
from tests.helpers.seg_data import char_nlp, make_sentences, seg_examples
from tests.pipeline.test_kernel_tagger import make_examples


class Stop(Exception):
    """Raised in place of training: the arguments are all these tests need."""


def _dependency(config, tmp_path):
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config=config)
    (tmp_path / "train.knp").write_text(knp_text(10), encoding="utf8")
    return nlp, corpus_examples(nlp, tmp_path / "train.knp")


def _tagger(config, tmp_path):
    nlp = spacy.blank("en")
    nlp.add_pipe("pke_tagger", config=config)
    return nlp, make_examples(nlp, 10)


def _segmenter(config, tmp_path):
    nlp = char_nlp()
    nlp.add_pipe("pke_segmenter", config=config)
    return nlp, seg_examples(nlp, make_sentences(10))


# factory: (a pipeline with it and its training examples, its model's module)
COMPONENTS = {"pke_dependency": (_dependency, bunsetsu_parser), "pke_tagger": (_tagger, kernel_tagger),
              "pke_segmenter": (_segmenter, boundary_segmenter)}


TRAIN_BINARY = inspect.signature(kernel_forms.train_binary)  # before any test patches it


def _train_binary_arguments(factory, config, tmp_path, monkeypatch):
    """The arguments (defaults filled in) of the component's first
    `train_binary` call in `initialize`, without the data and the outputs."""
    make, module = COMPONENTS[factory]
    calls = []

    def record(*args, **kwargs):
        bound = TRAIN_BINARY.bind(*args, **kwargs)
        bound.apply_defaults()
        calls.append({k: v for k, v in bound.arguments.items() if k not in ("X", "y", "progress", "stats")})
        raise Stop

    monkeypatch.setattr(kernel_forms, "train_binary", record)  # behind kernel_forms.train_model
    monkeypatch.setattr(module, "train_binary", record, raising=False)  # imported by name
    nlp, examples = make(config, tmp_path)
    with pytest.raises(Stop):
        nlp.initialize(lambda: examples)
    return calls[0]


@pytest.mark.parametrize("trainer", ["libsvm", "primal", "online"])
def test_the_same_settings_reach_train_binary_alike(trainer, tmp_path, monkeypatch):
    config = {"trainer": trainer, "degree": 2, "C": 0.5, "cache_size": 123.0, "max_iter": 7, "epochs": 3,
              "merge_duplicates": True}
    got = {factory: _train_binary_arguments(factory, config, tmp_path, monkeypatch) for factory in COMPONENTS}
    want = {**config, "seed": 0}
    assert all(arguments == want for arguments in got.values()), got


def test_the_default_settings_reach_train_binary_alike(tmp_path, monkeypatch):
    for factory in COMPONENTS:
        arguments = _train_binary_arguments(factory, {}, tmp_path, monkeypatch)
        assert {k: arguments[k] for k in TRAINER_SETTINGS} == TRAINER_SETTINGS, factory


def test_configs_and_models_have_the_same_defaults():
    for factory in COMPONENTS:
        default_config = Language.get_factory_meta(factory).default_config
        assert {k: default_config[k] for k in TRAINER_SETTINGS} == TRAINER_SETTINGS, factory
    defaults = {**TRAINER_SETTINGS, "seed": 0}
    for model in (bunsetsu_parser.BunsetsuParser, kernel_tagger.KernelTagger, boundary_segmenter.BoundarySegmenter):
        parameters = inspect.signature(model.train).parameters
        assert {k: parameters[k].default for k in defaults} == defaults, model.__name__
