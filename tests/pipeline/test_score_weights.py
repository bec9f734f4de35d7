"""adf_tagger's score weights follow its target, so spacy train weighs the
score the component reports (no ents_* weights for a chunker)."""
import pickle

import pytest
import spacy
from spacy.tokens import Token

if not Token.has_extension("my_label"):
    Token.set_extension("my_label", default=None)


@pytest.mark.parametrize("target,key", [
    ("ents", "ents_f"), ("spans:chunks", "spans_chunks_f"), ("tag", "tag_acc"), ("pos", "pos_acc"),
    ("_.my_label", "my_label_acc"),
])
def test_score_weights_follow_the_target(target, key):
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", config={"target": target})
    weights = nlp.config["training"]["score_weights"]
    assert weights[key] == 1.0
    if key != "ents_f":
        assert "ents_f" not in weights
    # the filled config builds a pipeline with the same weights
    again = spacy.util.load_model_from_config(nlp.config, auto_fill=True)
    assert again.config["training"]["score_weights"] == weights


def test_two_taggers_weigh_both_targets():
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="pos", config={"target": "tag"})
    nlp.add_pipe("adf_tagger", name="chunker", config={"target": "spans:chunks"})
    weights = nlp.config["training"]["score_weights"]
    assert weights["tag_acc"] == weights["spans_chunks_f"] == 0.5
    assert "ents_f" not in weights
    assert nlp.get_pipe_meta("chunker").default_score_weights["spans_chunks_f"] == 1.0


def test_score_weights_survive_rename_and_pickle():
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="chunker", config={"target": "spans:np"})
    nlp.rename_pipe("chunker", "np_chunker")
    assert "spans_np_f" in nlp.get_pipe_meta("np_chunker").default_score_weights
    again = pickle.loads(pickle.dumps(nlp))
    assert "spans_np_f" in again.config["training"]["score_weights"]
