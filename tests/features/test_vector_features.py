"""The word-vector features' parts: the valued feature rows against a plain
Python loop, the key -> row cache, the layout of the dimensions' blocks,
the settings' checks and the word2vec reader's errors."""
import numpy
import pytest
import spacy
from spacy.tokens import Doc

from spacy_adf.core.crf import CRFModel
from spacy_adf.features.vector_features import WordVectorFeatures, check_table, vector_features
from spacy_adf.features.word2vec import main as vectors_main
from spacy_adf.features.word2vec import read_word2vec, set_vectors
from spacy_adf.features.word_vectors import VectorRows, valued_features
from tests.helpers.crf_builds import build_crf


def _reference(ptr, attrs, rows, seq_starts, table, ids, offsets, scale):
    """valued_features in plain Python."""
    out_ptr, out_attrs, out_vals = [0], [], []
    for s in range(len(seq_starts) - 1):
        s0, n = seq_starts[s], seq_starts[s + 1] - seq_starts[s]
        for t in range(n):
            for i in range(ptr[s0 + t], ptr[s0 + t + 1]):
                out_attrs.append(attrs[i])
                out_vals.append(1.0)
            for j, o in enumerate(offsets):
                p = t + o
                if not 0 <= p < n or rows[s0 + p] < 0:
                    continue
                vec = table[rows[s0 + p]].astype(numpy.float64)
                norm = numpy.sqrt((vec * vec).sum())
                if norm == 0:
                    continue
                for d in range(table.shape[1]):
                    if ids[j, d] >= 0 and vec[d] != 0:
                        out_attrs.append(ids[j, d])
                        out_vals.append(vec[d] * scale / norm)
            out_ptr.append(len(out_attrs))
    return out_ptr, out_attrs, out_vals


def test_valued_features_match_a_plain_loop():
    rng = numpy.random.default_rng(0)
    D = 5
    table = rng.normal(0, 1, (6, D)).astype(numpy.float32)
    table[2] = 0.0          # a vector of length 0: no features
    table[3, 1] = 0.0       # an exact 0: that dimension is absent
    lengths = [3, 1, 4, 0, 2]
    seq_starts = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int64)
    N = int(seq_starts[-1])
    counts = rng.integers(0, 3, N)
    ptr = numpy.concatenate([[0], numpy.cumsum(counts)]).astype(numpy.int64)
    attrs = rng.integers(0, 50, int(ptr[-1])).astype(numpy.int32)
    rows = rng.integers(-1, 6, N).astype(numpy.int32)
    offsets = numpy.array([-1, 0, 2], dtype=numpy.int32)
    ids = (100 + numpy.arange(3 * D, dtype=numpy.int32)).reshape(3, D)
    ids[1, 4] = -1          # a pruned dimension
    got = valued_features(ptr, attrs, rows, seq_starts, table, ids, offsets, 2.0)
    want = _reference(ptr, attrs, rows, seq_starts, table, ids, offsets, 2.0)
    numpy.testing.assert_array_equal(got[0], want[0])
    numpy.testing.assert_array_equal(got[1], want[1])
    numpy.testing.assert_allclose(got[2], want[2], rtol=1e-6)
    assert got[2].dtype == numpy.float32 and len(got[1]) > len(attrs)
    # a whole vector (nothing pruned) has length `scale`
    one = valued_features(numpy.array([0, 0], numpy.int64), numpy.zeros(0, numpy.int32),
                          numpy.array([0], numpy.int32), numpy.array([0, 1], numpy.int64), table,
                          numpy.arange(D, dtype=numpy.int32).reshape(1, D), numpy.zeros(1, numpy.int32), 2.0)
    assert (one[2].astype(numpy.float64) ** 2).sum() == pytest.approx(4.0, rel=1e-6)


def test_valued_features_refuse_bad_shapes_and_rows():
    table = numpy.ones((2, 3), dtype=numpy.float32)
    ptr, attrs = numpy.zeros(3, numpy.int64), numpy.zeros(0, numpy.int32)
    ss = numpy.array([0, 2], numpy.int64)
    ids = numpy.zeros((1, 3), numpy.int32)
    offs = numpy.zeros(1, numpy.int32)
    with pytest.raises(ValueError, match="outside the vectors table"):
        valued_features(ptr, attrs, numpy.array([0, 2], numpy.int32), ss, table, ids, offs, 1.0)
    with pytest.raises(ValueError, match="attribute ids"):
        valued_features(ptr, attrs, numpy.array([0, 1], numpy.int32), ss, table, ids[:, :2].copy(), offs, 1.0)
    with pytest.raises(ValueError, match="seq_starts"):
        valued_features(ptr, attrs, numpy.array([0, 1], numpy.int32), numpy.array([0, 1], numpy.int64),
                        table, ids, offs, 1.0)


def test_vector_rows_cache_the_dict():
    key2row = {10: 0, 11: 3, 2 ** 63 + 5: 1}
    vr = VectorRows(key2row, max_keys=2)
    keys = numpy.array([10, 12, 11, 10, 2 ** 63 + 5, 0, 12], dtype=numpy.uint64)
    assert vr.rows(keys).tolist() == [0, -1, 3, 0, 1, -1, -1]
    assert vr.n_keys == 2  # the cap: the others are read from the dict each time
    assert vr.rows(keys).tolist() == [0, -1, 3, 0, 1, -1, -1]


def _vocab_with_vectors(width=4, words=("cat", "dog", "runs")):
    nlp = spacy.blank("en")
    rng = numpy.random.default_rng(1)
    set_vectors(nlp.vocab, list(words), rng.normal(0, 1, (len(words), width)).astype(numpy.float32), "test")
    return nlp


def test_rows_of_docs_and_table_checks():
    nlp = _vocab_with_vectors()
    feats = WordVectorFeatures([0])
    docs = [Doc(nlp.vocab, words=["cat", "xyz"]), Doc(nlp.vocab, words=[]), Doc(nlp.vocab, words=["runs"])]
    rows, data = feats.rows_of_docs(docs, "tagger", None)
    assert rows.tolist() == [0, -1, 2] and data.shape == (3, 4) and data.dtype == numpy.float32
    assert feats.rows_of_docs(docs, "tagger", 4)[0].tolist() == [0, -1, 2]
    with pytest.raises(ValueError, match=r"\[tagger\] the pipeline's word vectors have 4 dimensions, but the "
                                         r"model was trained with vectors of 7"):
        feats.rows_of_docs(docs, "tagger", 7)
    with pytest.raises(ValueError, match=r"\[tagger\] .*\(width 4\), but nlp.vocab.vectors is empty"):
        feats.rows_of_docs([Doc(spacy.blank("en").vocab, words=["cat"])], "tagger", 4)
    # a new table is read afresh: the binding follows nlp.vocab.vectors
    set_vectors(nlp.vocab, ["runs", "cat"], numpy.ones((2, 4), numpy.float32), "other")
    assert feats.rows_of_docs(docs, "tagger", 4)[0].tolist() == [1, -1, 0]
    with pytest.raises(ValueError, match="mode"):
        from spacy.vectors import Vectors

        check_table(Vectors(mode="floret", data=numpy.ones((10, 4), numpy.float32), hash_count=1), "tagger", 4)


@pytest.mark.parametrize("bad, match", [
    ({"offsets": []}, "non-empty"), ({"offsets": "0"}, "non-empty"), ({"offsets": [0, 0]}, "distinct"),
    ({"offsets": [11]}, "from -10 to 10"), ({"offsets": [0.5]}, "integers"), ({"scale": 0.0}, "positive"),
    ({"scale": float("nan")}, "positive"), ({"scale": True}, "positive"),
])
def test_settings_are_checked(bad, match):
    with pytest.raises(ValueError, match=match):
        vector_features(**{"offsets": [0], "scale": 1.0, **bad})


@pytest.mark.parametrize("state_features, edge_features", [("all", "observed"), ("observed", "observed"),
                                                          ("all", "all"), ("observed", "none")])
def test_dense_keys_get_every_state_and_no_edge(state_features, edge_features):
    rng = numpy.random.default_rng(2)
    hashes = [rng.integers(2, 40, (n, 3)).astype(numpy.uint64) for n in (4, 5, 3)]
    golds = [rng.integers(0, 3, len(h)).astype(numpy.int32) for h in hashes]
    mask = numpy.ones(3, dtype=bool)
    dense = WordVectorFeatures([-1, 0]).keys(4)
    plain_table, plain = build_crf(hashes, golds, 3, edge_template_mask=mask, state_features=state_features,
                                   edge_features=edge_features)
    table, crf = build_crf(hashes, golds, 3, edge_template_mask=mask, state_features=state_features,
                           edge_features=edge_features, dense_keys=dense)
    A = len(plain_table)
    assert len(table) == A + 8 and table.keys[A:].tolist() == dense.tolist()
    # the template features' layout is unchanged, the dense ones follow
    assert crf.block_ptr[:A + 1].tolist() == plain.block_ptr.tolist()
    assert crf.codes[:crf.block_ptr[A]].tolist() == plain.codes.tolist()
    assert numpy.diff(crf.block_ptr[A:]).tolist() == [3] * 8
    assert crf.codes[crf.block_ptr[A]:].tolist() == [0, 1, 2] * 8
    assert isinstance(crf, CRFModel)


def _write(path, text, encoding="utf8"):
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def test_read_word2vec(tmp_path):
    words, data = read_word2vec(_write(tmp_path / "v.txt", "\ufeff3 2\r\ncat 1 0.5\nNewYork  -1e-2 2 \n\ndog 0 0\n"))
    assert words == ["cat", "NewYork", "dog"]
    numpy.testing.assert_array_equal(data, numpy.array([[1, 0.5], [-0.01, 2], [0, 0]], numpy.float32))


@pytest.mark.parametrize("content, match", [
    ("", "is empty"),
    ("\n\n", "is empty"),
    ("cat 1 2\n", r"line 1: expected the header 'N DIM'"),
    ("2 3\ncat 1 2 3\ndog 1 2\n", r"line 3: 2 values after the word 'dog', but the header says 3 dimensions"),
    ("2 2\ncat 1 2 3\ndog 1 2\n", r"line 2: 3 values after the word 'cat', but the header says 2 dimensions"),
    ("2 2\ncat 1 x\ndog 1 2\n", r"line 2: a value of 'cat' is not a number"),
    ("2 2\ncat 1 nan\ndog 1 2\n", r"line 2: the vector of 'cat' is not finite"),
    ("2 2\ncat 1 2\ncat 1 2\n", r"line 3: the word 'cat' has a vector already \(line 2\)"),
    ("3 2\ncat 1 2\ndog 1 2\n", "has 2 vectors, but its header says 3"),
    ("1 2\ncat 1 2\ndog 1 2\n", "line 3: more vectors than the 1"),
    (b"2 2\ncat 1 2\nd\xe9g 1 2\n", r"line 3: not valid UTF-8"),
])
def test_word2vec_errors_name_the_file_and_line(tmp_path, content, match):
    path = _write(tmp_path / "vecs.txt", content)
    with pytest.raises(ValueError, match=match) as err:
        read_word2vec(path)
    assert "vecs.txt" in str(err.value)


def test_vectors_command(tmp_path, capsys):
    src = _write(tmp_path / "v.txt", "2 3\ncat 1 0 0\ndog 0 1 0\n")
    assert vectors_main(["en", str(src), str(tmp_path / "out")]) == 0
    nlp = spacy.load(tmp_path / "out")
    assert nlp.vocab.vectors.shape == (2, 3) and nlp.vocab.vectors.name == "en_v.vectors"
    numpy.testing.assert_array_equal(nlp.vocab["dog"].vector, [0, 1, 0])
    assert vectors_main(["en", str(_write(tmp_path / "e.txt", "")), str(tmp_path / "out2")]) == 1
    assert "e.txt is empty" in capsys.readouterr().err
    assert not (tmp_path / "out2").exists()
    assert vectors_main(["en", str(tmp_path / "missing.txt"), str(tmp_path / "out3")]) == 1
    assert "missing.txt' does not exist" in capsys.readouterr().err
