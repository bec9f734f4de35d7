"""Word clusters from word vectors (features.vector_clusters): a word2vec
text file, a spaCy vectors table (many keys on one row) and a spaCy vectors
folder, made here; the errors of bad input; the vector-clusters command.
(The splitting step it shares with the raw-text induction is pinned in
test_clusters.py.)"""
import numpy
import pytest
import spacy
from spacy.vectors import Vectors

from spacy_adf.features.cluster_tables import load_clusters, read_cluster_file
from spacy_adf.features.vector_clusters import read_word2vec, spacy_word_vectors, vector_clusters
from tests.features.test_clusters import CITIES, PEOPLE, VERBS, _shared_prefix

WORDS = [w.title() for w in PEOPLE] + [w.title() for w in CITIES] + VERBS + ["welcomed", "."]


def word_vectors(dims=8, seed=0):
    """{word: vector}: people around one direction, cities around another,
    the other words around a third, with noise."""
    rng = numpy.random.default_rng(seed)
    centres = rng.normal(size=(3, dims)) * 3
    group = {**{w.title(): 0 for w in PEOPLE}, **{w.title(): 1 for w in CITIES}}
    return {w: centres[group.get(w, 2)] + rng.normal(size=dims) * 0.3 for w in WORDS}


def write_word2vec(path, vectors, header=None):
    dims = len(next(iter(vectors.values())))
    lines = [header if header is not None else f"{len(vectors)} {dims}"]
    lines += [w + " " + " ".join(f"{x:.5f}" for x in v) for w, v in vectors.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf8")
    return path


def test_word2vec_clusters_group_words_and_are_deterministic(tmp_path):
    path = write_word2vec(tmp_path / "v.txt", word_vectors())
    table = load_clusters(f"word2vec:{path}", "en")
    assert table == load_clusters(f"word2vec:{path}", "en")
    assert list(table) == [w.lower() for w in WORDS]  # keyed as the columns look words up, file order
    assert all(p and not p.strip("01") for p in table.values())
    same = min(_shared_prefix(table[a], table[b]) for a in PEOPLE for b in PEOPLE)
    across = max(_shared_prefix(table[a], table[b]) for a in PEOPLE for b in CITIES)
    assert same > across
    options = dict(depth=3, min_size=2)
    assert vector_clusters(f"word2vec:{path}", None, 0, seed=7, **options) == \
        vector_clusters(f"word2vec:{path}", None, 0, seed=7, **options)
    assert max(map(len, vector_clusters(f"word2vec:{path}", None, 0, **options).values())) <= 3
    assert list(load_clusters(f"word2vec:{path}", "en", max_words=5)) == [w.lower() for w in WORDS[:5]]


def test_the_most_frequent_form_of_a_key_keeps_its_vector(tmp_path):
    vectors = word_vectors()
    vectors = {"Paris": vectors["Paris"], "PARIS": vectors["Bob"], **vectors}  # "Paris" is in first already
    path = write_word2vec(tmp_path / "v.txt", vectors)
    read = read_word2vec(path)
    assert read.words.count("paris") == 1 and len(read.rows) == len(WORDS)  # PARIS's row is not read
    zero = write_word2vec(tmp_path / "z.txt", {**word_vectors(), "nothing": numpy.zeros(8)})
    assert "nothing" not in load_clusters(f"word2vec:{zero}", "en")  # an all-zero vector tells nothing


def _spacy_vectors(vocab, vectors):
    """A spaCy table with one row per word of ``vectors`` and, as spaCy's
    pruning leaves them, more keys on some rows."""
    table = Vectors(strings=vocab.strings, shape=(len(vectors), 8))
    for row, (word, vector) in enumerate(vectors.items()):
        table.add(vocab.strings.add(word), vector=vector.astype("float32"), row=row)
    for extra, on in [("Lutetia", "Paris"), ("Roma", "Rome"), ("Bobby", "Bob")]:
        table.add(vocab.strings.add(extra), row=table.key2row[vocab.strings[on]])
    return table


def test_words_sharing_a_row_share_a_path():
    nlp = spacy.blank("en")
    nlp.vocab.vectors = _spacy_vectors(nlp.vocab, word_vectors())
    read = spacy_word_vectors(nlp.vocab.vectors, nlp.vocab.strings)
    assert len(read.rows) == len(WORDS) and len(read.words) == len(WORDS) + 3  # each row clustered once
    before = nlp.vocab.vectors.data.copy()
    table = load_clusters("vectors", "en", vocab=nlp.vocab)
    assert (nlp.vocab.vectors.data == before).all()  # the pipeline's vectors are not normalised in place
    assert table["lutetia"] == table["paris"] and table["roma"] == table["rome"] and table["bobby"] == table["bob"]
    assert list(table)[-3:] == ["lutetia", "roma", "bobby"]  # the table's key order
    w2v = {w.lower(): table[w.lower()] for w in WORDS}
    assert w2v == {w: p for w, p in table.items() if w in w2v}
    # a key the vocab has no string for is left out, not guessed
    nlp.vocab.vectors.add(12345, row=0)
    assert 12345 not in load_clusters("vectors", "en", vocab=nlp.vocab).keys()


def test_spacy_folder_word2vec_and_pipeline_vectors_give_one_table(tmp_path, capsys):
    """The same vectors as a word2vec file, as a spaCy folder made from it
    (spacy init vectors' code) and in a pipeline's vocab; the command writes
    what load_clusters reads."""
    from spacy.training.initialize import convert_vectors

    from spacy_adf.__main__ import main

    path = write_word2vec(tmp_path / "v.txt", word_vectors())
    nlp = spacy.blank("en")
    convert_vectors(nlp, path, truncate=0, prune=-1)
    nlp.to_disk(tmp_path / "vec")
    want = load_clusters(f"word2vec:{path}", "en")
    assert load_clusters(f"vectors:{tmp_path / 'vec'}", "en") == want
    assert load_clusters(f"vectors:{tmp_path / 'vec' / 'vocab'}", "en") == want
    assert load_clusters("vectors", "en", vocab=nlp.vocab) == want
    capsys.readouterr()
    for source in (path, tmp_path / "vec"):
        out = tmp_path / "out.tsv"
        assert main(["vector-clusters", str(source), str(out), "--seed", "0"]) == 0
        assert "[clusters] level 1/12" in capsys.readouterr().err
        assert read_cluster_file(out) == want and list(read_cluster_file(out)) == list(want)
        assert out.read_text(encoding="utf8").splitlines()[0] == f"{want['alice']}\talice"
    assert main(["vector-clusters", str(path), str(out), "--max-words", "4", "--depth", "2"]) == 0
    assert len(read_cluster_file(out)) == 4 and max(map(len, read_cluster_file(out).values())) <= 2
    assert main(["vector-clusters", str(tmp_path / "missing.txt"), str(out)]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert main(["vector-clusters", str(path), str(out), "--min-size", "1"]) == 1
    assert "min_size >= 2" in capsys.readouterr().err


@pytest.mark.parametrize("content, message", [
    (b"", "is empty"),
    (b"\n\n", "is empty"),
    (b"Paris 1 0\n", "line 1: expected the header 'N DIM'"),
    (b"2 2\nParis 1 0\nRome 1 0 0\n", "line 3: 3 values after the word 'Rome', but the header says 2 dimensions"),
    (b"2 2\nParis 1 0\nRome 1\n", "line 3: 1 values after the word 'Rome'"),
    (b"2 2\nParis 1 0\nRome 1 x\n", "line 3: a value of 'Rome' is not a number"),
    (b"2 2\nParis 1 0\nRome 1 nan\n", "line 3: the vector of 'Rome' is not finite"),
    (b"3 2\nParis 1 0\nRome 1 0\n", "has 2 vectors, but its header says 3"),
    (b"1 2\nParis 1 0\nRome 1 0\n", "line 3: more vectors than the 1 of its header"),
    (b"2 2\nParis 1 0\nParis 1 0\n", r"line 3: the word 'Paris' has a vector already \(line 2\)"),
    (b"2 2\nParis 1 0\nR\xffme 1 0\n", "line 3: not valid UTF-8.*binary word2vec format"),
])
def test_bad_word2vec_files_name_the_file(tmp_path, content, message):
    path = tmp_path / "bad.vec"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message) as err:
        load_clusters(f"word2vec:{path}", "en")
    assert str(path) in str(err.value)


def test_missing_vectors_are_clear_errors(tmp_path):
    with pytest.raises(ValueError, match=r"word2vec vectors file .*missing.vec' does not exist"):
        load_clusters(f"word2vec:{tmp_path / 'missing.vec'}", "en")
    with pytest.raises(ValueError, match="the package 'no_such_package' is not installed"):
        load_clusters("word2vec:pkg:no_such_package/vectors.txt", "en")
    with pytest.raises(ValueError, match=r"the pipeline has no word vectors: set \[initialize\] vectors"):
        load_clusters("vectors", "en", vocab=spacy.blank("en").vocab)
    with pytest.raises(ValueError, match="folder .*missing' does not exist"):
        load_clusters(f"vectors:{tmp_path / 'missing'}", "en")
    spacy.blank("en").to_disk(tmp_path / "blank")
    with pytest.raises(ValueError, match="blank.* are empty"):
        load_clusters(f"vectors:{tmp_path / 'blank'}", "en")
    path = write_word2vec(tmp_path / "v.txt", word_vectors())
    with pytest.raises(ValueError, match="is not a folder.*use word2vec:PATH"):
        load_clusters(f"vectors:{path}", "en")
    floret = spacy.blank("en")
    floret.vocab.vectors = Vectors(strings=floret.vocab.strings, mode="floret",
                                   data=numpy.ones((10, 8), dtype="float32"), minn=2, maxn=3)
    with pytest.raises(ValueError, match="floret vectors"):
        load_clusters("vectors", "en", vocab=floret.vocab)
    with pytest.raises(ValueError, match="cluster_words must be >= 0"):
        load_clusters("vectors", "en", -1)


def test_vector_words_is_the_tables_words_as_written(tmp_path, capsys):
    """vector-words: a lexicon for a segmenter's user_dict, from a word2vec
    file or a spaCy folder: the words in the table's order, each form as
    written (a lexicon keeps case), all-zero rows left out, --max-words the
    first ones."""
    from spacy.training.initialize import convert_vectors

    from spacy_adf.__main__ import main
    from spacy_adf.models.char_segmenter import read_user_dict

    vectors = {**word_vectors(), "PARIS": word_vectors()["Bob"], "nothing": numpy.zeros(8)}
    path = write_word2vec(tmp_path / "v.txt", vectors)
    nlp = spacy.blank("en")
    convert_vectors(nlp, path, truncate=0, prune=-1)
    nlp.to_disk(tmp_path / "vec")
    for source in (path, tmp_path / "vec"):
        out = tmp_path / "words.txt"
        assert main(["vector-words", str(source), str(out)]) == 0
        assert read_user_dict(out) == WORDS + ["PARIS"]  # the zero vector tells nothing
        assert main(["vector-words", str(source), str(out), "--max-words", "3"]) == 0
        assert read_user_dict(out) == WORDS[:3]
    assert main(["vector-words", str(tmp_path / "missing.txt"), str(out)]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert main(["vector-words", str(path), str(out), "--max-words", "-1"]) == 1
    err = capsys.readouterr().err
    assert "max_words >= 0 is needed" in err and "depth" not in err  # only the options it has
