"""Word cluster tables from outside the training text: a user's
PATH<TAB>WORD[<TAB>COUNT] file and spaCy lookups (a table registered here
for a test language, as spacy-lookups-data registers its own), read into
adf_tagger's cluster columns at initialize and saved with the model."""
import gzip
import json

import pytest
import spacy
from spacy.tokens import Doc
from spacy.util import registry

from spacy_adf.features.cluster_tables import bit_path, load_clusters, read_cluster_file
from spacy_adf.optimizers.adf import ADF
from tests.features.test_clusters import CITIES, PEOPLE, _ents, _examples, _ner, _sentences

PROBE = [["Erin", "saw", "Oslo", "."], ["Lima", "saw", "Bob", "."]]


def _table_file(path, rows):
    path.write_text("".join("\t".join(map(str, r)) + "\n" for r in rows), encoding="utf8")
    return path


def test_bit_paths_of_lookups_integers():
    assert bit_path(0b100101) == "00101"
    assert bit_path(1) == "0"
    assert bit_path(0) is None  # no cluster
    with pytest.raises(ValueError):
        bit_path(-3)


def test_cluster_file_keys_order_and_limits(tmp_path):
    path = _table_file(tmp_path / "c.txt", [("01", "Paris", 5), ("0", "paris", 50), ("11", "Rome", 7)])
    table = read_cluster_file(path)
    assert table == {"paris": "0", "rome": "11"}  # one key per lower-cased form: the most frequent form's path
    assert read_cluster_file(path, max_words=1) == {"paris": "0"}
    no_counts = _table_file(tmp_path / "d.txt", [("01", "Paris"), ("0", "paris"), ("11", "Rome")])
    assert read_cluster_file(no_counts) == {"paris": "01", "rome": "11"}  # file order
    bom = tmp_path / "bom.txt"
    bom.write_bytes("\ufeff01\tParis\r\n11\tRome\r\n".encode("utf8"))  # as Windows editors write it
    assert read_cluster_file(bom) == {"paris": "01", "rome": "11"}


@pytest.mark.parametrize("content, message", [
    (b"", "is empty"),
    (b"\n\n", "is empty"),
    (b"0110 Paris\n", "line 1: expected PATH<TAB>WORD"),
    (b"01x\tParis\n", "line 1: expected PATH<TAB>WORD"),
    (b"01\tParis\tmany\n", "line 1: the count 'many' is not a number"),
    (b"0\tParis\n01\t\xff\xfe\n", "line 2: not valid UTF-8"),
])
def test_bad_cluster_files_name_the_file(tmp_path, content, message):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=message) as err:
        read_cluster_file(path)
    assert str(path) in str(err.value)
    with pytest.raises(ValueError, match="does not exist"):
        read_cluster_file(tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="the package 'no_such_package' is not installed"):
        read_cluster_file("pkg:no_such_package/clusters.txt")


@pytest.fixture()
def lookups_language(tmp_path):
    """A lookups table for the test language "xx" (bit paths of CITIES and
    PEOPLE behind spaCy's leading 1), registered as spacy-lookups-data does."""
    values = {w.title(): 0b110 for w in CITIES}
    values.update({w.title(): 0b101 for w in PEOPLE})
    values["Nowhere"] = 0
    path = tmp_path / "xx_lexeme_cluster.json.gz"
    with gzip.open(path, "wt", encoding="utf8") as f:
        json.dump(values, f)
    # spacy-lookups-data names "LANG_TABLE.json"; spaCy reads the .json.gz beside it
    registry.lookups.register("xx", func={"lexeme_cluster": tmp_path / "xx_lexeme_cluster.json"})
    return "xx"


def test_lookups_table(lookups_language):
    table = load_clusters("lookups:lexeme_cluster", lookups_language)
    assert table["paris"] == "10" and table["bob"] == "01" and "nowhere" not in table
    with pytest.raises(ValueError, match="no spaCy lookups table 'lexeme_prob'"):
        load_clusters("lookups:lexeme_prob", lookups_language)
    with pytest.raises(ValueError, match="cluster_words must be >= 0"):
        load_clusters("lookups:lexeme_cluster", lookups_language, -1)


def test_tagger_reads_a_cluster_file_and_saves_it(tmp_path):
    rows = [("10", w.title(), 100) for w in CITIES] + [("01", w.title(), 100) for w in PEOPLE]
    path = _table_file(tmp_path / "clusters.txt", rows)
    nlp = _ner(["cluster[0]", "cluster2[0]"])
    sents = _sentences(40)
    examples = _examples(nlp, sents)
    nlp.get_pipe("ner").initialize(lambda: examples, nlp=nlp, clusters=str(path))
    opt = ADF(0.5, sigma=None, L2=0.0, window=50)
    for _ in range(3):
        for eg in examples:
            nlp.update([eg], sgd=opt)
    ner = nlp.get_pipe("ner")
    assert ner.cfg["clusters"]["source"] == str(path) and ner.cfg["clusters"]["n_words"] == len(rows)
    got = _ents(nlp, PROBE)
    assert got == [[(0, 1, "PER"), (2, 3, "LOC")], [(0, 1, "LOC"), (2, 3, "PER")]]
    path.unlink()  # the saved model carries its table
    nlp.to_disk(tmp_path / "p")
    assert _ents(spacy.load(tmp_path / "p"), PROBE) == got


def test_cluster_source_errors(tmp_path):
    nlp = _ner(["cluster[0]", "w[0]"])
    examples = _examples(nlp, _sentences(10))
    with pytest.raises(ValueError, match=r"\[ner\] cannot read the word clusters: cluster table file .*missing.txt' does not exist"):
        nlp.get_pipe("ner").initialize(lambda: examples, nlp=nlp, clusters=str(tmp_path / "missing.txt"))
    plain = _ner(["w[0]"])
    with pytest.raises(ValueError, match="read no word clusters"):
        plain.get_pipe("ner").initialize(lambda: examples, nlp=plain, clusters=str(tmp_path / "x.txt"))
    with pytest.raises(ValueError, match="no spaCy lookups table"):
        nlp.get_pipe("ner").initialize(lambda: examples, nlp=nlp, clusters="lookups:no_such_table")


def test_spacy_lookups_data_english_brown_clusters():
    """The real table, when spacy-lookups-data is installed (the lookups extra)."""
    pytest.importorskip("spacy_lookups_data")
    table = load_clusters("lookups:lexeme_cluster", "en", max_words=20000)
    assert len(table) == 20000
    assert table["monday"] == table["tuesday"]


def test_equal_tables_are_held_once(tmp_path):
    """Components that read the same clusters share one table after loading."""
    from spacy_adf.features.cluster_tables import shared_table

    a = shared_table({"paris": "10"}, "crc32:x")
    assert shared_table({"paris": "10"}, "crc32:x") is a
    assert shared_table({"paris": "11"}, "crc32:x") is not a  # a checksum clash is not trusted
    rows = [("10", w.title(), 100) for w in CITIES] + [("01", w.title(), 100) for w in PEOPLE]
    path = _table_file(tmp_path / "clusters.txt", rows)
    nlp = spacy.blank("en")
    for name in ("ner", "ner2"):
        nlp.add_pipe("adf_tagger", name=name, config={"target": "ents", "model": {"templates": ["cluster[0]"]}})
    examples = _examples(nlp, _sentences(20))
    for name in ("ner", "ner2"):
        nlp.get_pipe(name).initialize(lambda: examples, nlp=nlp, clusters=str(path))
    nlp.to_disk(tmp_path / "p")
    loaded = spacy.load(tmp_path / "p")
    assert loaded.get_pipe("ner").plain_model.clusters is loaded.get_pipe("ner2").plain_model.clusters
