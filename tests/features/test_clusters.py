"""Word clusters: induction from raw text, the cluster columns of the
templates, and adf_tagger models that read them (training, saving, loading,
the checks of a table against its cfg)."""
import pickle
import random
import zlib

import numpy
import pytest
import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from spacy_adf.features.clusters import induce_clusters
from spacy_adf.features.templates import TemplateSet
from spacy_adf.optimizers.adf import ADF
from tests.helpers.template_values import column_values

PEOPLE = ["alice", "bob", "carol", "dave", "erin", "frank"]
CITIES = ["paris", "rome", "berlin", "oslo", "lima", "cairo"]
VERBS = ["visited", "left", "saw", "liked"]


def _sentences(n=300, seed=0):
    rng = random.Random(seed)
    out = []
    for k in range(n):
        person, city = rng.choice(PEOPLE).title(), rng.choice(CITIES).title()
        # either order: the label has to come from the word, not the position
        out.append([person, rng.choice(VERBS), city, "."] if k % 2 else [city, "welcomed", person, "."])
    return out


def _shared_prefix(a, b):
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def test_induction_groups_words_by_context_and_is_deterministic():
    sents = _sentences()
    table = induce_clusters(sents, dims=8, depth=6, min_size=2)
    assert table == induce_clusters(sents, dims=8, depth=6, min_size=2)
    assert set(table) == {w.lower() for s in sents for w in s}  # lower-cased
    assert all(p and not p.strip("01") for p in table.values())
    # the first split puts people and cities apart from each other
    same = min(_shared_prefix(table[a], table[b]) for a in PEOPLE for b in PEOPLE)
    across = max(_shared_prefix(table[a], table[b]) for a in PEOPLE for b in CITIES)
    assert same > across


def test_induction_errors():
    with pytest.raises(ValueError, match="too little text"):
        induce_clusters([["a", "b"]])
    with pytest.raises(ValueError, match="needed"):
        induce_clusters(_sentences(), depth=0)


def test_cluster_columns_read_the_table():
    nlp = spacy.blank("en")
    t = TemplateSet(["cluster[0]", "cluster2[0]", "w[0]"])
    doc = Doc(nlp.vocab, words=["Paris", "xyz"])
    with pytest.raises(ValueError, match="no cluster table"):
        t.hashes(doc)
    with pytest.raises(ValueError, match="bit paths"):
        t.set_clusters({"paris": "012"})
    t.set_clusters({"paris": "0110"})
    values = column_values(t, doc)
    assert values[0] == ["0110", None] and values[1] == ["01", None]
    cols = t.columns_for(doc)
    assert cols[0, 0] != 0 and cols[0, 1] != 0 and cols[1, 0] == 0 and cols[1, 1] == 0
    t.set_clusters({"paris": "1110"})  # a new table: no stale cached word rows
    assert t.columns_for(doc)[0, 0] != cols[0, 0]
    with pytest.raises(ValueError, match="1..64"):
        TemplateSet(["cluster0[0]"])


def test_treebank_tokens_and_running_text_share_a_cluster():
    # the treebank writes quotes as `` and '', raw text as "; a tagger trained on
    # the treebank must find the same cluster for both (the raw-text pipeline
    # lost 0.2 points of chunk F when it did not)
    from spacy_adf.features.templates import cluster_key

    assert cluster_key("``") == cluster_key("''") == cluster_key('"') == '"'
    assert cluster_key("-LRB-") == "(" and cluster_key("Paris") == "paris"
    nlp = spacy.blank("en")
    t = TemplateSet(["cluster[0]"])
    t.set_clusters({'"': "01", "(": "10"})
    doc = Doc(nlp.vocab, words=["``", '"', "''", "-LRB-", "("])
    assert column_values(t, doc)[0] == ["01", "01", "01", "10", "10"]
    # the model induces its table under the same keys
    quoted = [["``"] + s + ["''"] for s in _sentences(120)]
    ner = _ner(["cluster[0]"]).get_pipe("ner")
    table = ner.plain_model.induce_clusters(quoted, dims=8, depth=6, min_size=2)
    assert '"' in table and "``" not in table and "''" not in table


def _ner(templates):
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", name="ner", config={"target": "ents", "model": {"templates": templates}})
    return nlp


def _examples(nlp, sents):
    out = []
    for words in sents:
        ref = Doc(nlp.vocab, words=words)
        ref.ents = [Span(ref, i, i + 1, label="PER" if words[i].lower() in PEOPLE else "LOC") for i in (0, 2)]
        out.append(Example(Doc(nlp.vocab, words=words), ref))
    return out


def _trained(sents, templates=("cluster[0]", "cluster2[0]")):
    nlp = _ner(list(templates))
    examples = _examples(nlp, sents)
    nlp.initialize(lambda: examples)
    opt = ADF(0.5, sigma=None, L2=0.0, window=50)
    for _ in range(3):
        for eg in examples:
            nlp.update([eg], sgd=opt)
    return nlp


def _ents(nlp, sents):
    return [[(e.start, e.end, e.label_) for e in nlp(Doc(nlp.vocab, words=w)).ents] for w in sents]


def test_tagger_learns_from_clusters_alone_and_round_trips(tmp_path):
    sents = _sentences(120)
    nlp = _trained(sents)
    ner = nlp.get_pipe("ner")
    assert ner.cfg["clusters"]["n_words"] == len(ner.plain_model.clusters)
    probe = [["Erin", "saw", "Oslo", "."], ["Lima", "saw", "Bob", "."]]
    got = _ents(nlp, probe)
    assert got[0] == [(0, 1, "PER"), (2, 3, "LOC")]
    assert got[1] == [(0, 1, "LOC"), (2, 3, "PER")]  # clusters, not positions

    again = _ner(["cluster[0]", "cluster2[0]"])
    again.get_pipe("ner").from_bytes(ner.to_bytes())
    assert _ents(again, probe) == got
    nlp.to_disk(tmp_path / "p")
    assert (tmp_path / "p" / "ner" / "clusters").exists()
    assert _ents(spacy.load(tmp_path / "p"), probe) == got
    assert _ents(pickle.loads(pickle.dumps(nlp)), probe) == got


def test_cluster_table_must_match_its_cfg():
    a = _trained(_sentences(60, seed=1)).get_pipe("ner")
    b = _trained(_sentences(60, seed=2) + [["Zed", "met", "Quux", "."]] * 3).get_pipe("ner")
    parts_a, parts_b = a._parts(), b._parts()
    with pytest.raises(ValueError, match="does not match"):
        parts_a["clusters"][1](parts_b["clusters"][0]())
    with pytest.raises(ValueError):
        parts_a["clusters"][1](b"garbage")


def test_too_little_text_for_clusters_is_a_clear_error():
    nlp = _ner(["cluster[0]", "w[0]"])
    examples = _examples(nlp, [["Alice", "visited", "Paris", "."]])
    with pytest.raises(ValueError, match=r"\[ner\] cannot induce the word clusters"):
        nlp.initialize(lambda: examples)


def test_presets_add_cluster_cells():
    from spacy_adf.features.presets import CLUSTER_TEMPLATES, bioner_templates, chunking_rich_templates

    assert chunking_rich_templates("form", clusters=True)[-len(CLUSTER_TEMPLATES):] == CLUSTER_TEMPLATES
    assert not any("cluster" in t for t in chunking_rich_templates("form"))
    assert set(CLUSTER_TEMPLATES) <= set(bioner_templates(pos=True, clusters=True))
    assert numpy.all([TemplateSet(CLUSTER_TEMPLATES).uses_clusters])


def test_clusters_command_streams_a_text_file_into_a_table(tmp_path, capsys):
    """python -m spacy_adf clusters: the file read twice, streamed, gives the
    table induce_clusters gives for the same sentences; the written table is
    what a config's clusters setting reads."""
    from spacy_adf.__main__ import main
    from spacy_adf.features.cluster_tables import read_cluster_file
    from spacy_adf.features.clusters import _context_counts

    sents = _sentences(200)
    text = tmp_path / "raw.txt"
    text.write_text("\n".join(" ".join(s) for s in sents) + "\n\n", encoding="utf8")
    out = tmp_path / "clusters.txt"
    options = ["--dims", "8", "--depth", "6", "--min-size", "2"]
    assert main(["clusters", str(text), str(out), *options]) == 0
    assert "counted 200 lines" in capsys.readouterr().err
    want = induce_clusters(sents, dims=8, depth=6, min_size=2)
    assert read_cluster_file(out) == want
    first = out.read_text(encoding="utf8").splitlines()[0].split("\t")
    assert first[1] == "." and int(first[2]) == 200  # most frequent first, with its count
    words = sorted({w for s in sents for w in s})
    small = _context_counts(sents, words, 5, chunk=7)
    assert (small != _context_counts(sents, words, 5)).nnz == 0  # chunked sums are exact
    assert main(["clusters", str(tmp_path / "missing.txt"), str(out)]) == 1
    assert "does not exist" in capsys.readouterr().err


# The raw-text induction's table before its 2-means loop became the shared
# `bisecting_paths` (computed with the earlier code, same scikit-learn):
# the refactoring must not change a table a model was trained with.
BEFORE = {".": "0111", "alice": "111", "berlin": "000100", "bob": "1101", "cairo": "000100", "carol": "1001",
          "dave": "1000", "erin": "101", "frank": "1100", "left": "0101", "liked": "01001", "lima": "000101",
          "oslo": "001", "paris": "00011", "rome": "0000", "saw": "010001", "visited": "010000",
          "welcomed": "0110"}


def test_raw_text_induction_gives_the_table_it_gave_before_the_shared_split():
    assert induce_clusters(_sentences(), dims=8, depth=6, min_size=2) == BEFORE
    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(400)]
    sents = [[rng.choice(vocab[: rng.choice([40, 120, 400])]) for _ in range(rng.randint(3, 15))]
             for _ in range(4000)]
    big = induce_clusters(sents, dims=16, depth=12, min_size=3, seed=5)
    assert (len(big), len(set(big.values()))) == (400, 261)
    assert zlib.crc32("\n".join(f"{w}\t{big[w]}" for w in sorted(big)).encode()) == 2950702228
