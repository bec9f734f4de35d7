"""pke_segmenter with a user dictionary (dict_features): a split that the
characters alone cannot learn, the dictionary saved with the model (disk,
bytes, pickle, the KernelSegmenter.v1 tokenizer), models without one, and
clear errors for every way the dictionary can be wrong."""
import pickle
import random

import numpy
import pytest
import spacy
import srsly

from spacy_adf.models.boundary_segmenter import concat_units
from spacy_adf.pipeline.kernel_segmenter import KernelSegmenter
from tests.helpers.reference_segmenters import boundary_segment_reference, vocab_names
from tests.helpers.seg_data import char_nlp, seg_examples, text_units

# With window 1 the gap 乙|丙 looks the same inside 甲乙丙 and between 丁乙
# and 丙戊: only the words around it tell them apart.
AMBIGUOUS = ["甲乙丙", "丁乙", "丙戊"]
VOCAB = AMBIGUOUS + ["己庚", "辛壬癸", "子"]
CONFIG = {"window": 1, "degree": 2, "trainer": "libsvm", "classifier": "pke", "sigma": 0.0}


def _sentences(n, seed=0):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = []
        for _ in range(rng.randint(2, 5)):
            words += rng.choice([["甲乙丙"], ["丁乙", "丙戊"], [rng.choice(VOCAB)]])
        out.append(words)
    return out


def _dict_file(tmp_path, words=VOCAB, name="dict.txt"):
    path = tmp_path / name
    path.write_text("".join(f"{w}\t10\tn\n" for w in words), encoding="utf8")
    return path


def _train(user_dict=None, n=80, **cfg):
    nlp = char_nlp()
    nlp.add_pipe("pke_segmenter", config={**CONFIG, **cfg})
    if user_dict is not None:
        nlp.config["initialize"]["components"]["pke_segmenter"] = {"user_dict": str(user_dict)}
    nlp.initialize(lambda: seg_examples(nlp, _sentences(n)))
    return nlp


@pytest.fixture(scope="module")
def dict_nlp(tmp_path_factory):
    return _train(_dict_file(tmp_path_factory.mktemp("dict")), dict_features=True)


TEXTS = ["甲乙丙丁乙丙戊", "丁乙丙戊甲乙丙", "辛壬癸 甲乙丙", "", "乙丙", "子子子"]


def _docs(docs):
    return [[(t.text, t.whitespace_) for t in doc] for doc in docs]


def test_the_dictionary_learns_what_the_characters_cannot(dict_nlp):
    examples = lambda nlp: seg_examples(nlp, _sentences(80))  # noqa: E731 - the training sentences
    plain = _train()
    assert plain.evaluate(examples(plain))["boundary_acc"] < 1.0  # the same gap both ways: errors
    scores = dict_nlp.evaluate(examples(dict_nlp))
    assert scores["boundary_acc"] == 1.0 and scores["token_f"] == 1.0
    held_out = dict_nlp.evaluate(seg_examples(dict_nlp, _sentences(30, seed=5)))
    assert held_out["token_f"] == 1.0
    assert [t.text for t in dict_nlp("甲乙丙丁乙丙戊")] == ["甲乙丙", "丁乙", "丙戊"]
    seg = dict_nlp.get_pipe("pke_segmenter")
    assert seg.cfg["stats"]["dict_words"] == len(VOCAB) - 1  # 子 is too short to match
    assert any(name.startswith("lex_span_len=") for name in vocab_names(seg.plain_model.vocab))


def test_c_segmentation_equals_the_python_reference(dict_nlp):
    seg = dict_nlp.get_pipe("pke_segmenter")
    codes, bounds, _ = concat_units([text_units(t)[::2] for t in TEXTS])
    assert seg.plain_model.segment(codes, bounds).tolist() == \
        boundary_segment_reference(seg.plain_model, codes, bounds).tolist()


def test_round_trips_keep_the_dictionary(dict_nlp, tmp_path):
    expected = _docs(dict_nlp.pipe(TEXTS))
    seg = dict_nlp.get_pipe("pke_segmenter")
    dict_nlp.to_disk(tmp_path / "model")
    loaded = spacy.load(tmp_path / "model")  # no dictionary file needed: it is in the model
    assert _docs(loaded.pipe(TEXTS)) == expected
    assert loaded.get_pipe("pke_segmenter").plain_model.dictionary.words() == seg.plain_model.dictionary.words()
    other = KernelSegmenter(dict_nlp.vocab).from_bytes(seg.to_bytes())
    assert other.cfg == seg.cfg and _docs(other(dict_nlp.make_doc(t)) for t in TEXTS) == expected
    clone = pickle.loads(pickle.dumps(seg))
    assert _docs(clone(dict_nlp.make_doc(t)) for t in TEXTS) == expected


def test_the_tokenizer_form_agrees(dict_nlp, tmp_path):
    expected = _docs(dict_nlp.pipe(TEXTS))
    dict_nlp.to_disk(tmp_path / "model")
    fast = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.KernelSegmenter.v1"}},
                                     "initialize": {"tokenizer": {"segmenter_model": str(tmp_path / "model")}}})
    fast.initialize()
    assert _docs(fast.pipe(TEXTS, batch_size=2)) == expected
    fast.to_disk(tmp_path / "fast")
    assert _docs(spacy.load(tmp_path / "fast").pipe(TEXTS)) == expected


def test_models_without_a_dictionary_load_as_before(tmp_path):
    nlp = _train(n=40)
    seg = nlp.get_pipe("pke_segmenter")
    expected = _docs(nlp.pipe(TEXTS))
    # files written before the dictionary part: no "dictionary" file or key, no dict_* in the cfg
    nlp.to_disk(tmp_path / "old")
    folder = tmp_path / "old" / "pke_segmenter"
    (folder / "dictionary").unlink()
    cfg = srsly.read_json(folder / "cfg")
    for key in ("dict_features", "dict_max_word", "checksum"):
        cfg.pop(key)
    srsly.write_json(folder / "cfg", cfg)
    loaded = spacy.load(tmp_path / "old")
    assert _docs(loaded.pipe(TEXTS)) == expected
    assert loaded.get_pipe("pke_segmenter").cfg["dict_features"] is False
    data = srsly.msgpack_loads(seg.to_bytes())
    del data["dictionary"]
    assert _docs(KernelSegmenter(nlp.vocab).from_bytes(srsly.msgpack_dumps(data))(nlp.make_doc(t))
                 for t in TEXTS) == expected


def test_missing_or_damaged_dictionary_files(dict_nlp, tmp_path):
    dict_nlp.to_disk(tmp_path / "a")
    target = tmp_path / "a" / "pke_segmenter" / "dictionary"
    data = target.read_bytes()
    target.write_bytes(data[:-3] + bytes([data[-3] ^ 1]) + data[-2:])
    with pytest.raises(ValueError, match=r"pke_segmenter.*dictionary.*checksum"):
        spacy.load(tmp_path / "a")
    target.unlink()
    with pytest.raises(ValueError, match=r"pke_segmenter.*dict_features on.*no dictionary"):
        spacy.load(tmp_path / "a")
    # a dictionary next to a cfg without dictionary features
    plain = _train(n=40)
    plain.to_disk(tmp_path / "b")
    dict_nlp.to_disk(tmp_path / "c")
    (tmp_path / "b" / "pke_segmenter" / "dictionary").write_bytes(
        (tmp_path / "c" / "pke_segmenter" / "dictionary").read_bytes())
    with pytest.raises(ValueError, match=r"pke_segmenter.*mismatched"):
        spacy.load(tmp_path / "b")


def test_dictionary_option_errors(tmp_path):
    with pytest.raises(ValueError, match=r"\[pke_segmenter\] dict_features is on, but initialize\(\) got no user_dict"):
        _train(dict_features=True)
    with pytest.raises(ValueError, match=r"\[pke_segmenter\] initialize\(\) got user_dict .*dict_features is off"):
        _train(_dict_file(tmp_path))
    for bad in ({"dict_max_word": 1}, {"dict_max_word": 9}):
        with pytest.raises(ValueError, match=r"\[pke_segmenter\] dict_max_word"):
            char_nlp().add_pipe("pke_segmenter", config=bad)
    with pytest.raises(ValueError, match=r"\[pke_segmenter\] dict_features must be true or false"):
        KernelSegmenter(char_nlp().vocab, dict_features="yes")


@pytest.mark.parametrize("content, message", [
    (None, r"user dictionary file '.*user\.txt' does not exist"),
    ("\n \n", r"user dictionary file '.*user\.txt' has no words"),
    ("甲\n乙\n", r"user dictionary file '.*user\.txt' has no word of 2 to 6 characters"),
    ("甲乙\n".encode("utf8") + "丙丁\n".encode("gbk"), r"user\.txt, line 2: not valid UTF-8"),
    ("甲乙\n".encode("utf8") + "word\n".encode("utf-16-le"), r"user\.txt, line 2: a NUL character"),
])
def test_dictionary_file_errors_name_the_file(tmp_path, content, message):
    path = tmp_path / "user.txt"
    if isinstance(content, str):
        path.write_text(content, encoding="utf8")
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(ValueError, match=r"\[pke_segmenter\] .*" + message):
        _train(path, n=10, dict_features=True)


def test_a_dictionary_in_an_installed_package():
    """pkg:PACKAGE/PATH names a file inside an installed package (spaCy's
    Japanese stop words: the first word of each line is read)."""
    nlp = _train("pkg:spacy/lang/ja/stop_words.py", n=20, dict_features=True)
    assert "うち" in nlp.get_pipe("pke_segmenter").plain_model.dictionary.words()


def test_dictionary_lengths_follow_dict_max_word(tmp_path):
    nlp = _train(_dict_file(tmp_path), n=40, dict_features=True, dict_max_word=2)
    words = nlp.get_pipe("pke_segmenter").plain_model.dictionary.words()
    assert words == sorted(w for w in VOCAB if len(w) == 2)
    names = vocab_names(nlp.get_pipe("pke_segmenter").plain_model.vocab)
    assert not any(n.endswith("=3") for n in names if n.startswith("lex_"))
    assert numpy.all([int(n.split("=")[1]) == 2 for n in names if n.startswith("lex_")])
