"""The TimingLogger's console table: headers readable within 80 columns."""
import io
from pathlib import Path

import pytest
import spacy

from spacy_adf.training.console_table import WIDTH, _row_width, console_table, legend, name_parts, plan_columns

REPO = Path(__file__).resolve().parents[2]


def test_span_scores_are_named_by_their_key_not_cut():
    weights = {"spans_phrases_f": 1.0, "spans_phrases_p": 0.0, "spans_phrases_r": 0.0}
    scores, headers, widths = plan_columns(["chunker"], weights)
    assert headers == ["E", "#", "LOSS CHUNKER", "PHRASES_F", "PHRASES_P", "PHRASES_R", "SCORE"]
    assert scores == list(weights) and _row_width(widths) <= WIDTH


def test_a_wide_table_drops_zero_weight_columns_then_cuts_headers():
    weights = {f"morph_{name}_acc": w for name, w in
               [("SrcPos_SrcSubPos", 0.5), ("ConjType", 0.25), ("ConjForm", 0.25)]}
    weights.update({f"extra_score_{i}_acc": 0.0 for i in range(8)})
    scores, headers, widths = plan_columns(["pos", "conj_type", "conj_form"], weights)
    assert _row_width(widths) <= WIDTH
    assert all(not h.endswith("...") for h in headers)
    assert {"morph_SrcPos_SrcSubPos_acc", "morph_ConjType_acc", "morph_ConjForm_acc"} <= set(scores)
    assert name_parts("morph_ConjForm_acc") == ["MORPH", "CONJ", "FORM", "ACC"]


def test_shortened_headers_stay_unique_and_are_spelled_out():
    # the shipped morph config: three taggers whose names and scores share
    # their starts ("LOSS MOR" three times and "MORPH_CONJ..." twice before)
    pipes = ["morph_pos", "morph_conj_type", "morph_conj_form"]
    weights = {"morph_SrcPos_SrcSubPos_acc": 0.5, "morph_ConjType_acc": 0.25, "morph_ConjForm_acc": 0.25}
    scores, headers, widths = plan_columns(pipes, weights)
    assert scores == list(weights) and _row_width(widths) <= WIDTH
    assert len(set(headers)) == len(headers)
    assert headers[2:5] == ["L POS", "L CONJ_T", "L CONJ_F"]
    assert headers[5:8] == ["SRC_POS", "CONJ_TYP", "CONJ_FOR"]
    lines = legend(pipes, scores, headers)
    text = " ".join(lines)
    assert all(len(line) <= WIDTH for line in lines)
    for name in pipes + list(weights):
        assert name in text
    assert "CONJ_TYP = morph_ConjType_acc" in text


def test_no_legend_when_nothing_is_shortened():
    weights = {"spans_phrases_f": 1.0, "spans_phrases_p": 0.0, "spans_phrases_r": 0.0}
    scores, headers, _ = plan_columns(["chunker"], weights)
    assert legend(["chunker"], scores, headers) == []


def test_rows_print_scores_and_score_times_100():
    nlp = spacy.blank("en")
    nlp.config["training"]["score_weights"] = {"ents_f": 1.0, "ents_p": 0.0, "ents_r": 0.0}
    out = io.StringIO()
    log_step, finalize = console_table(nlp, out)
    log_step(None)
    log_step({"epoch": 1, "step": 10, "losses": {}, "other_scores": {"ents_f": 0.9407, "ents_p": 0.9, "ents_r": 0.98},
              "score": 0.9407})
    finalize()
    lines = out.getvalue().splitlines()
    assert lines[0].split() == ["E", "#", "ENTS_F", "ENTS_P", "ENTS_R", "SCORE"]
    assert lines[2].split() == ["1", "10", "94.07", "90.00", "98.00", "94.07"]
    assert all(len(line) <= WIDTH for line in lines)


@pytest.mark.parametrize("config_path", sorted((REPO / "configs").glob("*.cfg")), ids=lambda p: p.name)
def test_every_shipped_config_logs_through_the_readable_table(config_path):
    """spaCy's console logger cuts headers to 13 characters ("BUNSETSU_D...")."""
    logger = spacy.util.load_config(config_path, interpolate=False)["training"]["logger"]
    assert logger["@loggers"] == "spacy_adf.TimingLogger.v1"
    assert logger.get("console", True) and not logger.get("progress_bar", False)
