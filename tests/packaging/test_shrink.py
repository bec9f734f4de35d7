"""`python -m spacy_adf shrink`: every CRF of a pipeline pruned only as far
as its dev score allows, and the pipeline saved as it was scored."""
import pytest
import spacy
from spacy.tokens import DocBin

from spacy_adf.__main__ import main
from spacy_adf.packaging.shrink import FRACTIONS, crf_parts, shrink_pipeline, weighted_score
from tests.helpers.tiny_data import make_ner_nlp, ner_examples
from tests.helpers.trained import FIXTURES, load_trained


def test_crf_parts_find_tokenizer_and_components():
    nlp, _ = load_trained("segmenter")
    assert [name for name, _ in crf_parts(nlp)] == [nlp.pipe_names[-1]]
    tok = spacy.load(FIXTURES / "segmenter_tokenizer")
    assert [name for name, _ in crf_parts(tok)] == ["tokenizer"]
    textcat, _ = load_trained("textcat")
    assert crf_parts(textcat) == []


def _trained_ner(tmp_path):
    nlp = make_ner_nlp()
    examples = ner_examples(nlp)
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(30):
        nlp.update(examples, sgd=optimizer, losses={})
    dev = tmp_path / "dev.spacy"
    DocBin(docs=[eg.reference for eg in examples]).to_disk(dev)
    nlp.to_disk(tmp_path / "model")
    return tmp_path / "model", dev


def test_shrink_keeps_the_dev_score_and_saves_what_it_scored(tmp_path):
    model, dev = _trained_ner(tmp_path)
    logged = []
    report = shrink_pipeline(model, tmp_path / "strict", 0.0, {"paths.dev": str(dev)}, log=logged.append)
    assert report["final_score"] >= report["base_score"]
    assert "ner_crf" in report["parts"] and any("dev score pruned" in line for line in logged)

    loose = shrink_pipeline(model, tmp_path / "loose", 1.0, {"paths.dev": str(dev)}, log=logged.append)
    part = loose["parts"]["ner_crf"]
    assert part["fraction"] == FRACTIONS[-1]  # any score is within a tolerance of 1
    assert part["bytes_after"] < part["bytes_before"]
    shrunk = spacy.load(tmp_path / "loose")
    (_, crf), = crf_parts(shrunk)
    assert crf.params.n_weights == part["after"]["n_weights"]


def test_shrink_refuses_a_pipeline_without_crf(tmp_path):
    nlp = spacy.blank("en")
    nlp.to_disk(tmp_path / "blank")
    with pytest.raises(ValueError, match="no trained CRF"):
        shrink_pipeline(tmp_path / "blank", tmp_path / "out", 0.0)


def test_command_line(tmp_path, capsys):
    model, dev = _trained_ner(tmp_path)
    assert main([]) == 0 and "shrink" in capsys.readouterr().out
    assert main(["nonsense"]) == 2
    report = tmp_path / "report.json"
    assert main(["shrink", str(model), str(tmp_path / "out"), "--paths.dev", str(dev),
                 "--report", str(report)]) == 0
    assert report.exists() and (tmp_path / "out" / "ner_crf").is_dir()
    with pytest.raises(SystemExit):
        main(["shrink", str(tmp_path / "missing"), str(tmp_path / "out2")])


def test_weighted_score_as_spacy_training():
    weights = {"ents_f": 1.0, "ents_p": 0.0, "tag_acc": None}
    assert weighted_score(weights, {"ents_f": 0.5, "ents_p": 0.4, "tag_acc": None}) == 0.5
    # a score the evaluation does not give is left out, as spaCy's training does
    assert weighted_score({"ents_f": 0.5, "tag_acc": 0.5}, {"ents_f": 0.8, "tag_acc": None}) == 0.4
    with pytest.raises(ValueError, match="nothing to judge"):
        weighted_score({"tag_acc": 1.0}, {"ents_f": 0.8})
