"""benchmarks.jdepp without J.DepP: the conversion of the project's reader's
Docs to J.DepP's input, the reading of its output back into heads scored by
the project's scorer, the fixes to its sources and its recipe's commands, on
tiny data made here."""
from pathlib import Path

import pytest
from spacy.vocab import Vocab

from benchmarks import jdepp


def _m(surface, pos, subpos="*", conj_type="*", conj_form="*", lemma=None):
    return f"{surface} {surface} {lemma or surface} {pos} 1 {subpos} 1 {conj_type} 0 {conj_form} 0 NIL"


# two sentences: "彼は 本を 読んだ" (0->2, 1->2) and a broken one (its head
# past the end: the reader skips it), then "*印は 大切だ" (0->1)
KNP = "\n".join([
    "# S-ID:s1-1",
    "* 2D", "+ 2D", _m("彼", "名詞", "普通名詞"), _m("は", "助詞", "副助詞"),
    "* 2D", "+ 2D", _m("本", "名詞", "普通名詞"), _m("を", "助詞", "格助詞"),
    "* -1D", "+ -1D", _m("読んだ", "動詞", "*", "子音動詞マ行", "タ形", lemma="読む"),
    "EOS",
    "# S-ID:s1-2",
    "* 5D", "+ 5D", _m("壊れた", "動詞", "*", "母音動詞", "タ形", lemma="壊れる"),
    "* -1D", "+ -1D", _m("文", "名詞", "普通名詞"),
    "EOS",
    "# S-ID:s1-3",
    "* 1P", "+ 1P", _m("*", "特殊", "記号"), _m("印", "名詞", "普通名詞"), _m("は", "助詞", "副助詞"),
    "* -1D", "+ -1D", _m("大切だ", "形容詞", "*", "ナ形容詞", "基本形", lemma="大切だ"),
    "EOS",
]) + "\n"

JDP = """# S-ID:s1-1
* 0 2D
彼\t名詞,普通名詞,*,*,彼,*,*
は\t助詞,副助詞,*,*,は,*,*
* 1 2D
本\t名詞,普通名詞,*,*,本,*,*
を\t助詞,格助詞,*,*,を,*,*
* 2 -1D
読んだ\t動詞,*,子音動詞マ行,タ形,読む,*,*
EOS
# S-ID:s1-3
* 0 1P
＊\t特殊,記号,*,*,*,*,*
印\t名詞,普通名詞,*,*,印,*,*
は\t助詞,副助詞,*,*,は,*,*
* 1 -1D
大切だ\t形容詞,*,ナ形容詞,基本形,大切だ,*,*
EOS
"""


@pytest.fixture()
def refs(tmp_path):
    path = tmp_path / "tiny.knp"
    path.write_text(KNP, encoding="utf8")
    return jdepp.read_refs(path, Vocab())


def test_the_readers_sentences_convert_to_jdepp_input(refs, tmp_path):
    assert [d.user_data["sent_id"] for d in refs] == ["s1-1", "s1-3"]
    assert "".join(jdepp.doc_to_jdp(d) for d in refs) == JDP
    assert jdepp.write_jdp(refs, tmp_path / "x.jdp", copies=3) == 6
    assert (tmp_path / "x.jdp").read_text(encoding="utf8") == JDP * 3


def _output(heads_per_sentence):
    """J.DepP's ``-v -1`` print of the parse of JDP with the given heads."""
    out, k = [], 0
    for line in JDP.splitlines():
        if line.startswith("* "):
            _, i, gold = line.split()
            out.append(f"* {i} {gold} {heads_per_sentence[k][int(i)]}D@0.912345")
        else:
            out.append(line)
            k += line == "EOS"
    return "\n".join(out) + "\n"


def test_the_output_is_read_back_and_scored_by_the_project_scorer(refs):
    heads = jdepp.heads_of_output(refs, _output([[2, 2, -1], [1, -1]]))
    assert heads == [[2, 2, -1], [1, -1]]
    assert jdepp.score(refs, heads) == {"dep_acc": 100.0, "sent_acc": 100.0, "sentences": 2}
    wrong = jdepp.heads_of_output(refs, _output([[1, 2, -1], [1, -1]]))
    scores = jdepp.score(refs, wrong)
    assert scores["dep_acc"] == pytest.approx(200 / 3) and scores["sent_acc"] == 50.0
    assert jdepp.disagreements(refs, heads, wrong) == (1, 0)


def test_output_that_does_not_match_the_gold_bunsetsu_is_refused(refs):
    text = _output([[2, 2, -1], [1, -1]])
    with pytest.raises(ValueError, match="sentences"):
        jdepp.heads_of_output(refs[:1], text)
    merged = text.replace("* 1 2D 2D@0.912345\n", "")
    with pytest.raises(ValueError):
        jdepp.heads_of_output(refs, merged)
    with pytest.raises(ValueError, match="EOS"):
        jdepp.read_jdepp_output(text[:-4])


def test_its_own_accuracy_line_is_read(tmp_path):
    log = tmp_path / "x.log"
    log.write_text("J.DepP performance statistics (depnd):\nacc. (partial)\t0.9204 (10100/10974)\n")
    assert jdepp.self_reported(log) == {"correct": 10100, "scored": 10974}


def test_the_fixes_apply_once_and_fail_loudly_on_other_sources(tmp_path):
    src = tmp_path / "src"
    for rel, old, _ in jdepp.PATCHES:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(f"before\n{old}after\n", encoding="utf8")
    jdepp.apply_patches(src)
    for rel, old, new in jdepp.PATCHES:
        assert (src / rel).read_text(encoding="utf8") == f"before\n{new}after\n"
    jdepp.apply_patches(src)  # patched already: nothing to do
    (src / jdepp.PATCHES[1][0]).write_text("something else\n", encoding="utf8")
    with pytest.raises(SystemExit, match="exactly once"):
        jdepp.apply_patches(src)


def test_the_recipe_passes_each_option_group_after_its_separator():
    steps = dict(jdepp.jdepp_recipe(Path("jdepp"), Path("train.jdp"), Path("m"), 0,
                                    "-t 1 -d 2", "-t 1", Path("first.jdp")))
    assert list(steps) == ["learn", "cache", "compile"]
    learn, cache = steps["learn"], steps["cache"]
    assert learn[learn.index("--"):] == ["--", "-t", "1", "-d", "2"]
    assert cache[cache.index("--"):] == ["--", "--", "--", "-t", "1"]
    assert steps["compile"][:2] == ["sh", "-c"] and "< first.jdp" in steps["compile"][2]
