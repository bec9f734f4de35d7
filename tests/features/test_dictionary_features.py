"""pke_segmenter's dictionary features (features/dictionary.pyx and the
lexicon slots of features/boundary.pyx) against a brute-force reference:
every substring of a run looked up in a Python set."""
import pickle

import numpy
import pytest

from spacy_adf.features.boundary import BoundaryVocab, gap_keys
from spacy_adf.features.dictionary import GAP_LENGTH_NAMES, WordDictionary
from tests.helpers.reference_segmenters import boundary_template, feature_name, vocab_names
from tests.helpers.seg_data import text_units

WORDS = ["日本", "日本語", "本語", "語の", "の文", "文章", "章です", "です", "カタカナ", "ひらがな", "ＡＢ",
         "本日", "晴天", "天なり", "明日", "本", "日本語の文章です", "あいうえおかきく"]
TEXTS = ["日本語の文章です。", "本日は 晴天なり\n明日も", "日本語日本語", "ＡＢＣカタカナ、ひらがな", "a", "",
         "日本語の文章です日本語の文章です", "あいうえおかきくけ"]


def brute_force(text, words, max_word):
    """(n_units, 3) lengths of `gap_lengths`, from every substring of every run."""
    codes, _, bounds = text_units(text)
    units = [chr(c) for c in codes.tolist()]
    out = numpy.zeros((len(units), 3), dtype=numpy.uint8)
    for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        for s in range(a, b):
            for e in range(s + 2, min(s + max_word, b) + 1):
                if "".join(units[s:e]) not in words:
                    continue
                length = e - s
                if e - 1 < b - 1:  # ends at unit e - 1: the gap after it
                    out[e - 1, 0] = max(out[e - 1, 0], length)
                if s > a:  # begins at unit s: the gap before it
                    out[s - 1, 1] = max(out[s - 1, 1], length)
                for k in range(s, e - 1):  # spans the gaps inside it
                    out[k, 2] = max(out[k, 2], length)
    return codes, bounds, out


@pytest.mark.parametrize("max_word", [2, 3, 6, 8])
def test_gap_lengths_equal_the_brute_force(max_word):
    dictionary = WordDictionary(max_word, WORDS)
    for text in TEXTS:
        codes, bounds, expected = brute_force(text, set(WORDS), max_word)
        assert dictionary.gap_lengths(codes, bounds).tolist() == expected.tolist(), text


def test_a_hand_made_example():
    codes, _, bounds = text_units("日本語の文")
    got = WordDictionary(6, ["日本", "日本語", "本語", "の文", "x"]).gap_lengths(codes, bounds)
    # rows: the gaps 日|本 本|語 語|の の|文, and the last unit (no gap)
    assert got.tolist() == [[0, 2, 3], [2, 0, 3], [3, 2, 0], [0, 0, 2], [0, 0, 0]]


@pytest.mark.parametrize("window", [1, 3])
def test_c_features_equal_the_python_template(window):
    dictionary = WordDictionary(6, WORDS)
    for text in TEXTS:
        codes, _, bounds = text_units(text)
        lexicon = dictionary.gap_lengths(codes, bounds)
        vocab = BoundaryVocab.from_keys(gap_keys(codes, bounds, window, lexicon), window)
        names = vocab_names(vocab)
        indptr, indices = vocab.gap_ids(codes, bounds, lexicon)
        runs = [[chr(c) for c in codes[a:b].tolist()] for a, b in zip(bounds[:-1], bounds[1:])]
        expected = [sorted(boundary_template(run, k, window, set(WORDS), 6))
                    for run in runs for k in range(len(run) - 1)]
        got = [sorted(names[i] for i in indices[indptr[g]:indptr[g + 1]]) for g in range(len(indptr) - 1)]
        assert got == expected, text
        # without the lexicon, the keys of a model without a dictionary
        plain = gap_keys(codes, bounds, window)
        assert numpy.array_equal(gap_keys(codes, bounds, window, lexicon)[:, :plain.shape[1]], plain)


def test_feature_names_and_vocab_slots():
    codes, _, bounds = text_units("日本語の文")
    lexicon = WordDictionary(6, ["日本語", "の文"]).gap_lengths(codes, bounds)
    keys = gap_keys(codes, bounds, 1, lexicon)
    names = {feature_name(int(k), 1) for k in keys.ravel() if k}
    assert {"lex_end_len=3", "lex_begin_len=2", "lex_span_len=3", "lex_span_len=2"} <= names
    assert all(n.split("=")[0] in GAP_LENGTH_NAMES or n[0] in "ct" for n in names)
    vocab = BoundaryVocab.from_keys(keys, 1)
    assert vocab_names(BoundaryVocab(1, vocab.keys)) == vocab_names(vocab)  # dictionary slots fit any window
    with pytest.raises(ValueError, match="shape"):
        vocab.gap_ids(codes, bounds, lexicon[1:])


def test_the_dictionary_keeps_the_words_that_can_match():
    d = WordDictionary(3)
    assert d.add_words(["日本", "本", "日本語の", "日本語", "日本"]) == 3  # 2..3 characters (one twice)
    assert d.words() == ["日本", "日本語"] and len(d) == 2
    assert d.add_words(["あい", "日本"]) == 2 and d.words() == ["あい", "日本", "日本語"]
    with pytest.raises(ValueError, match="whitespace"):
        d.add_words(["日 本"])
    with pytest.raises(ValueError, match="dict_max_word"):
        WordDictionary(9)
    with pytest.raises(ValueError, match="dict_max_word"):
        WordDictionary(1)


def test_deterministic_and_independent_of_word_order():
    codes, _, bounds = text_units(TEXTS[0] + TEXTS[6])
    a = WordDictionary(6, WORDS)
    b = WordDictionary(6, list(reversed(WORDS)) + WORDS[:3])
    assert a.text_bytes == b.text_bytes
    assert numpy.array_equal(a.gap_lengths(codes, bounds), b.gap_lengths(codes, bounds))
    for copy in (pickle.loads(pickle.dumps(a)), WordDictionary.from_text(6, a.text_bytes)):
        assert copy.words() == a.words() and copy.max_word == 6
        assert numpy.array_equal(copy.gap_lengths(codes, bounds), a.gap_lengths(codes, bounds))
    for bad in ("日本\n本".encode("utf8"), "日本\n日 本".encode("utf8"), "日本語の文章です".encode("utf8")):
        with pytest.raises(ValueError, match="dictionary text"):
            WordDictionary.from_text(6, bad)


def test_empty_input_and_empty_dictionary():
    codes, _, bounds = text_units("")
    assert WordDictionary(6, WORDS).gap_lengths(codes, bounds).shape == (0, 3)
    codes, _, bounds = text_units("日本語")
    assert not WordDictionary(6).gap_lengths(codes, bounds).any()
    with pytest.raises(ValueError, match="bounds"):
        WordDictionary(6, WORDS).gap_lengths(codes, numpy.array([0, 2], dtype=numpy.int64))
