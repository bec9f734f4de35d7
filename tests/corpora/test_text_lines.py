"""Every line reader of the package reads text files one way
(spacy_adf.serialization.text_lines): a byte-order mark is dropped instead of
sticking to the first word, CRLF is tolerated, and a missing file, a folder or
bytes that are not UTF-8 raise a ValueError naming the file (and the line)."""
import pytest
import spacy

from spacy_adf.corpora.blitzer import read_reviews
from spacy_adf.corpora.conll import read_conll
from spacy_adf.corpora.segmented import SegmentedCorpus, read_segmented
from spacy_adf.models.char_segmenter import read_user_dict
from spacy_adf.serialization.text_lines import check_file, read_lines
from benchmarks.packaging import read_texts
from spacy_adf.tokenizers.char import CharTokenizer

BOM = "\ufeff"


def _write(path, text, encoding="utf-8"):
    path.write_bytes(text.encode(encoding))
    return path


def test_read_lines_drops_the_bom_and_line_ends(tmp_path):
    path = _write(tmp_path / "a.txt", BOM + "我们 好\r\n\r\n他\n")
    assert list(read_lines(path)) == [(1, "我们 好"), (2, ""), (3, "他")]


def test_a_bom_never_reaches_a_word(tmp_path):
    seg = _write(tmp_path / "seg.txt", BOM + "我们 好\r\n他们 在\r\n")
    assert list(read_segmented(seg)) == [["我们", "好"], ["他们", "在"]]
    nlp = spacy.blank("zh")
    nlp.tokenizer = CharTokenizer(nlp.vocab)
    first = next(iter(SegmentedCorpus(seg)(nlp)))
    assert [t.text for t in first.reference] == ["我们", "好"]
    assert first.predicted.text == "我们好"
    words = _write(tmp_path / "dict.txt", BOM + "北京大学 100\n清华\n")
    assert read_user_dict(words) == ["北京大学", "清华"]
    assert read_texts(seg, segmented=True) == ["我们好", "他们在"]
    reviews = _write(tmp_path / "r.review", BOM + "good:2 fun:1 #label#:positive\n")
    assert read_reviews(reviews)[0].features == {"good": 2, "fun": 1}


@pytest.mark.parametrize("read", [
    lambda p: list(read_segmented(p)),
    lambda p: SegmentedCorpus(p),
    lambda p: list(read_conll(p, 2)),
    read_user_dict,
    read_texts,
    read_reviews,
])
def test_missing_files_and_folders_are_named(tmp_path, read):
    with pytest.raises(ValueError, match=r"nowhere\.txt' does not exist"):
        read(tmp_path / "nowhere.txt")
    with pytest.raises(ValueError, match="is not a file"):
        read(tmp_path)


@pytest.mark.parametrize("read", [
    lambda p: list(read_segmented(p)),
    lambda p: list(read_conll(p, 2)),
    read_user_dict,
    read_texts,
    read_reviews,
])
def test_bytes_that_are_not_utf8_name_the_line(tmp_path, read):
    path = tmp_path / "gbk.txt"
    path.write_bytes("好 的\n".encode("utf-8") + "天气 很好\n".encode("gbk"))
    with pytest.raises(ValueError, match=r"gbk\.txt, line 2: not valid UTF-8"):
        read(path)


def test_check_file_hint(tmp_path):
    with pytest.raises(ValueError, match=r"does not exist; check --paths.train/--paths.dev$"):
        check_file(tmp_path / "x", "corpus")
    with pytest.raises(ValueError, match=r"'[^']*x' does not exist$"):
        check_file(tmp_path / "x", "dictionary", hint="")
    path = _write(tmp_path / "ok.txt", "a\n")
    assert check_file(str(path), "corpus") == path
