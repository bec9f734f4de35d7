"""The brat standoff reader (spacy_adf.corpora.brat) on tiny folders written here."""
import warnings

import pytest
import spacy
from spacy.util import registry

from spacy_adf.tokenizers.bio import create_bio_tokenizer
from spacy_adf.corpora.brat import (
    BratCorpus,
    parse_ann,
    read_brat_issues,
    summarize_issues,
)
from tests.helpers.brat_stats import alignment_stats


def write(folder, name, text, ann=None):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.txt").write_text(text, encoding="utf-8")
    if ann is not None:
        (folder / f"{name}.ann").write_text(ann, encoding="utf-8")


def t_line(n, label, start, end, text):
    return f"T{n}\t{label} {start} {end}\t{text}\n"


def ann_for(text, *ents):
    """.ann lines for (label, substring[, occurrence]) entities of text."""
    out = []
    for n, ent in enumerate(ents, start=1):
        label, sub = ent[0], ent[1]
        start = -1
        for _ in range(ent[2] if len(ent) > 2 else 1):
            start = text.index(sub, start + 1)
        out.append(t_line(n, label, start, start + len(sub), sub))
    return "".join(out)


@pytest.fixture
def nlp():
    return spacy.blank("en")


def ents_of(examples):
    return [[(e.text, e.label_) for e in eg.reference.ents] for eg in examples]


def test_simple_entities_align(tmp_path, nlp):
    text = "IL-2 gene expression requires NF-kappa B in T cells.\nThe second line mentions p50 protein."
    ann = ann_for(text, ("DNA", "IL-2 gene"), ("protein", "NF-kappa B"), ("cell_type", "T cells"),
                  ("protein", "p50 protein"))
    write(tmp_path, "d1", text, ann)
    corpus = BratCorpus(tmp_path, warn=False)
    examples = list(corpus(nlp))
    assert len(examples) == 2  # one per line
    assert ents_of(examples) == [
        [("IL-2 gene", "DNA"), ("NF-kappa B", "protein"), ("T cells", "cell_type")],
        [("p50 protein", "protein")],
    ]
    eg = examples[0]
    assert [t.text for t in eg.predicted] == [t.text for t in eg.reference]
    # tokens outside entities are gold O (what adf_tagger's "ents" target reads)
    assert all(t.ent_iob_ in ("B", "I", "O") for t in eg.reference)
    assert corpus.last_issues == []
    assert corpus.last_stats["entities_out"] == 4 == corpus.last_stats["entities_exact"]


def test_sentences_split_by_rules_not_inside_entities_or_abbreviations(tmp_path, nlp):
    text = "We studied cells. Results were clear, see Smith et al. Data agree. Protein R. Then it ended."
    ann = ann_for(text, ("protein", "R. Then"))  # an entity across the period: no split there
    write(tmp_path, "d1", text, ann)
    sents = [eg.reference.text for eg in BratCorpus(tmp_path, warn=False)(nlp)]
    assert sents == ["We studied cells.", "Results were clear, see Smith et al. Data agree.",
                     "Protein R. Then it ended."]
    lines = [eg.reference.text for eg in BratCorpus(tmp_path, sentences="lines", warn=False)(nlp)]
    assert lines == [text]


def test_misaligned_entity_is_reported_and_modes(tmp_path, nlp):
    text = "The IL-2-induced activation of cells."
    # "IL-2" ends inside the token "IL-2-induced"? spaCy splits "2-induced" at
    # the hyphen only before letters, so use an offset strictly inside a word:
    ann = t_line(1, "protein", 4, 6, "IL") + t_line(2, "cell_type", 31, 36, "cells")
    write(tmp_path, "d1", text, ann)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        corpus = BratCorpus(tmp_path)
        examples = list(corpus(nlp))
    assert any("misaligned 1" in str(w.message) for w in caught)
    assert ents_of(examples) == [[("cells", "cell_type")]]  # strict drops it
    issues = corpus.last_issues
    assert [(i.kind, i.ann_id, i.text) for i in issues] == [("misaligned", "T1", "IL")]
    assert "dropped" in issues[0].detail
    assert "misaligned 1" in summarize_issues(issues, corpus.last_stats)
    # the full list is also available without reading the examples
    assert [i.ann_id for i in read_brat_issues(nlp, tmp_path)] == ["T1"]
    stats = alignment_stats(nlp, tmp_path)
    assert stats["t_lines"] == 2 and stats["entities_exact"] == 1 and stats["issue_misaligned"] == 1

    expanded = list(BratCorpus(tmp_path, alignment_mode="expand", warn=False)(nlp))
    assert ents_of(expanded)[0][0][1] == "protein"
    assert ents_of(expanded)[0][0][0].startswith("IL")
    assert len(ents_of(expanded)[0][0][0]) > 2
    contracted = list(BratCorpus(tmp_path, alignment_mode="contract", warn=False)(nlp))
    assert ents_of(contracted) == [[("cells", "cell_type")]]  # nothing left inside
    split = BratCorpus(tmp_path, alignment_mode="split", warn=False)
    examples = list(split(nlp))
    assert ents_of(examples) == [[("IL", "protein"), ("cells", "cell_type")]]
    assert split.last_issues == []
    words = [t.text for t in examples[0].reference]
    assert words[1] == "IL" and examples[0].reference.text == text
    assert [t.text for t in examples[0].predicted] == words


def test_text_mismatch_is_reported(tmp_path, nlp):
    text = "Jurkat cells express CD28."
    ann = t_line(1, "cell_line", 0, 6, "Jurkat") + t_line(2, "protein", 21, 25, "CD29")
    write(tmp_path, "d1", text, ann)
    corpus = BratCorpus(tmp_path, warn=False)
    examples = list(corpus(nlp))
    assert [(i.kind, i.ann_id) for i in corpus.last_issues] == [("text_mismatch", "T2")]
    assert "'CD28'" in corpus.last_issues[0].detail
    assert ents_of(examples) == [[("Jurkat", "cell_line")]]
    kept = list(BratCorpus(tmp_path, mismatch="keep", warn=False)(nlp))
    assert ents_of(kept) == [[("Jurkat", "cell_line"), ("CD28", "protein")]]


def test_discontinuous_overlap_and_other_lines(tmp_path, nlp):
    text = "human T cell leukemia virus type I and B and T cells"
    ann = (
        t_line(1, "protein", 6, 12, "T cell")  # inside T2: dropped as overlap
        + t_line(2, "DNA", 0, 34, "human T cell leukemia virus type I")
        + "T3\tcell_type 39 40;45 52\tB cells\n"  # discontinuous
        + "R1\tRel Arg1:T1 Arg2:T2\n#1\tAnnotatorNotes T1\tnote\nA1\tNeg T1\n"
        + "T4\tbroken line\n"
    )
    write(tmp_path, "d1", text, ann)
    corpus = BratCorpus(tmp_path, warn=False)
    examples = list(corpus(nlp))
    kinds = sorted((i.kind, i.ann_id) for i in corpus.last_issues)
    assert kinds == [("bad_line", "T4"), ("discontinuous", "T3"), ("overlap", "T1")]
    assert ents_of(examples) == [[("human T cell leukemia virus type I", "DNA")]]
    stats = corpus.last_stats
    assert stats["skipped_R_lines"] == 1 and stats["skipped_#_lines"] == 1
    outer = list(BratCorpus(tmp_path, discontinuous="outer", warn=False)(nlp))
    assert ("B and T cells", "cell_type") in ents_of(outer)[0]


def test_empty_and_missing_files(tmp_path, nlp):
    write(tmp_path, "a_empty", "", "")
    write(tmp_path, "b_noann", "Some text without annotation.")
    write(tmp_path, "c_blank_lines", "\n\nA title\n\n", "")
    corpus = BratCorpus(tmp_path, warn=False)
    examples = list(corpus(nlp))
    assert [eg.reference.text for eg in examples] == ["Some text without annotation.", "A title"]
    assert all(len(eg.reference.ents) == 0 for eg in examples)
    assert corpus.last_stats["txt_without_ann"] == 1
    empty = tmp_path / "none"
    empty.mkdir()
    assert list(BratCorpus(empty, warn=False)(nlp)) == []


def test_folds_partition_documents(tmp_path, nlp):
    for k in range(5):
        write(tmp_path, f"doc{k}", f"Document number {k}.", "")
    read = lambda part: [eg.reference.text for eg in  # noqa: E731
                         BratCorpus(tmp_path, n_folds=3, fold=1, part=part, warn=False)(nlp)]
    assert read("heldout") == ["Document number 1.", "Document number 4."]
    assert len(read("train")) == 3 and not set(read("train")) & set(read("heldout"))
    with pytest.raises(ValueError):
        BratCorpus(tmp_path, part="train")  # needs n_folds >= 2
    with pytest.raises(ValueError):
        BratCorpus(tmp_path, alignment_mode="fuzzy")


def test_parse_ann_out_of_range():
    ents, issues, _ = parse_ann("short", t_line(1, "DNA", 2, 50, "ort"), "d")
    assert ents == [] and issues[0].kind == "out_of_range"


def test_bio_tokenizer_and_registry(tmp_path):
    nlp = spacy.blank("en")
    nlp.tokenizer = create_bio_tokenizer()(nlp)
    words = [t.text for t in nlp.make_doc("IL-2-induced Ro(SSA) C/EBP Ca2+ in protein R.")]
    assert words == ["IL-2-induced", "Ro", "(", "SSA", ")", "C/EBP", "Ca2+", "in", "protein", "R", "."]
    assert registry.readers.get("spacy_adf.BratCorpus.v1") is not None
    assert registry.tokenizers.get("spacy_adf.BioTokenizer.v1") is create_bio_tokenizer
    # round trip of the tokenizer settings through to_bytes/from_bytes
    nlp2 = spacy.blank("en")
    nlp2.tokenizer = create_bio_tokenizer()(nlp2)
    nlp2.tokenizer.from_bytes(nlp.tokenizer.to_bytes())
    assert [t.text for t in nlp2.make_doc("IL-2-induced Ro(SSA)")] == ["IL-2-induced", "Ro", "(", "SSA", ")"]


@pytest.mark.slow
def test_jnlpba_train_alignment(shared_data):
    path = shared_data / "jnlpba" / "standoff" / "train"
    if not path.exists():
        pytest.skip("jnlpba standoff data not available")
    nlp = spacy.blank("en")
    stats = alignment_stats(nlp, path)
    assert stats["t_lines"] == 51301
    assert stats["entities_exact"] >= 50700  # 50,731 measured with spacy.blank("en")
    nlp.tokenizer = create_bio_tokenizer()(nlp)
    split = alignment_stats(nlp, path, alignment_mode="split")
    assert split["entities_exact"] == split["entities_out"] == 51301


@pytest.mark.parametrize("bad", ["txt", "ann"])
def test_a_file_that_is_not_utf8_is_named_with_its_line(tmp_path, nlp, bad):
    text = "IL-2 gene expression.\nThe p50 protein."
    write(tmp_path, "d1", text, ann_for(text, ("DNA", "IL-2 gene")))
    path = tmp_path / f"d1.{bad}"
    path.write_bytes(path.read_bytes() + "\nα-链".encode("gbk"))
    with pytest.raises(ValueError, match=rf"d1\.{bad}, line \d: not valid UTF-8"):
        list(BratCorpus(tmp_path, warn=False)(nlp))
