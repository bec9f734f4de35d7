"""Boundary features (features/boundary.pyx) against the plain-Python
statement of the template, and the vocabulary's checks."""
import numpy
import pytest

from spacy_adf.features.boundary import BoundaryVocab, gap_keys, gap_units
from tests.helpers.reference_segmenters import boundary_template, feature_name, vocab_names
from tests.helpers.seg_data import text_units

TEXTS = ["日本語の文章です。", "ＡＢＣ１２３カタカナ、ひらがな", "a", "ab", "本日は 晴天なり\n明日も", "絵文字😀です"]


def _runs(text):
    codes, _, bounds = text_units(text)
    runs = [list(text.replace(" ", "").replace("\n", ""))[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    return codes, bounds, runs


@pytest.mark.parametrize("window", [1, 2, 3, 4])
def test_c_features_equal_the_python_template(window):
    for text in TEXTS:
        codes, bounds, runs = _runs(text)
        vocab = BoundaryVocab.from_keys(gap_keys(codes, bounds, window), window)
        names = vocab_names(vocab)
        indptr, indices = vocab.gap_ids(codes, bounds)
        expected = [sorted(boundary_template(run, k, window)) for run in runs for k in range(len(run) - 1)]
        got = [sorted(names[i] for i in indices[indptr[g]:indptr[g + 1]]) for g in range(len(indptr) - 1)]
        assert got == expected, text


def test_template_of_the_paper_window():
    feats = boundary_template(list("日本語の文"), 1)
    assert feats == ["c-2=日", "c-1=本", "c+1=語", "c+2=の", "c+3=文",
                     "t-3=EDGE", "t-2=han", "t-1=han", "t+1=han", "t+2=hiragana", "t+3=han"]
    # inside a long run: 3 characters and 3 types on each side
    assert len(boundary_template(list("あいうえおかき"), 3)) == 12


def test_gaps_do_not_cross_runs():
    codes, bounds, runs = _runs("ab cd")
    assert gap_units(bounds).tolist() == [0, 2]
    assert gap_keys(codes, bounds).shape == (2, 12)


def test_unknown_features_are_dropped():
    codes, bounds, _ = _runs("日本語")
    vocab = BoundaryVocab.from_keys(gap_keys(codes, bounds), 3)
    other, obounds, _ = _runs("英国語")
    indptr, indices = vocab.gap_ids(other, obounds)
    names = vocab_names(vocab)
    assert sorted(names[i] for i in indices[indptr[1]:indptr[2]]) == sorted(
        f for f in boundary_template(list("英国語"), 1) if f in names)
    assert all(0 <= i < len(vocab) for i in indices)


def test_min_count_and_key_order():
    codes, bounds, _ = _runs("ああああいう")
    keys = gap_keys(codes, bounds)
    every = BoundaryVocab.from_keys(keys, 3)
    common = BoundaryVocab.from_keys(keys, 3, min_count=3)
    assert set(vocab_names(common)) < set(vocab_names(every))
    assert numpy.all(numpy.diff(every.keys.astype(numpy.float64)) > 0)
    assert feature_name(int(every.keys[0]), 3) == vocab_names(every)[0]


def test_vocab_checks_its_input():
    with pytest.raises(ValueError, match="window"):
        BoundaryVocab(0)
    with pytest.raises(ValueError, match="window"):
        BoundaryVocab(9)
    codes, bounds, _ = _runs("日本語の文章")
    keys = BoundaryVocab.from_keys(gap_keys(codes, bounds, 3), 3).keys
    with pytest.raises(ValueError, match="window of 1"):
        BoundaryVocab(1, keys)  # slots of window 3 do not fit window 1
    with pytest.raises(ValueError, match="unique"):
        BoundaryVocab(3, numpy.concatenate([keys, keys[:1]]))
    with pytest.raises(ValueError, match="bounds"):
        BoundaryVocab(3, keys).gap_ids(codes, numpy.array([0, 2], dtype=numpy.int64))


def test_empty_input():
    codes, bounds, _ = _runs("")
    assert gap_keys(codes, bounds).shape == (0, 12)
    indptr, indices = BoundaryVocab(3).gap_ids(codes, bounds)
    assert indptr.tolist() == [0] and indices.shape == (0,)
