"""Tests for spacy_adf.corpora and scripts/make_sample_data.py."""
import importlib.util
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import List, Sequence

import pytest
import spacy
from spacy.tokens import DocBin
from spacy.util import registry

from spacy_adf.tags.iob import iob_to_spans, spans_to_tags
from spacy_adf.corpora.conll import conll_to_docs, create_conll_reader, read_conll
from spacy_adf.corpora.convert import main as convert_main
from spacy_adf.corpora.docbin import create_docbin_reader

REPO = Path(__file__).resolve().parents[2]
CONLL2000 = REPO.parent / "shared" / "data" / "conll2000"

CHUNK_FILE = """\
-DOCSTART- -X- O

Confidence NN B-NP
in IN B-PP
the DT B-NP
pound NN I-NP
is VBZ B-VP
widely RB I-VP
expected VBN I-VP
. . O

He PRP B-NP
reckons VBZ B-VP
the DT B-NP
current JJ I-NP
account NN I-NP
deficit NN I-NP
will MD B-VP
narrow VB I-VP
to TO B-PP
only RB B-NP
# # I-NP
1.8 CD I-NP
billion CD I-NP
in IN B-PP
September NNP B-NP
. . O
"""

NER_FILE = (
    "###MEDLINE:1234\n\n"
    "Alva\tB-PER\r\nKerrin\tI-PER\r\nvisited\tO\r\nNorth\tB-LOC\r\nTollan\tI-LOC\r\n.\tO\r\n\r\n"
    "Banks\tO\r\nwere\tO\r\nclosed\tO\r\n"  # no blank line at the end
)


@pytest.fixture(scope="module")
def nlp():
    return spacy.blank("en")


@pytest.fixture
def chunk_path(tmp_path):
    path = tmp_path / "chunks.txt"
    path.write_text(CHUNK_FILE, encoding="utf8")
    return path


@pytest.fixture
def ner_path(tmp_path):
    path = tmp_path / "ner.tsv"
    path.write_bytes(NER_FILE.encode("utf8"))
    return path


# --------------------------------------------------------------------------
# iob.py
# --------------------------------------------------------------------------

@pytest.mark.parametrize(
    "tags,spans",
    [
        ([], []),
        (["O", "O"], []),
        (["B-NP", "I-NP", "O", "B-VP"], [(0, 2, "NP"), (3, 4, "VP")]),
        # I after O starts a chunk (IOB1 / conlleval)
        (["O", "I-NP", "I-NP", "O", "I-NP"], [(1, 3, "NP"), (4, 5, "NP")]),
        (["I-NP"], [(0, 1, "NP")]),
        # change of type inside I- tags ends one chunk and starts another
        (["B-NP", "I-NP", "I-VP", "I-VP"], [(0, 2, "NP"), (2, 4, "VP")]),
        (["I-NP", "B-VP", "I-NP"], [(0, 1, "NP"), (1, 2, "VP"), (2, 3, "NP")]),
        # adjacent chunks of the same type
        (["B-NP", "B-NP", "I-NP"], [(0, 1, "NP"), (1, 3, "NP")]),
        (["I-PER", "B-PER", "I-PER"], [(0, 1, "PER"), (1, 3, "PER")]),
        # everything after the first hyphen is the type
        (["B-cell-line", "I-cell-line"], [(0, 2, "cell-line")]),
        # BILUO and IOBES
        (
            ["U-PER", "B-ORG", "I-ORG", "L-ORG", "O", "U-LOC", "U-LOC"],
            [(0, 1, "PER"), (1, 4, "ORG"), (5, 6, "LOC"), (6, 7, "LOC")],
        ),
        (["S-X", "B-X", "E-X", "S-X"], [(0, 1, "X"), (1, 3, "X"), (3, 4, "X")]),
        # E/L closes its chunk; a following I/E/L starts a new one
        (["B-X", "E-X", "I-X", "E-X"], [(0, 2, "X"), (2, 4, "X")]),
        (["B-X", "L-X", "L-X"], [(0, 2, "X"), (2, 3, "X")]),
        (["S-X", "I-X"], [(0, 1, "X"), (1, 2, "X")]),
        # documented extension: conlleval.pl would merge E-X B-X into one chunk
        (["E-X", "B-X"], [(0, 1, "X"), (1, 2, "X")]),
        # IOE1: a chunk may end with I and E marks only the end before a same-type chunk
        (["I-NP", "E-NP", "I-NP", "O"], [(0, 2, "NP"), (2, 3, "NP")]),
    ],
)
def test_iob_to_spans_conlleval_semantics(tags, spans):
    assert iob_to_spans(tags) == spans


@pytest.mark.parametrize("bad", ["B", "X-NP", "B-", "o", "", "O-NP", "-NP"])
def test_iob_to_spans_rejects_malformed_tags(bad):
    with pytest.raises(ValueError, match="Malformed chunk tag") as info:
        iob_to_spans(["O", bad])
    assert repr(bad) in str(info.value)
    assert "position 1" in str(info.value)


def iob_to_bio(tags: Sequence[str]) -> List[str]:
    """Normalise IOB1/IOB2/IOBES/BILUO tags to IOB2 (BIO)."""
    return spans_to_tags(len(tags), iob_to_spans(tags), "BIO")


def _random_spans(rng, n):
    spans, i = [], 0
    while i < n:
        if rng.random() < 0.4:
            length = rng.randint(1, 3)
            end = min(n, i + length)
            spans.append((i, end, rng.choice(["NP", "VP", "PER"])))
            i = end
        else:
            i += 1
    return spans


@pytest.mark.parametrize("scheme", ["BIO", "BILUO", "biluo"])
def test_spans_to_tags_round_trip(scheme):
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(0, 12)
        spans = _random_spans(rng, n)
        tags = spans_to_tags(n, spans, scheme)
        assert len(tags) == n
        assert iob_to_spans(tags) == spans
        assert iob_to_spans(iob_to_bio(tags)) == spans


def test_spans_to_tags_values():
    spans = [(3, 4, "LOC"), (0, 2, "PER")]  # order does not matter
    assert spans_to_tags(5, spans) == ["B-PER", "I-PER", "O", "B-LOC", "O"]
    assert spans_to_tags(5, spans, "BILUO") == ["B-PER", "L-PER", "O", "U-LOC", "O"]
    assert spans_to_tags(4, [(0, 4, "NP")], "BILUO") == ["B-NP", "I-NP", "I-NP", "L-NP"]


@pytest.mark.parametrize(
    "n,spans,scheme,message",
    [
        (5, [(0, 3, "A"), (2, 4, "B")], "BIO", "Overlapping"),
        (5, [(1, 3, "A"), (1, 2, "B")], "BIO", "Overlapping"),
        (5, [(0, 1, "A")], "IOB9", "Unknown tagging scheme"),
        (3, [(2, 4, "A")], "BIO", "outside"),
        (3, [(2, 2, "A")], "BIO", "empty"),
        (3, [(0, 1, "")], "BIO", "label"),
    ],
)
def test_spans_to_tags_errors(n, spans, scheme, message):
    with pytest.raises(ValueError, match=message):
        spans_to_tags(n, spans, scheme)


def test_iob_to_bio_normalises_schemes():
    assert iob_to_bio(["I-NP", "I-NP", "B-NP", "O", "I-VP"]) == ["B-NP", "I-NP", "B-NP", "O", "B-VP"]
    assert iob_to_bio(["U-PER", "B-ORG", "L-ORG", "S-X"]) == ["B-PER", "B-ORG", "I-ORG", "B-X"]
    assert iob_to_bio(["B-NP", "I-NP", "O"]) == ["B-NP", "I-NP", "O"]


# --------------------------------------------------------------------------
# conll.py
# --------------------------------------------------------------------------

def test_read_conll_columns_docstart_medline_crlf(chunk_path, ner_path):
    sents = list(read_conll(chunk_path, ["words", "tag", "iob"]))
    assert [len(s[0]) for s in sents] == [8, 16]
    assert sents[0][0][:3] == ["Confidence", "in", "the"]
    assert sents[0][1][:3] == ["NN", "IN", "DT"]
    assert sents[1][2][-3:] == ["B-PP", "B-NP", "O"]
    # tab separated, CRLF, ###MEDLINE line, last sentence without blank line
    ner = list(read_conll(ner_path, 2, sep="\t"))
    assert ner == [
        [["Alva", "Kerrin", "visited", "North", "Tollan", "."],
         ["B-PER", "I-PER", "O", "B-LOC", "I-LOC", "O"]],
        [["Banks", "were", "closed"], ["O", "O", "O"]],
    ]


def test_read_conll_wrong_column_count_names_line(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("a DT B-NP\nb NN I-NP\n\nc NN\n", encoding="utf8")
    with pytest.raises(ValueError) as info:
        list(read_conll(path, ["words", "tag", "iob"]))
    message = str(info.value)
    assert str(path) in message and "line 4" in message
    assert "expected 3 columns, found 2" in message


def test_conll_to_docs_spans_keep_np(nlp, chunk_path):
    pairs = list(
        conll_to_docs(
            nlp.vocab, chunk_path, columns=["words", "tag", "iob"],
            iob_target="spans:chunks", keep_labels=["NP"],
        )
    )
    assert len(pairs) == 2
    predicted, reference = pairs[1]
    # spacing unknown (a column file has none): spaCy gives every word a trailing space
    assert reference.has_unknown_spaces
    assert reference.text == "He reckons the current account deficit will narrow to only # 1.8 billion in September . "
    assert [(s.start, s.end, s.label_) for s in reference.spans["chunks"]] == [
        (0, 1, "NP"), (2, 6, "NP"), (9, 13, "NP"), (14, 15, "NP"),
    ]
    assert [t.tag_ for t in reference][:3] == ["PRP", "VBZ", "DT"]
    # the predicted doc: same words and spaces, gold tags as input, no chunks
    assert [t.text for t in predicted] == [t.text for t in reference]
    assert predicted.text == reference.text
    assert [t.tag_ for t in predicted] == [t.tag_ for t in reference]
    assert "chunks" not in predicted.spans
    assert not predicted.has_annotation("ENT_IOB")


def test_conll_to_docs_ents_and_all_labels(nlp, chunk_path):
    _, reference = next(
        conll_to_docs(nlp.vocab, chunk_path, columns=["words", "tag", "iob"], input_attrs=[])
    )
    assert [(e.start, e.end, e.label_) for e in reference.ents] == [
        (0, 1, "NP"), (1, 2, "PP"), (2, 4, "NP"), (4, 7, "VP"),
    ]
    # tokens outside the entities are gold "O", not missing
    assert reference[7].ent_iob_ == "O"
    predicted, _ = next(conll_to_docs(nlp.vocab, chunk_path, columns=["words", "tag", "iob"], input_attrs=[]))
    assert not predicted.has_annotation("TAG")
    assert not predicted.has_annotation("ENT_IOB")


def test_conll_to_docs_ner_tsv_keeps_o_only_sentences(nlp, ner_path):
    pairs = list(conll_to_docs(nlp.vocab, ner_path, columns=["words", "iob"], sep="\t"))
    assert len(pairs) == 2
    (pred1, ref1), (pred2, ref2) = pairs
    assert [(e.text, e.label_) for e in ref1.ents] == [("Alva Kerrin", "PER"), ("North Tollan", "LOC")]
    assert ref2.ents == () and [t.ent_iob_ for t in ref2] == ["O", "O", "O"]
    # default input_attrs=("tag",) with no tag column: nothing to copy
    assert not pred1.has_annotation("TAG") and not pred1.has_annotation("ENT_IOB")


def test_conll_to_docs_pos_lemma_ignored_column_and_limit(nlp, tmp_path):
    path = tmp_path / "upos.txt"
    path.write_text(
        "Dogs dog NOUN NNS x B-NP\nbark bark VERB VBP y B-VP\n\nCats cat NOUN NNS z B-NP\n",
        encoding="utf8",
    )
    columns = ["words", "lemma", "pos", "tag", "_", "iob"]
    pairs = list(conll_to_docs(nlp.vocab, path, columns=columns, input_attrs=["pos", "lemma"]))
    assert len(pairs) == 2
    predicted, reference = pairs[0]
    assert [t.pos_ for t in reference] == ["NOUN", "VERB"]
    assert [t.lemma_ for t in reference] == ["dog", "bark"]
    assert [t.tag_ for t in reference] == ["NNS", "VBP"]
    assert [t.pos_ for t in predicted] == ["NOUN", "VERB"]
    assert [t.lemma_ for t in predicted] == ["dog", "bark"]
    assert not predicted.has_annotation("TAG")  # tag not requested
    assert len(list(conll_to_docs(nlp.vocab, path, columns=columns, limit=1))) == 1


def test_conll_to_docs_invalid_upos(nlp, tmp_path):
    path = tmp_path / "bad_pos.txt"
    path.write_text("a DT B-NP\n\nthe NN B-NP\nfish NNS I-NP\n", encoding="utf8")
    with pytest.raises(ValueError, match="UPOS") as info:
        list(conll_to_docs(nlp.vocab, path, columns=["words", "pos", "iob"]))
    assert "line 1" in str(info.value) and "'DT'" in str(info.value)


def test_conll_to_docs_bad_iob_names_sentence(nlp, tmp_path):
    path = tmp_path / "bad_iob.txt"
    path.write_text("a B-NP\n\nb NP\n", encoding="utf8")
    with pytest.raises(ValueError, match="line 3.*Malformed chunk tag 'NP'"):
        list(conll_to_docs(nlp.vocab, path, columns=["words", "iob"]))


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"columns": ["word", "iob"]}, "Unknown column"),
        ({"columns": ["tag", "iob"]}, "must include 'words'"),
        ({"columns": ["words", "iob", "iob"]}, "more than once"),
        ({"columns": ["words", "iob"], "iob_target": "spans"}, "iob_target"),
        ({"columns": ["words", "iob"], "iob_target": "ent"}, "iob_target"),
        ({"columns": ["words", "iob"], "input_attrs": ["tags"]}, "input_attrs"),
    ],
)
def test_reader_settings_are_validated(ner_path, kwargs, message):
    with pytest.raises(ValueError, match=message):
        create_conll_reader(ner_path, **kwargs)


def test_registered_reader_rereads_each_call(nlp, chunk_path):
    config = {
        "corpus": {
            "@readers": "spacy_adf.ConllCorpus.v1",
            "path": str(chunk_path),
            "columns": ["words", "tag", "iob"],
            "iob_target": "spans:chunks",
            "keep_labels": ["NP"],
        }
    }
    corpus = registry.resolve(config)["corpus"]
    first = list(corpus(nlp))
    second = list(corpus(nlp))
    assert len(first) == len(second) == 2
    eg = first[0]
    assert [s.text for s in eg.reference.spans["chunks"]] == ["Confidence", "the pound"]
    assert [t.tag_ for t in eg.predicted] == [t.tag_ for t in eg.reference]
    assert "chunks" not in eg.predicted.spans
    assert registry.readers.get("spacy_adf.ConllCorpus.v1") is create_conll_reader
    assert registry.readers.get("spacy_adf.DocBinCorpus.v1") is create_docbin_reader


@pytest.mark.parametrize("path", [None, "does/not/exist.txt"])
def test_missing_path_tells_user_about_paths(path):
    with pytest.raises(ValueError, match="--paths.train"):
        create_conll_reader(path, columns=["words", "iob"])
    with pytest.raises(ValueError, match="--paths.dev"):
        create_docbin_reader(path)


# --------------------------------------------------------------------------
# docbin.py and convert.py
# --------------------------------------------------------------------------

def _summary(eg):
    ref, pred = eg.reference, eg.predicted
    return (
        [t.text for t in pred], [t.whitespace_ for t in pred], [t.tag_ for t in pred],
        pred.has_annotation("ENT_IOB"), sorted(pred.spans.keys()),
        [t.text for t in ref], [t.tag_ for t in ref], [t.ent_iob_ for t in ref],
        [(e.start, e.end, e.label_) for e in ref.ents],
        {k: [(s.start, s.end, s.label_) for s in g] for k, g in ref.spans.items()},
    )


@pytest.mark.parametrize(
    "target,keep", [("ents", None), ("spans:chunks", ["NP"]), ("spans:chunks", None)]
)
def test_docbin_round_trip(nlp, chunk_path, tmp_path, capsys, target, keep):
    out = tmp_path / "out" / "train.spacy"
    argv = [str(chunk_path), str(out), "--columns", "words,tag,iob", "--iob-target", target]
    if keep:
        argv += ["--keep-labels", ",".join(keep)]
    assert convert_main(argv) == 0
    assert "2 docs (24 tokens)" in capsys.readouterr().out
    conll = create_conll_reader(chunk_path, columns=["words", "tag", "iob"],
                                iob_target=target, keep_labels=keep)
    expected = [_summary(eg) for eg in conll(nlp)]
    for path in (out, out.parent):  # a file or a directory of DocBins
        got = [_summary(eg) for eg in create_docbin_reader(path)(nlp)]
        assert got == expected
    assert len(list(create_docbin_reader(out, limit=1)(nlp))) == 1


def test_convert_cli_subprocess(ner_path, tmp_path):
    out = tmp_path / "ner.spacy"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run(
        [sys.executable, "-m", "spacy_adf", "convert", str(ner_path), str(out),
         "--columns", "words,iob", "--sep", "TAB"],
        capture_output=True, text=True, env=env, check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "2 docs (9 tokens)" in result.stdout
    assert out.exists()


def test_convert_also_spans(chunk_path, tmp_path, capsys):
    """A second span group from the same IOB column, for pipelines with
    two chunkers (`spacy evaluate ... --spans-key chunks`)."""
    out = tmp_path / "both.spacy"
    assert convert_main([str(chunk_path), str(out), "--columns", "words,tag,iob",
                         "--iob-target", "spans:phrases", "--also-spans", "chunks=NP"]) == 0
    nlp = spacy.blank("en")
    docs = list(DocBin().from_disk(out).get_docs(nlp.vocab))
    assert any(s.label_ != "NP" for doc in docs for s in doc.spans["phrases"])
    for doc in docs:
        want = [(s.start, s.end) for s in doc.spans["phrases"] if s.label_ == "NP"]
        assert [(s.start, s.end) for s in doc.spans["chunks"]] == want
        assert {s.label_ for s in doc.spans["chunks"]} <= {"NP"}
    for bad in (["--also-spans", "chunks"], ["--iob-target", "ents", "--also-spans", "chunks=NP"]):
        assert convert_main([str(chunk_path), str(tmp_path / "x.spacy"), "--columns", "words,tag,iob",
                             *(["--iob-target", "spans:phrases"] if bad[0] != "--iob-target" else []),
                             *bad]) == 1
    assert "also" in capsys.readouterr().err


def test_convert_reports_bad_input(tmp_path, capsys):
    path = tmp_path / "bad.txt"
    path.write_text("a B-NP extra\n", encoding="utf8")
    assert convert_main([str(path), str(tmp_path / "x.spacy"), "--columns", "words,iob"]) == 1
    assert "line 1" in capsys.readouterr().err


# --------------------------------------------------------------------------
# scripts/make_sample_data.py
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sample_module():
    spec = importlib.util.spec_from_file_location("make_sample_data", REPO / "scripts" / "make_sample_data.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read_tree(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_sample_data_is_deterministic(sample_module, tmp_path):
    kwargs = dict(n_train=40, n_dev=10)
    sample_module.make_sample_data(tmp_path / "a", seed=3, **kwargs)
    sample_module.make_sample_data(tmp_path / "b", seed=3, **kwargs)
    sample_module.make_sample_data(tmp_path / "c", seed=4, **kwargs)
    a, b, c = (_read_tree(tmp_path / x) for x in "abc")
    assert sorted(a) == [
        "sample_chunking/dev.txt", "sample_chunking/train.txt",
        "sample_ner/dev.tsv", "sample_ner/train.tsv",
    ]
    assert a == b
    assert all(a[k] != c[k] for k in a)


def test_sample_data_is_well_formed(sample_module, tmp_path):
    sample_module.make_sample_data(tmp_path, n_train=200, n_dev=20, seed=0)
    chunk_sents = list(read_conll(tmp_path / "sample_chunking" / "train.txt", 3))
    assert len(chunk_sents) == 200
    labels, o_words = set(), set()
    for words, tags, chunks in chunk_sents:
        labels.update(label for _, _, label in iob_to_spans(chunks))
        o_words.update(w for w, c in zip(words, chunks) if c == "O")
        assert all(c == "O" or c.startswith(("B-", "I-")) for c in chunks)
        assert iob_to_bio(chunks) == chunks  # already IOB2
    assert labels == {"NP", "VP", "PP", "ADJP", "ADVP", "SBAR"}
    assert o_words <= {",", ".", "and", "but"}
    ner_sents = list(read_conll(tmp_path / "sample_ner" / "train.tsv", 2, sep="\t"))
    assert len(ner_sents) == 200
    ner_labels = {label for _, tags in ner_sents for _, _, label in iob_to_spans(tags)}
    assert ner_labels == {"PER", "ORG", "LOC"}


def test_committed_assets_match_generator(sample_module, tmp_path):
    assets = REPO / "assets"
    if not (assets / "sample_chunking" / "train.txt").exists():
        pytest.skip("assets not generated yet")
    sample_module.make_sample_data(tmp_path)
    generated = _read_tree(tmp_path)
    for rel, data in generated.items():
        assert (assets / rel).read_bytes() == data, f"assets/{rel} is stale; rerun the script"
    assert sum(len(d) for d in generated.values()) < 300 * 1024


# --------------------------------------------------------------------------
# real data
# --------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("split,n_sents,n_tokens", [("train", 8936, 211727), ("test", 2012, 47377)])
def test_conll2000_counts(nlp, split, n_sents, n_tokens):
    path = CONLL2000 / f"{split}.txt"
    if not path.exists():
        pytest.skip(f"{path} not available")
    reader = create_conll_reader(path, columns=["words", "tag", "iob"],
                                 iob_target="spans:chunks", keep_labels=["NP"])
    n_docs = n_toks = 0
    for eg in reader(nlp):
        n_docs += 1
        n_toks += len(eg.reference)
        assert {s.label_ for s in eg.reference.spans["chunks"]} <= {"NP"}
    assert (n_docs, n_toks) == (n_sents, n_tokens)


def test_convert_guesses_the_target_from_the_iob_types(chunk_path, ner_path, tmp_path, capsys):
    from spacy_adf.corpora.convert import guess_iob_target

    assert guess_iob_target(chunk_path, ["words", "tag", "iob"], None) == "spans:chunks"
    assert guess_iob_target(ner_path, ["words", "iob"], "\t") == "ents"
    assert convert_main([str(chunk_path), str(tmp_path / "c.spacy"), "--columns", "words,tag,iob"]) == 0
    assert "--iob-target auto: spans:chunks" in capsys.readouterr().out


def test_column_files_have_unknown_spacing(nlp, chunk_path):
    """No whitespace in a column file: spaCy's evaluation then skips the
    tokenization score instead of aligning every token (it is 1.0 anyway)."""
    reader = create_conll_reader(chunk_path, columns=["words", "tag", "iob"], iob_target="spans:chunks")
    examples = list(reader(nlp))
    assert all(eg.reference.has_unknown_spaces for eg in examples)
    assert examples[0].reference.text == examples[0].predicted.text


@pytest.mark.parametrize("columns,input_attrs", [
    (["words", "tag", "iob"], ["tag"]),
    (["words", "tag", "pos", "lemma", "iob"], ["tag", "pos", "lemma"]),
    (["words", "tag", "pos", "lemma", "iob"], ["pos"]),
    (["words", "tag", "iob"], []),
])
def test_predicted_docs_are_make_predicted_of_the_reference(tmp_path, columns, input_attrs):
    """conll_to_docs builds the predicted Doc from the columns; it must be the
    Doc make_predicted(reference) gives (same bytes, same spacing flag)."""
    from spacy_adf.corpora.conll import make_predicted
    rows = {"words": ["Dogs", "bark", "."], "tag": ["NNS", "VBP", "."], "pos": ["NOUN", "VERB", "PUNCT"],
            "lemma": ["dog", "bark", "."], "iob": ["B-NP", "B-VP", "O"]}
    text = "\n".join(" ".join(rows[c][i] for c in columns) for i in range(3)) + "\n\n"
    text += "\n".join(" ".join(rows[c][i] for c in columns) for i in (2, 0)) + "\n"
    path = tmp_path / "c.txt"
    path.write_text(text, encoding="utf8")
    nlp = spacy.blank("en")
    pairs = list(conll_to_docs(nlp.vocab, path, columns=columns, iob_target="spans:chunks",
                               input_attrs=input_attrs))
    assert len(pairs) == 2
    for predicted, reference in pairs:
        expected = make_predicted(reference, input_attrs)
        assert predicted.to_bytes() == expected.to_bytes()
        assert predicted.has_unknown_spaces == expected.has_unknown_spaces
        for attr in ("TAG", "POS", "LEMMA"):
            assert predicted.has_annotation(attr) == expected.has_annotation(attr)


def test_reuse_docs_hands_out_the_same_docs_until_the_file_changes(tmp_path):
    from spacy_adf.corpora.conll import ConllCorpus
    from spacy_adf.corpora.segmented import SegmentedCorpus

    path = tmp_path / "c.txt"
    path.write_text("Dogs NNS B-NP\nbark VBP O\n\nCats NNS B-NP\n", encoding="utf8")
    nlp = spacy.blank("en")
    plain = ConllCorpus(path, columns=["words", "tag", "iob"], iob_target="spans:chunks")
    reused = ConllCorpus(path, columns=["words", "tag", "iob"], iob_target="spans:chunks", reuse_docs=True)
    first, second, fresh = list(reused(nlp)), list(reused(nlp)), list(plain(nlp))
    assert [eg.x.to_bytes() for eg in first] == [eg.x.to_bytes() for eg in fresh]
    assert [eg.y.to_bytes() for eg in first] == [eg.y.to_bytes() for eg in fresh]
    assert all(a is b for a, b in zip(first, second))
    assert all(a.x is not b.x for a, b in zip(list(plain(nlp)), fresh))
    path.write_text("Birds NNS B-NP\nsing VBP O\n\n", encoding="utf8")  # changed: read again
    assert [t.text for t in next(iter(reused(nlp))).y] == ["Birds", "sing"]
    other = spacy.blank("en")  # another vocab: read again
    assert next(iter(reused(other))).y.vocab is other.vocab

    seg = tmp_path / "s.txt"
    seg.write_text("我 爱 北京\n天安门 上\n", encoding="utf8")
    zh = spacy.blank("zh")
    a, b = list(SegmentedCorpus(seg, reuse_docs=True)(zh)), list(SegmentedCorpus(seg)(zh))
    assert [eg.y.to_bytes() for eg in a] == [eg.y.to_bytes() for eg in b]
    assert [eg.x.to_bytes() for eg in b] == [zh.make_doc(eg.y.text).to_bytes() for eg in b]
    corpus = SegmentedCorpus(seg, reuse_docs=True)
    assert all(x is y for x, y in zip(corpus(zh), corpus(zh)))


def test_readers_with_the_same_settings_share_their_docs(tmp_path):
    """spaCy builds one reader for initialize and another for the training
    loop: with reuse_docs they hand out the same Examples; other settings,
    or reuse_docs off, do not share."""
    from spacy_adf.corpora.conll import ConllCorpus

    path = tmp_path / "c.txt"
    path.write_text("Dogs NNS B-NP\nbark VBP O\n\n", encoding="utf8")
    nlp = spacy.blank("en")
    kw = {"columns": ["words", "tag", "iob"], "iob_target": "spans:chunks"}
    first = list(ConllCorpus(path, reuse_docs=True, **kw)(nlp))
    assert list(ConllCorpus(path, reuse_docs=True, **kw)(nlp))[0] is first[0]
    assert list(ConllCorpus(path, reuse_docs=True, limit=1, **kw)(nlp))[0] is not first[0]
    assert list(ConllCorpus(path, **kw)(nlp))[0] is not first[0]

