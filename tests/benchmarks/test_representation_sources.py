"""The representation-sources benchmark (benchmarks.representation_sources):
its training commands against project.yml's, its n/a rules, and two end-to-end
runs on tiny corpora made here (a few training steps each; the full run
takes about 25 minutes)."""
import json
import random
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import srsly
from spacy.cli._util import parse_config_overrides

from benchmarks import representation_sources as bench
from benchmarks.harness import REPO
from tests.helpers.dep_data import CASES, NOUNS, VERBS, knp_text

PROJECT = srsly.read_yaml(REPO / "project.yml")
COLUMNS = list(bench.SOURCES)
NO_LOOKUPS = "spacy-lookups-data is not installed (test)"


def project_step(name: str):
    """(config, overrides) of project.yml's `spacy train` line of step `name`."""
    data = PROJECT["vars"]["data"]
    for command in PROJECT["commands"]:
        if command["name"] != name:
            continue
        line = command["script"][0]
        for key, value in PROJECT["vars"].items():
            line = line.replace("${vars.%s}" % key, str(value))
        args = shlex.split(line)
        assert args[:4] == ["python", "-m", "spacy", "train"]
        i, rest = 5, []
        while i < len(args):
            if args[i] == "--output":
                i += 2
                continue
            rest.append(args[i])
            i += 1
        return args[4], parse_config_overrides(rest), data
    raise KeyError(name)


def bench_step(task: str, source: str, data: Path):
    """(config, overrides) of the benchmark's training of one cell."""
    args = bench.parse_args(["--data", str(data), "--pos-annotations", "gold"])
    args.pos_annotations = bench.JACKKNIFED_POS  # as train-np, whether it exists here or not
    use = bench.TASKS[task]["uses"][source]
    value = bench.Resources(args, data).value(use.resource)[0] if use.resource else None
    cmd = bench.train_command(task, use, value, Path("/job"), args, Path("/pos"))
    assert cmd[1:4] == ["-m", "spacy", "train"]
    rest = [c for c in cmd[5:] if c not in ("--output", "/job/output")]
    return cmd[4], parse_config_overrides(rest)


# step of project.yml, the cell that trains the same model, overrides the
# benchmark may set differently (the self-training corpus is not the benchmark's)
SAME_AS_PROJECT = [
    ("train-np", "np", "lookups", ()),
    ("train-pos-en", "pos-en", "lookups", ()),
    ("train-pos-wsj", "pos-en", "none", ()),
    ("train-seg-weibo", "weibo", "none", ()),
    ("train-seg-weibo-self", "weibo", "lexicon", ("paths.train", "training.max_steps", "training.eval_frequency")),
    ("train-seg-kwdlc", "seg-ja", "none", ()),
    ("train-morph-ja", "morph-ja", "none", ()),
    ("train-bioner-jnlpba-pos", "bio", "own-text", ()),
]
# paths whose values are this run's files, compared by name below
RUN_PATHS = ("paths.log", "paths.pos_model", "paths.pos_annotations", "paths.jnlpba", "paths.train", "paths.dev")


@pytest.mark.parametrize("step,task,source,differ", SAME_AS_PROJECT)
def test_trainings_are_project_yml_s(step, task, source, differ):
    config, theirs, data = project_step(step)
    our_config, ours = bench_step(task, source, Path(data).resolve())
    assert our_config == config
    assert set(ours) - set(differ) == set(theirs) - set(differ)
    for key in set(theirs) - set(differ) - set(RUN_PATHS):
        assert ours[key] == theirs[key], key
    for key in ("paths.train", "paths.dev", "paths.jnlpba"):
        if key in theirs and key not in differ:
            names = [Path(p).parts[-2:] for p in str(theirs[key]).split(",")]
            assert [Path(p).parts[-2:] for p in str(ours[key]).split(",")] == names, key


def test_vector_clusters_command(tmp_path):
    table = tmp_path / "clusters.tsv"
    table.write_text("0\t本\n", encoding="utf8")
    args = bench.parse_args(["--data", str(tmp_path), "--ja-clusters", str(table), "--ja-cluster-words", "5000"])
    use = bench.TASKS["morph-ja"]["uses"]["vector-clusters"]
    cmd = bench.train_command("morph-ja", use, str(table), tmp_path, args, None)
    assert shlex.join(cmd).endswith(
        f"--components.morph_pos.model.templates.clusters true --initialize.components.morph_pos.clusters "
        f"{table} --initialize.components.morph_pos.cluster_words 5000")


def test_smoke_overrides_score_the_last_step(tmp_path):
    args = bench.parse_args(["--data", str(tmp_path), "--limit", "50", "--dev-limit", "9", "--max-steps", "4"])
    assert bench.smoke_overrides(args) == ["--corpora.train.limit", "50", "--corpora.dev.limit", "9",
                                           "--training.max_steps", "4", "--training.eval_frequency", "4"]
    assert args.out_json == bench.SMOKE_JSON and args.out_md == bench.SMOKE_MD  # the recorded figures stay


def test_none_always_runs_and_columns_keep_their_order(tmp_path):
    args = bench.parse_args(["--data", str(tmp_path), "--sources", "own-text,lexicon", "--tasks", "bio,np"])
    assert args.sources == ["none", "lexicon", "own-text"]
    assert args.tasks == ["np", "bio"]
    with pytest.raises(SystemExit):
        bench.parse_args(["--data", str(tmp_path), "--sources", "wordnet"])


def test_own_text_goes_to_a_task_or_a_language(tmp_path):
    text = tmp_path / "raw.txt"
    text.write_text("a b c\n", encoding="utf8")
    args = bench.parse_args(["--data", str(tmp_path), "--tasks", "seg-ja,morph-ja", "--own-text", str(text)])
    assert args.own_text == {"ja": text}  # one language among the tasks with cluster templates
    with pytest.raises(SystemExit):  # English and Japanese taggers: which one is the file for?
        bench.parse_args(["--data", str(tmp_path), "--own-text", str(text)])
    args = bench.parse_args(["--data", str(tmp_path), "--own-text", f"en={text}", "--own-text", f"bio={text}"])
    assert bench.own_text_file("bio", {"en": Path("news.txt"), "bio": text}) == text
    assert bench.own_text_file("np", {"en": Path("news.txt"), "bio": text}) == Path("news.txt")
    assert bench.own_text_file("morph-ja", args.own_text) is None  # its training text then
    with pytest.raises(SystemExit):
        bench.parse_args(["--data", str(tmp_path), "--own-text", f"ja={tmp_path / 'missing.txt'}"])


def test_empty_project_vars_mean_not_given(tmp_path):
    args = bench.parse_args(["--data", str(tmp_path), "--ja-clusters", "", "--ja-words", "", "--own-text", ""])
    assert args.ja_clusters is None and args.ja_words is None and args.own_text == {}


def test_resource_detection(tmp_path, monkeypatch):
    import importlib.util

    args = bench.parse_args(["--data", str(tmp_path)])
    assert bench.resource_absent("ja-clusters", args) == "no --ja-clusters given"
    assert bench.resource_absent("own-text:np", args) == ""  # the training text at least
    jieba = importlib.util.find_spec("jieba") is not None
    assert (bench.resource_absent("jieba", args) == "") == jieba
    if importlib.util.find_spec("spacy_lookups_data") is None:
        assert "not installed" in bench.lookups_clusters_absent("en")
    else:  # the English Brown clusters are there, no Japanese ones
        assert bench.lookups_clusters_absent("en") == ""
        assert "no lexeme_cluster table for ja" in bench.lookups_clusters_absent("ja")


def test_not_applicable_reasons():
    assert "no word-cluster templates" in bench.not_applicable("weibo", "own-text")
    assert "segmenter" in bench.not_applicable("np", "lexicon")
    assert bench.not_applicable("morph-ja", "vectors") == bench.VECTORS_NOTE
    assert bench.not_applicable("seg-ja", "vectors") == "adf_segmenter takes no word vectors"
    assert "--ja-clusters is Japanese" in bench.not_applicable("pos-en", "vector-clusters")


def test_pos_prerequisite_and_estimate(tmp_path):
    args = bench.parse_args(["--data", str(tmp_path), "--tasks", "bio"])
    ok, na = (bench.NONE, ""), (None, "n/a")
    assert bench.pos_prerequisite({"bio": {"none": ok}}, args)
    assert not bench.pos_prerequisite({"pos-en": {"none": ok}, "bio": {"none": ok}}, args)
    assert not bench.pos_prerequisite({"bio": {"none": na}}, args)
    assert bench.estimated_seconds({"bio": {"none": ok, "lexicon": na}}, args) == \
        bench.TASKS["bio"]["seconds"] + bench.TASKS["pos-en"]["seconds"]


def test_markdown_groups_the_cells_without_a_score():
    ok = {"status": "ok", "metric": "token_f", "value": 95.0, "delta": None, "source": ""}
    report = {
        "command": "python -m benchmarks.representation_sources", "started": "2026-12-07 10:00:00 UTC",
        "total_wall_seconds": 60.0, "repo_changed_during_run": False,
        "machine": {"cores": 2, "cpu": "AMD EPYC", "spacy": "3.8", "spacy_adf": "0.1", "git_commit": "abc1234"},
        "settings": {"smoke": False, "pos_annotations": "gold POS"},
        "sources": {"none": "none", "lexicon": "lexicon"},
        "tasks": {t: {"title": t.upper(), "dev": "dev"} for t in ("weibo", "seg-ja")},
        "table": {"weibo": {"none": {"status": "n/a", "note": "corpus missing: x"},
                            "lexicon": {"status": "n/a", "note": "corpus missing: x"}},
                  "seg-ja": {"none": ok, "lexicon": {"status": "failed", "note": "boom"}}},
    }
    md = bench.markdown_section(report)
    assert "| SEG-JA | dev | token_f 95.00 | **failed** |" in md
    assert "- corpus missing: x: weibo (every column)" in md
    assert "- boom: seg-ja / lexicon" in md
    assert "Smoke run" not in md and "base-NP" not in md


# ------------------------------------------------------------ end to end


def write_tiny_corpora(data: Path, tmp: Path, brat: bool = False) -> None:
    """CoNLL-2000-like English (the sample grammar), KWDLC and KU Wikipedia
    KNP files of the synthetic Japanese grammar, and with `brat` a JNLPBA-like
    standoff folder of the sample NER sentences; no Weibo corpus."""
    subprocess.run([sys.executable, "-m", "scripts.make_sample_data", "--n-train", "150", "--n-dev", "5",
                    "--out-dir", str(tmp / "sample")], cwd=REPO, check=True, capture_output=True)
    (data / "conll2000").mkdir(parents=True)
    (data / "conll2000" / "train.txt").write_text(
        (tmp / "sample" / "sample_chunking" / "train.txt").read_text(encoding="utf8"), encoding="utf8")
    for corpus, seed in (("kwdlc", 0), ("ku_wikipedia_annotated", 10)):
        (data / corpus).mkdir()
        (data / corpus / "train.knp").write_text(knp_text(50, seed=seed, prefix=f"{corpus}-tr"), encoding="utf8")
        (data / corpus / "dev.knp").write_text(knp_text(12, seed=seed + 1, prefix=f"{corpus}-dv"), encoding="utf8")
    if brat:
        write_brat(tmp / "sample" / "sample_ner" / "train.tsv", data / "jnlpba" / "standoff" / "train")


def write_brat(tsv: Path, folder: Path, n_docs: int = 12, per_doc: int = 5) -> None:
    """IOB2 sentences as brat documents: one sentence a line, T lines."""
    folder.mkdir(parents=True)
    sentences = [[line.split("\t") for line in block.splitlines()]
                 for block in tsv.read_text(encoding="utf8").strip().split("\n\n")]
    for d in range(n_docs):
        text, ann, n = "", [], 0
        for sent in sentences[d * per_doc:(d + 1) * per_doc]:
            starts = []
            for word, _ in sent:
                starts.append(len(text))
                text += word + " "
            text = text[:-1] + "\n"
            for i, (word, tag) in enumerate(sent):
                if tag.startswith("B-"):
                    j = i + 1
                    while j < len(sent) and sent[j][1] == "I-" + tag[2:]:
                        j += 1
                    end = starts[j - 1] + len(sent[j - 1][0])
                    n += 1
                    ann.append(f"T{n}\t{tag[2:]} {starts[i]} {end}\t{text[starts[i]:end]}\n")
        (folder / f"doc{d}.txt").write_text(text, encoding="utf8")
        (folder / f"doc{d}.ann").write_text("".join(ann), encoding="utf8")


def japanese_resources(tmp: Path):
    """A cluster table and a word list of the synthetic Japanese words (as
    vector-clusters and vector-words write them) and a spaced raw text."""
    words = NOUNS + VERBS
    clusters = tmp / "ja_clusters.tsv"
    clusters.write_text("".join(f"{i % 4:02b}\t{w}\n" for i, w in enumerate(words)), encoding="utf8")
    lexicon = tmp / "ja_words.txt"
    lexicon.write_text("".join(w + "\n" for w in words), encoding="utf8")
    rng = random.Random(0)
    text = tmp / "ja_text.txt"
    text.write_text("".join(" ".join(rng.choice(words + CASES) for _ in range(8)) + "\n" for _ in range(300)),
                    encoding="utf8")
    return clusters, lexicon, text, len(words)


def run_bench(tmp_path, monkeypatch, *argv):
    # the lookups column must not depend on what this venv has installed
    monkeypatch.setattr(bench, "lookups_clusters_absent", lambda lang: NO_LOOKUPS)
    out_json, out_md = tmp_path / "out.json", tmp_path / "benchmarks.md"
    code = bench.main(["--data", str(tmp_path / "data"), "--workdir", str(tmp_path / "work"),
                       "--out-json", str(out_json), "--out-md", str(out_md), "--pos-annotations", "gold",
                       "--limit", "60", "--max-steps", "3", *argv])
    return code, json.loads(out_json.read_text(encoding="utf8")), out_md.read_text(encoding="utf8")


def test_end_to_end_table(tmp_path, monkeypatch, capsys):
    write_tiny_corpora(tmp_path / "data", tmp_path)
    clusters, lexicon, text, n_words = japanese_resources(tmp_path)
    code, report, md = run_bench(tmp_path, monkeypatch, "--tasks", "np,weibo,seg-ja,morph-ja,bio",
                                 "--ja-clusters", str(clusters), "--ja-words", str(lexicon),
                                 "--own-text", f"ja={text}")
    assert code == 0 and report["complete"] and not report["failures"]
    table = report["table"]
    assert list(table) == ["np", "weibo", "seg-ja", "morph-ja", "bio"]
    assert all(list(row) == COLUMNS for row in table.values())
    trained = {task: [s for s in COLUMNS if row[s]["status"] == "ok"] for task, row in table.items()}
    assert trained == {"np": ["none", "own-text"], "weibo": [], "seg-ja": ["none", "lexicon"],
                       "morph-ja": ["none", "vector-clusters", "own-text"], "bio": []}
    assert all(c["status"] == "n/a" for row in table.values() for c in row.values() if c["status"] != "ok")
    for task in ("weibo", "bio"):
        assert all(c["note"].startswith("corpus missing") for c in table[task].values())
    assert table["np"]["lookups"]["note"] == NO_LOOKUPS
    # no --ja-vectors: n/a whether or not the task has a real-valued vector entry yet
    vectors = "no --ja-vectors given" if "vectors" in bench.TASKS["morph-ja"]["uses"] else bench.VECTORS_NOTE
    assert table["morph-ja"]["vectors"]["note"] == vectors
    assert table["np"]["vector-clusters"]["note"].startswith("no vector cluster table for en")
    for task, sources in trained.items():
        for source in sources:
            cell = table[task][source]
            assert cell["metric"] == bench.TASKS[task]["metric"] and 0 <= cell["value"] <= 100
            assert cell["read_from"] == "model-last/meta.json" and cell["evaluations"] >= 1
            if source == "none":
                assert cell["delta"] is None
            else:
                assert cell["delta"] == pytest.approx(cell["value"] - table[task]["none"]["value"])
    morph = table["morph-ja"]
    assert morph["vector-clusters"]["cluster_words"] == {"morph_pos": n_words}  # the whole table was read
    assert morph["none"]["cluster_words"] == {}
    assert str(text) in morph["own-text"]["source"] and list(report["own_text_tables"]) == [str(text)]
    assert table["np"]["own-text"]["source"].startswith("the task's training text")
    assert "--paths.user_dict" in table["seg-ja"]["lexicon"]["command"]
    assert report["settings"]["smoke"] and report["machine"]["git_commit"]
    # the Markdown: the benchmark's section, one row per task, one column per source
    assert md.count(f"<!-- {bench.NAME}:start -->") == 1 and f"<!-- {bench.NAME}:end -->" in md
    header = "| task | dev | " + " | ".join(bench.SOURCES.values()) + " |"
    rows = md.split(header, 1)[1].strip().splitlines()[1:6]
    assert [r.count("|") for r in rows] == [9] * 5
    assert "weibo (every column)" in md and "Smoke run" in md
    assert rows[3].startswith("| Japanese POS + sub-POS tagger") and "morph_SrcPos_SrcSubPos_acc" in rows[3]
    out = capsys.readouterr().out
    assert out.count("training started") == 7 and out.count("finished in") == 8  # 7 trainings, 1 clusters


def test_end_to_end_bio_trains_its_pos_tagger_first(tmp_path, monkeypatch, capsys):
    write_tiny_corpora(tmp_path / "data", tmp_path, brat=True)
    code, report, _ = run_bench(tmp_path, monkeypatch, "--tasks", "bio", "--sources", "none")
    assert code == 0 and not report["failures"]
    pos = report["prerequisites"]["pos-en/none"]
    assert pos["status"] == "ok" and pos["metric"] == "tag_acc"
    bio = report["table"]["bio"]["none"]
    assert bio["status"] == "ok" and bio["metric"] == "ents_f"
    assert f"--paths.pos_model {pos['model']}" in bio["command"]
    assert "[prerequisite] pos-en / none: training started" in capsys.readouterr().out
