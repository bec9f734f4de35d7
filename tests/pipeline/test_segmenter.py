"""adf_segmenter: tags, character features vs a plain reference, training,
user dictionary, bad inputs, text preservation and serialization."""
import pickle
import random

import numpy
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from tests.helpers.seg_data import (WORDS, char_nlp, make_sentences, seg_examples, template_names, text_units,
                                    word_lengths_to_flags)
from tests.helpers.trained import FIXTURES
from spacy_adf.tags.bmes import decode_starts, encode
from spacy_adf.features.char_units import doc_units
from spacy_adf.features.chars import CharFeaturizer, text_codes
from spacy_adf.optimizers.adf import ADF
from spacy_adf.scorers.segmentation import doc_words, segmentation_prf
from spacy_adf.tokenizers.word_tokenizer import SegmenterTokenizer

SEG_MODEL = {"@architectures": "spacy_adf.SegmenterCRF.v1", "lexicon_folds": 2}


def train_segmenter(sentences, epochs=8, lang="zh", learn_rate=0.1, folds=2, seed=0, scheme="BMES"):
    nlp = char_nlp(lang)
    seg = nlp.add_pipe("adf_segmenter", config={"model": dict(SEG_MODEL, lexicon_folds=folds),
                                                "scheme": scheme})
    examples = seg_examples(nlp, sentences)
    nlp.initialize(lambda: examples)
    opt = ADF(learn_rate=learn_rate, sigma=5.0)
    rng = random.Random(seed)
    for _ in range(epochs):
        rng.shuffle(examples)
        for i in range(0, len(examples), 16):
            nlp.update(examples[i:i + 16], sgd=opt)
    return nlp, seg


@pytest.fixture(scope="module")
def trained():
    return train_segmenter(make_sentences(300, seed=1))


# ---------------------------------------------------------------- tags

@pytest.mark.parametrize("scheme", ["BMES", "BI", "BB2B3MES"])
def test_tag_round_trip(scheme):
    rng = random.Random(0)
    for _ in range(200):
        lengths = [rng.randint(1, 7) for _ in range(rng.randint(1, 12))]
        starts, ends = word_lengths_to_flags(lengths)
        tags = encode(starts, ends, scheme)
        assert numpy.array_equal(decode_starts(tags, scheme), starts)


def test_bmes_tags_by_hand():
    starts, ends = word_lengths_to_flags([1, 2, 3])
    assert encode(starts, ends, "BMES").tolist() == [3, 0, 2, 0, 1, 2]
    assert encode(starts, ends, "BI").tolist() == [0, 0, 1, 0, 1, 1]


def test_six_tags_by_hand():
    # B=0 M=1 E=2 S=3 B2=4 B3=5
    starts, ends = word_lengths_to_flags([1, 2, 3, 4, 6])
    assert encode(starts, ends, "BB2B3MES").tolist() == [3, 0, 2, 0, 4, 2, 0, 4, 5, 2,
                                                         0, 4, 5, 1, 1, 2]
    assert encode(starts[:0], ends[:0], "BB2B3MES").tolist() == []
    # B2 and B3 neither open nor close a word: B2 B3 B2 is one word
    assert decode_starts(numpy.array([4, 5, 4, 3]), "BB2B3MES").tolist() == [True, False, False, True]


def test_decode_is_total():
    # any tag sequence decodes to a segmentation, e.g. B B M
    assert decode_starts(numpy.array([0, 0, 1]), "BMES").tolist() == [True, True, False]
    assert decode_starts(numpy.array([2, 1, 3]), "BMES").tolist() == [True, True, True]


# ---------------------------------------------------------------- features

def reference_features(chars, lexicon, min_word=2, max_word=6):
    """Plain-Python statement of the templates: one value (or None) each."""
    n = len(chars)

    def c(j):
        return chars[j] if 0 <= j < n else f"<{j if j < 0 else j - n + 1}>"

    def cls(j):
        from spacy_adf.features.chars import CLASS_NAMES, char_classes
        return CLASS_NAMES[char_classes(text_codes(chars[j]))[0]] if 0 <= j < n else f"<{j - 0}>"

    def in_lex(s, l):
        return 0 <= s and s + l <= n and "".join(chars[s:s + l]) in lexicon

    rows = []
    for i in range(n):
        le = max([l for l in range(min_word, max_word + 1) if in_lex(i - l + 1, l)], default=0)
        lb = max([l for l in range(min_word, max_word + 1) if in_lex(i, l)], default=0)
        lm = max([l for s in range(i - max_word, i) for l in range(min_word, max_word + 1)
                  if s < i < s + l - 1 and in_lex(s, l)], default=0)
        ty = [cls(i - 1) if i - 1 >= 0 else "<s>", cls(i), cls(i + 1) if i + 1 < n else "</s>"]
        row = [c(i + k) for k in range(-2, 3)]
        row += [c(i + k) + c(i + k + 1) for k in range(-2, 2)]
        row += [c(i - 1) + "_" + c(i + 1)]
        row += [True if (0 <= j and j + 1 < n and chars[j] == chars[j + 1]) else None for j in range(i - 2, i + 2)]
        row += [True if (0 <= j and j + 2 < n and chars[j] == chars[j + 2]) else None for j in range(i - 3, i + 2)]
        row += [ty[1], tuple(ty)]
        row += [le or None, lb or None, lm or None,
                (le, c(i)) if le else None, (lb, c(i)) if lb else None,
                (le, lb) if (le or lb) else None, (ty[1], c(i - 1)), (ty[1], c(i + 1)),
                (lm, c(i)) if lm else None]
        row += ["".join(chars[i - l + 1:i + 1]) if in_lex(i - l + 1, l) else None
                for l in range(min_word, max_word + 1)]
        row += ["".join(chars[i:i + l]) if in_lex(i, l) else None for l in range(min_word, max_word + 1)]
        rows.append(row)
    return rows


def test_features_match_plain_reference():
    lexicon = {"中国", "人民", "中国人民", "银行", "哈哈", "ab12"}
    f = CharFeaturizer()
    f.add_words(sorted(lexicon))
    rng = random.Random(3)
    alphabet = list("中国人民银行哈你好ab12，。😀")
    texts = ["中国人民银行", "哈哈哈哈", "ab12中国", "中"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 15))) for _ in range(40)]
    seen = {}
    for text in texts:
        chars = list(text)
        ref = reference_features(chars, lexicon)
        hashes = f.hashes(text_codes(text))
        assert hashes.shape == (len(chars), f.n_templates)
        for i in range(len(chars)):
            for t in range(f.n_templates):
                on = hashes[i, t] != 0
                assert on == (ref[i][t] is not None), (text, i, template_names(f)[t])
                if on:
                    # same value <-> same hash, within a template
                    key = (t, ref[i][t] if t >= 2 else (ref[i][t],))
                    prev = seen.setdefault(key, hashes[i, t])
                    assert prev == hashes[i, t], (text, i, template_names(f)[t])
    by_hash = {}
    for (t, value), h in seen.items():
        assert by_hash.setdefault(int(h), (t, value)) == (t, value)


def test_lexicon_folds_hide_words_from_their_own_fold():
    f = CharFeaturizer()
    f.add_word("北京", fold=3)
    f.add_word("上海", fold=1)
    f.add_word("上海", fold=2)  # seen in two folds: always visible
    lex_end = template_names(f).index("lex_end_len")
    h = lambda text, fold: f.hashes(text_codes(text), fold=fold)[:, lex_end]
    assert h("北京", 3)[1] == 0
    assert h("北京", 0)[1] != 0 and h("北京", -1)[1] != 0
    assert h("上海", 1)[1] != 0 and h("上海", 2)[1] != 0


def test_featurizer_rejects_bad_words_and_bounds():
    f = CharFeaturizer()
    with pytest.raises(ValueError):
        f.add_word("北 京")
    with pytest.raises(ValueError):
        f.add_word("")
    with pytest.raises(ValueError):
        CharFeaturizer(min_word=1)
    with pytest.raises(ValueError):
        f.hashes(text_codes("中国"), numpy.array([0, 1]))
    assert pickle.loads(pickle.dumps(f)).fold_of == f.fold_of


def test_units_split_runs_at_whitespace():
    text = "我爱 北京\u3000天安门  ok😀\n"
    nlp = char_nlp()
    codes_d, _, bounds_d = doc_units(nlp(text))
    codes_t, pos, bounds_t = text_units(text)
    assert numpy.array_equal(codes_d, codes_t)
    assert numpy.array_equal(bounds_d, bounds_t)
    assert [text[p] for p in pos] == list("我爱北京天安门ok😀")
    assert bounds_t.tolist() == [0, 2, 4, 7, 10]


# ---------------------------------------------------------------- training

@pytest.mark.parametrize("scheme", ["BMES", "BI", "BB2B3MES"])
def test_overfits_a_tiny_corpus(scheme):
    sentences = make_sentences(20, seed=5)
    nlp, seg = train_segmenter(sentences, epochs=30, folds=0, scheme=scheme)
    pred = [doc_words(d) for d in nlp.pipe(["".join(s) for s in sentences])]
    assert segmentation_prf(sentences, pred)["token_f"] == 1.0


def test_learns_held_out_sentences(trained):
    nlp, seg = trained
    test = make_sentences(50, seed=99)
    pred = [doc_words(d) for d in nlp.pipe(["".join(s) for s in test])]
    assert segmentation_prf(test, pred)["token_f"] > 0.9


def test_training_is_deterministic():
    sentences = make_sentences(60, seed=2)
    a = train_segmenter(sentences, epochs=2)[1]
    b = train_segmenter(sentences, epochs=2)[1]
    assert numpy.array_equal(a.plain_model.crf.params.weights, b.plain_model.crf.params.weights)


def test_score_reports_sighan_and_oov(trained):
    nlp, seg = trained
    examples = seg_examples(nlp, make_sentences(30, seed=7))
    scores = nlp.evaluate(examples)
    for key in ("token_p", "token_r", "token_f", "oov_recall", "iv_recall"):
        assert key in scores
    assert scores["token_f"] > 0.9


def rare_word_corpus(seed=0):
    """Common words plus rare words of uncommon characters (most in one fold
    only, so the dictionary features learn what an unseen match is worth)."""
    rng = random.Random(seed)
    pool = [chr(c) for c in range(0x6C00, 0x6C00 + 80)]
    rare = sorted({"".join(rng.choice(pool) for _ in range(rng.randint(2, 4))) for _ in range(400)})
    sentences = []
    for _ in range(800):
        s = [rng.choice(WORDS) for _ in range(rng.randint(3, 8))]
        s.insert(rng.randint(0, len(s)), rng.choice(rare))
        sentences.append(s)
    new_words = ["".join(rng.choice(pool) for _ in range(rng.randint(4, 6))) for _ in range(60)]
    return sentences, new_words


def test_user_dictionary_changes_segmentations(tmp_path):
    sentences, new_words = rare_word_corpus()
    nlp, seg = train_segmenter(sentences, epochs=6, folds=10)
    texts = ["我们喜欢" + w + "的电影" for w in new_words]
    before = [doc_words(d) for d in nlp.pipe(texts)]
    path = tmp_path / "user.txt"
    path.write_text("".join(w + "\t100\n\n" for w in new_words), encoding="utf8")
    assert seg.load_user_dict(path) == len(set(new_words))
    after = [doc_words(d) for d in nlp.pipe(texts)]
    whole_before = sum(w in b for w, b in zip(new_words, before))
    whole_after = sum(w in a for w, a in zip(new_words, after))
    assert whole_after >= whole_before + 3
    changed = [i for i, (b, a) in enumerate(zip(before, after)) if new_words[i] in a and new_words[i] not in b]
    assert changed
    # the user words are saved with the model
    nlp2 = char_nlp()
    seg2 = nlp2.add_pipe("adf_segmenter")
    seg2.from_bytes(seg.to_bytes())
    assert [doc_words(d) for d in nlp2.pipe(texts)] == after
    assert set(new_words) <= seg2.plain_model.user_words


def test_user_dict_errors(tmp_path, trained):
    nlp, seg = trained
    with pytest.raises(ValueError, match="does not exist"):
        seg.load_user_dict(tmp_path / "missing.txt")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ValueError, match="UTF-8"):
        seg.load_user_dict(bad)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n", encoding="utf8")
    with pytest.raises(ValueError, match=r"empty\.txt' has no words"):
        seg.load_user_dict(empty)


# ---------------------------------------------------------------- inputs

BAD_INPUTS = [
    "",
    "   ",
    "\n\n\t \u3000",
    "我们用iPhone 12和Python3.11写代码，2024年5月",
    "哈哈😀😀👍🏽今天天气很好！！！",
    "從未見過的字龘靐齉",
    "a",
    " 中国 ",
    "中国\n\n人民  银行",
]


@pytest.mark.parametrize("text", BAD_INPUTS)
def test_text_preserved_and_forms_agree(trained, text):
    nlp, seg = trained
    doc = nlp(text)
    assert doc.text == text
    assert "".join(t.text_with_ws for t in doc) == text
    tok = SegmenterTokenizer(nlp.vocab).from_segmenter(seg)
    doc2 = tok(text)
    assert doc2.text == text
    assert [t.text for t in doc2] == [t.text for t in doc]
    assert [t.whitespace_ for t in doc2] == [t.whitespace_ for t in doc]
    for t in doc:
        assert t.is_space or not any(ch.isspace() for ch in t.text)


def test_plain_character_docs_take_the_text_path(trained):
    """A plain character Doc is segmented from its text (segment_docs); the
    result equals the unit path (predict + word_docs) on every input, and
    user_data is kept. Docs that are not plain take the unit path."""
    from spacy_adf.pipeline.segmenter import _plain_char_text, segment_docs, word_docs

    nlp, seg = trained
    texts = ["".join(s) for s in make_sentences(30, seed=12)] + BAD_INPUTS
    docs = [nlp.make_doc(t) for t in texts]
    for k, doc in enumerate(docs):
        doc.user_data["k"] = k
    got = segment_docs(docs, seg.predict, seg.plain_model.segment)
    want = word_docs([nlp.make_doc(t) for t in texts], seg.predict([nlp.make_doc(t) for t in texts]))
    outputs = lambda ds: [[(t.text, t.whitespace_) for t in d] for d in ds]  # noqa: E731
    assert outputs(got) == outputs(want)
    assert [d.user_data["k"] for d in got] == list(range(len(texts)))
    assert _plain_char_text(nlp.make_doc("中国人民")) == "中国人民"
    assert _plain_char_text(nlp.make_doc("中国 人民")) is None  # a trailing space
    assert _plain_char_text(Doc(nlp.vocab, words=["中国", "人"], spaces=[False, False])) is None
    tagged = nlp.make_doc("中国人")
    tagged[1].tag_ = "X"
    assert _plain_char_text(tagged) is None


def test_huge_line(trained):
    nlp, seg = trained
    text = "".join(w for s in make_sentences(10_000, seed=8) for w in s)[:100_000]
    assert len(text) == 100_000
    tok = SegmenterTokenizer(nlp.vocab).from_segmenter(seg)
    doc = tok(text)
    assert doc.text == text
    assert nlp(text).text == text


def test_tokenizer_pipe_matches_call(trained):
    nlp, seg = trained
    tok = SegmenterTokenizer(nlp.vocab).from_segmenter(seg)
    texts = BAD_INPUTS + ["".join(s) for s in make_sentences(20, seed=9)]
    piped = list(tok.pipe(texts, batch_size=7))
    for text, doc in zip(texts, piped):
        assert [t.text for t in doc] == [t.text for t in tok(text)]


def test_pickled_tokenizer_keeps_its_forced_user_words():
    # the fixture's user word 生命科学 is kept whole by forcing, which the featurizer's own pickle drops
    tok = spacy.load(FIXTURES / "segmenter_tokenizer").tokenizer
    text = "我们在北京研究生命科学"
    assert [t.text for t in tok(text)][-1] == "生命科学"
    assert [t.text for t in pickle.loads(pickle.dumps(tok))(text)] == [t.text for t in tok(text)]


def test_untrained_and_wrong_inputs():
    nlp = char_nlp()
    seg = nlp.add_pipe("adf_segmenter")
    with pytest.raises(ValueError, match="not initialized"):
        nlp("中国")
    with pytest.raises(ValueError, match="no non-empty"):
        from spacy.training import Example
        nlp.initialize(lambda: [Example(nlp.make_doc(""), Doc(nlp.vocab, words=[]))])
    with pytest.raises(ValueError, match="takes no labels"):
        seg.add_label("X")
    with pytest.raises(ValueError):
        char_nlp().add_pipe("adf_segmenter", config={"scheme": "BIO"})
    with pytest.raises(ValueError):
        char_nlp().add_pipe("adf_segmenter", config={"model": dict(SEG_MODEL, lexicon_folds=-1)})
    tok = SegmenterTokenizer(nlp.vocab)
    with pytest.raises(ValueError, match="no model"):
        tok("中国")
    with pytest.raises(TypeError):
        tok(b"bytes")


def test_mismatched_example_text_is_reported(trained):
    nlp, seg = trained
    from spacy.training import Example
    ref = Doc(nlp.vocab, words=["中国", "人民"], spaces=[False, False])
    eg = Example(nlp.make_doc("中国人"), ref)  # spaCy only checks when aligning
    with pytest.raises(ValueError, match="texts differ"):
        nlp.update([eg], sgd=ADF())


# ---------------------------------------------------------------- serialization

def _outputs(nlp, texts):
    return [[(t.text, t.whitespace_) for t in nlp(text)] for text in texts]


TEXTS = ["".join(s) for s in make_sentences(30, seed=11)] + BAD_INPUTS


def test_disk_bytes_pickle_round_trips(trained, tmp_path):
    nlp, seg = trained
    expected = _outputs(nlp, TEXTS)
    nlp.to_disk(tmp_path / "p")
    assert _outputs(spacy.load(tmp_path / "p"), TEXTS) == expected
    nlp2 = char_nlp()
    nlp2.add_pipe("adf_segmenter", config={"model": SEG_MODEL})
    nlp2.from_bytes(nlp.to_bytes())
    assert _outputs(nlp2, TEXTS) == expected
    assert _outputs(pickle.loads(pickle.dumps(nlp)), TEXTS) == expected


@pytest.mark.parametrize("lang", ["zh", "ja"])
def test_blank_pipeline_with_segmenter_tokenizer(trained, tmp_path, lang):
    nlp, seg = trained
    nlp.to_disk(tmp_path / "trained")
    fast = spacy.blank(lang, config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.Segmenter.v1"}},
                                     "initialize": {"tokenizer": {"segmenter_model": str(tmp_path / "trained")}}})
    fast.initialize()
    expected = _outputs(nlp, TEXTS)
    assert _outputs(fast, TEXTS) == expected
    fast.to_disk(tmp_path / "fast")
    assert _outputs(spacy.load(tmp_path / "fast"), TEXTS) == expected
    again = spacy.blank(lang, config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.Segmenter.v1"}}})
    again.from_bytes(fast.to_bytes())
    assert _outputs(again, TEXTS) == expected


def test_evaluate_of_the_tokenizer_form_scores_the_words(trained, tmp_path):
    """nlp.evaluate (as `spacy evaluate` runs it) of the tokenizer form:
    spaCy's token scores and the component's word P/R/F with OOV recall,
    equal to the component pipeline's."""
    nlp, seg = trained
    fast = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.Segmenter.v1"}}})
    fast.tokenizer.from_segmenter(seg)
    examples = seg_examples(nlp, make_sentences(40, seed=11))
    want = nlp.evaluate(examples)
    got = fast.evaluate([Example(fast.make_doc(eg.reference.text), eg.reference) for eg in examples])
    assert "oov_recall" in want and "token_acc" in got
    assert {k: v for k, v in got.items() if k in want and k != "speed"} == \
        {k: pytest.approx(v) for k, v in want.items() if k != "speed"}


def test_corrupt_files_are_reported(trained, tmp_path):
    nlp, seg = trained
    nlp.to_disk(tmp_path / "p")
    model = tmp_path / "p" / "adf_segmenter" / "model"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    with pytest.raises(ValueError):
        spacy.load(tmp_path / "p")
    (tmp_path / "p" / "adf_segmenter" / "lexicon").write_bytes(b"garbage")
    with pytest.raises(ValueError):
        spacy.load(tmp_path / "p")
    with pytest.raises(ValueError):
        SegmenterTokenizer(nlp.vocab).from_bytes(b"not msgpack at all \x00\x01")


def test_forced_words_where_forward_and_backward_matching_agree():
    f = CharFeaturizer()
    for w in ["研究", "研究生", "生命", "起源", "北京"]:
        assert f.add_forced_word(w)
    text = "研究生命起源在北京"
    codes, _, bounds = text_units(text)
    start, inside = f.forced_boundaries(codes, bounds)
    # forward: 研究生|命|起源|在|北京; backward: 研究|生命|起源|在|北京
    # agree on 起源 and 北京 only
    assert [i for i in range(len(text)) if inside[i]] == [5, 8]
    assert [i for i in range(len(text)) if start[i]] == [4, 6, 7]


def test_texts_to_units_matches_text_units():
    from spacy_adf.features.chars import texts_to_units

    texts = BAD_INPUTS + ["中国 人民\n银行"]
    codes, pos, bounds, offsets = texts_to_units(texts)
    for k, text in enumerate(texts):
        c, p, b = text_units(text)
        a, z = offsets[k], offsets[k + 1]
        assert numpy.array_equal(codes[a:z], c) and numpy.array_equal(pos[a:z], p)
        inner = bounds[(bounds >= a) & (bounds <= z)] - a
        assert set(b.tolist()) - {len(c)} <= set(inner.tolist())


def test_user_words_features_mode_is_softer(tmp_path):
    sentences, new_words = rare_word_corpus()
    nlp = char_nlp()
    nlp.add_pipe("adf_segmenter", config={"model": dict(SEG_MODEL, lexicon_folds=10),
                                          "user_words": "features"})
    examples = seg_examples(nlp, sentences)
    nlp.initialize(lambda: examples)
    seg = nlp.get_pipe("adf_segmenter")
    seg.add_words(new_words)
    assert seg.plain_model.featurizer.max_forced == 0
    with pytest.raises(ValueError):
        char_nlp().add_pipe("adf_segmenter", config={"user_words": "always"})


# ---------------------------------------------------------------- word Doc built once

def test_word_doc_built_once_equals_in_place_merge(trained):
    """__call__/pipe build the word Doc anew (linear time); set_annotations
    merges in place: both give the same tokens and keep the text exactly."""
    nlp, seg = trained
    texts = TEXTS + ["".join(s) * 50 for s in make_sentences(3, seed=5)]
    for text in texts:
        built = nlp(text)
        doc = nlp.make_doc(text)
        seg.set_annotations([doc], seg.predict([doc]))
        assert [(t.text, t.whitespace_) for t in built] == [(t.text, t.whitespace_) for t in doc]
        assert built.text == text
    assert [d.text for d in nlp.pipe(texts, batch_size=7)] == texts


def test_annotated_doc_is_merged_in_place(trained):
    nlp, seg = trained
    doc = nlp.make_doc("我们在北京研究生命科学")
    doc[0].tag_ = "X"
    out = seg(doc)
    assert out is doc and doc[0].tag_ == "X" and len(doc) < 11


def test_initialize_without_segmented_examples_is_an_error():
    nlp = char_nlp()
    nlp.add_pipe("adf_segmenter")
    with pytest.raises(ValueError, match="segmented training examples"):
        nlp.initialize()


def test_tokenizer_from_segmenter_refuses_other_objects(trained):
    nlp, seg = trained
    with pytest.raises(ValueError, match="expected a component of factory 'adf_segmenter', got str"):
        SegmenterTokenizer(nlp.vocab).from_segmenter("not a segmenter")
