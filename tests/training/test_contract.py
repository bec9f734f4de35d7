"""The component contract (training/contract.py): every component names
its plain model `plain_model` and keeps a thinc Model in `self.model`;
sparse-trained components declare whether update() only reads the
examples (no default); training reaches components, their trainers,
models and optimizers only through the declared protocols, which list
every call training/ and distributed/ make on them."""
import pytest
import spacy
from thinc.api import Model

from spacy_adf.models.boundary_segmenter import BoundarySegmenter
from spacy_adf.models.bunsetsu_parser import BunsetsuParser
from spacy_adf.models.char_segmenter import CharSegmenter
from spacy_adf.models.kernel_tagger import KernelTagger
from spacy_adf.models.maxent_text import MaxEntText
from spacy_adf.models.sequence_crf import SequenceCRF
from spacy_adf.pipeline.kernel_component import KernelComponent
from spacy_adf.pipeline.trainable import SparseTrainedPipe
from spacy_adf.training.contract import (BatchTrainable, DeclaresUpdateEffects, FinishesUpdates, PairScoring,
                                         PredictionScoring, Scoring, SparseOptimizer, TrainableModel, Trainer,
                                         TrainedByTrainer, Updatable, reads_examples_only)
from spacy_adf.training.sparse_trainer import SparseTrainer
from spacy_adf.training.spacy_internals import copy_needed
from tests.helpers.trained import load_trained

PLAIN_MODELS = {
    "adf_tagger": SequenceCRF,
    "adf_segmenter": CharSegmenter,
    "adf_textcat": MaxEntText,
    "pke_dependency": BunsetsuParser,
    "pke_tagger": KernelTagger,
    "pke_segmenter": BoundarySegmenter,
}
SPARSE = ("adf_tagger", "adf_segmenter", "adf_textcat")


@pytest.mark.parametrize("factory", sorted(PLAIN_MODELS))
def test_every_component_names_its_plain_model_the_same_way(factory):
    component = spacy.blank("en").add_pipe(factory)
    assert isinstance(component.model, Model)
    assert isinstance(component.plain_model, PLAIN_MODELS[factory])
    assert any(value is component.plain_model for value in component.model.attrs.values())
    with pytest.raises(AttributeError):
        component.plain_model = None  # read-only: the thinc Model carries it
    assert isinstance(component, SparseTrainedPipe if factory in SPARSE else KernelComponent)


@pytest.mark.parametrize("factory", sorted(PLAIN_MODELS))
def test_components_answer_the_protocols_training_checks(factory):
    component = spacy.blank("en").add_pipe(factory)
    assert isinstance(component, Scoring) and isinstance(component, DeclaresUpdateEffects) == (factory in SPARSE)
    sparse = factory in SPARSE
    for protocol in (BatchTrainable, TrainedByTrainer, Updatable, FinishesUpdates):
        assert isinstance(component, protocol) == sparse or protocol in (Updatable, FinishesUpdates), protocol
    if sparse:
        assert reads_examples_only(component) and isinstance(component.trainer, SparseTrainer)
        model = component.trainer.model
        for member in ("is_built", "require_built", "await_steps", "training_params", "params", "online_steps",
                       "accumulate_gradient", "batch_objective", "hold_pending", "settle", "swapped_weights",
                       "memory", "name"):
            assert member in dir(model), (TrainableModel.__name__, member)
    assert isinstance(component, PairScoring) == (factory == "adf_tagger")
    assert isinstance(component, PredictionScoring) == (factory == "adf_tagger")


def test_a_sparse_component_must_declare_what_update_does():
    with pytest.raises(TypeError, match="update_reads_examples_only"):
        class Undeclared(SparseTrainedPipe):
            pass

    class Writes(SparseTrainedPipe):
        update_reads_examples_only = False

    class Inherits(Writes):
        pass

    assert not reads_examples_only(Writes.__new__(Writes))
    assert not reads_examples_only(Inherits.__new__(Inherits))


class _Writer:
    """A component that updates but declares nothing: taken to write."""

    def __call__(self, doc):
        return doc

    def update(self, examples, *, drop=0.0, sgd=None, losses=None):
        return losses


def test_undeclared_components_are_taken_to_write():
    nlp, _ = load_trained("tagger")
    assert not copy_needed(nlp, (), ())  # adf_tagger declares that it only reads
    assert isinstance(_Writer(), Updatable) and not reads_examples_only(_Writer())


def test_copy_needed_for_a_component_that_does_not_declare():
    class Pipeline:
        pipeline = [("writer", _Writer())]

    assert copy_needed(Pipeline(), (), ())
    assert not copy_needed(Pipeline(), ("writer",), ())


def test_example_preparation_state_goes_through_the_trainer():
    _, segmenter = load_trained("segmenter")
    folds = segmenter.trainer.export_preparation()
    assert folds == segmenter.plain_model.lexicon_folds() and folds
    _, again = load_trained("segmenter")  # a copy loaded from disk: every word visible to every fold
    assert set(again.plain_model.lexicon_folds().values()) == {-1}
    again.trainer.import_preparation(folds)
    assert again.plain_model.lexicon_folds() == folds
    _, tagger = load_trained("tagger")
    assert tagger.trainer.export_preparation() is None
    tagger.trainer.import_preparation(None)
    with pytest.raises(ValueError, match=r"\[adf_tagger\].*no example preparation"):
        tagger.trainer.import_preparation({"a": 1})


def test_sparse_optimizers_follow_the_protocol():
    from spacy_adf.optimizers.adf import ADF

    assert isinstance(ADF(0.1), SparseOptimizer)


def _members(protocol) -> set:
    return {name for name in (*vars(protocol), *getattr(protocol, "__annotations__", {}))
            if not name.startswith("_")}


def _read_on(receivers, folders=("training", "distributed")) -> dict:
    """{attribute: files} of every `<receiver>.attribute` in `folders`,
    the receiver a name or an attribute (`proc.trainer`) in `receivers`."""
    import ast
    from pathlib import Path

    import spacy_adf

    root = Path(spacy_adf.__file__).parent
    found = {}
    for folder in folders:
        for path in sorted((root / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf8"))):
                if not isinstance(node, ast.Attribute):
                    continue
                value = node.value
                receiver = value.id if isinstance(value, ast.Name) else value.attr if isinstance(value, ast.Attribute) else None
                if receiver in receivers:
                    found.setdefault(node.attr, set()).add(f"{folder}/{path.name}")
    return found


def test_the_contract_lists_what_training_calls_on_trainers_models_and_optimizers():
    """Every method or attribute training/ and distributed/ reach on a
    component's trainer, a trained model or a sparse optimizer is declared
    by its protocol, and SparseTrainer / the optimizers have them all."""
    from spacy_adf.optimizers.adf import ADF

    trainer_calls = _read_on({"trainer"})
    assert set(trainer_calls) <= _members(Trainer), {k: v for k, v in trainer_calls.items()
                                                     if k not in _members(Trainer)}
    assert {"export_preparation", "import_preparation", "restart_from", "export_state"} <= set(trainer_calls)
    _, tagger = load_trained("tagger")
    assert all(hasattr(tagger.trainer, name) for name in _members(Trainer))
    model_calls = set(_read_on({"model"}, folders=("training",)))
    assert model_calls <= _members(TrainableModel), model_calls - _members(TrainableModel)
    thinc_api = {"step_schedules"}  # a thinc Optimizer's, called as spaCy's loop calls it
    optimizer_calls = set(_read_on({"sgd", "optimizer"}))
    assert optimizer_calls <= _members(SparseOptimizer) | thinc_api, optimizer_calls
    assert all(hasattr(ADF(0.1), name) for name in _members(SparseOptimizer) | thinc_api)
