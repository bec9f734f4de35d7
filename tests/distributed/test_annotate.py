"""Distributed annotation on a local 2-CPU Ray: identical to nlp.pipe, shard
files in input order with a manifest, resume, a killed worker, bad input."""
import json
import os
import signal

import pytest
import spacy
from spacy.tokens import DocBin

pytest.importorskip("ray", reason='Ray is not installed (pip install "spacy-adf[ray]")')

from spacy_adf.distributed.annotate import Annotation, annotate  # noqa: E402


def write_lines(path, n, prefix="doc"):
    path.write_text("".join(f"{prefix} {i} says hello. And more {i % 7} here.\n" for i in range(n)), encoding="utf8")
    return path


def read_output(output, nlp):
    docs = []
    for f in sorted(output.glob("shard-*.spacy")):
        docs.extend(DocBin().from_disk(f).get_docs(nlp.vocab))
    return docs


def same_docs(a, b):
    return [d.to_json() for d in a] == [d.to_json() for d in b]


def expected(nlp, texts):
    return list(nlp.pipe(texts))


def test_annotate_text_equals_nlp_pipe(ray_local, blank_pipeline, tmp_path):
    inp = write_lines(tmp_path / "in.txt", 23)
    out = tmp_path / "out"
    summary = annotate(str(blank_pipeline), str(inp), str(out), workers=2, shard_size=4, progress=False)
    nlp = spacy.load(blank_pipeline)
    texts = inp.read_text(encoding="utf8").splitlines()
    assert summary["n_docs"] == 23 and summary["n_shards"] == 6
    assert same_docs(read_output(out, nlp), expected(nlp, texts))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] and [s["file"] for s in manifest["shards"]] == sorted(
        p.name for p in out.glob("shard-*.spacy"))
    assert sum(s["n_docs"] for s in manifest["shards"]) == 23
    assert not list(out.glob(".*tmp"))


def test_resume_runs_only_missing_shards(ray_local, blank_pipeline, tmp_path):
    inp = write_lines(tmp_path / "in.txt", 30)
    out = tmp_path / "out"
    annotate(str(blank_pipeline), str(inp), str(out), workers=2, shard_size=5, progress=False)
    # a partial run: two shards never finished, one left a temporary file
    (out / "shard-000002.spacy").unlink()
    (out / "shard-000005.spacy").unlink()
    (out / ".shard-000005.spacy.123.tmp").write_bytes(b"partial")
    summary = annotate(str(blank_pipeline), str(inp), str(out), workers=2, shard_size=5, progress=False)
    assert summary["n_shards_run"] == 2 and summary["n_docs_run"] == 10 and summary["n_docs"] == 30
    nlp = spacy.load(blank_pipeline)
    assert same_docs(read_output(out, nlp), expected(nlp, inp.read_text(encoding="utf8").splitlines()))
    with pytest.raises(ValueError, match="another run"):
        annotate(str(blank_pipeline), str(inp), str(out), workers=2, shard_size=6, progress=False)


def test_killed_worker_loses_and_duplicates_nothing(ray_local, blank_pipeline, tmp_path):
    inp = write_lines(tmp_path / "in.txt", 1200)
    out = tmp_path / "out"
    run = Annotation(str(blank_pipeline), str(inp), str(out), workers=2, shard_size=40, progress=False)
    run.start()
    victim = run.pids[0]
    killed = []

    def kill_once(result):
        if not killed:
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    try:
        summary = run.run(on_shard=kill_once)
    finally:
        run.shutdown()
    # the killed worker's shards went to the other one or to its replacement (whichever was free)
    assert killed and summary["n_docs"] == 1200 and summary["workers_replaced"] == 1
    nlp = spacy.load(blank_pipeline)
    docs = read_output(out, nlp)
    texts = inp.read_text(encoding="utf8").splitlines()
    assert [d.text for d in docs] == texts


def test_output_docs_carry_their_input_line_numbers(ray_local, blank_pipeline, tmp_path):
    """Blank and unreadable lines are no documents; every output Doc still
    names its input line (doc.user_data["input_line"], 1-based), in DocBin
    and JSONL output alike."""
    inp = tmp_path / "in.txt"
    lines = ["first doc.", "", "third doc.", "   ", "fifth doc.", "", "", "eighth doc."]
    inp.write_bytes(("\n".join(lines) + "\n").encode("utf8").replace(b"fifth", b"\xff fifth"))
    annotate(str(blank_pipeline), str(inp), str(tmp_path / "out"), workers=2, shard_size=3, progress=False)
    nlp = spacy.load(blank_pipeline)
    docs = read_output(tmp_path / "out", nlp)
    assert [(d.user_data["input_line"], d.text) for d in docs] == [(1, "first doc."), (3, "third doc."),
                                                                   (8, "eighth doc.")]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["line_key"] == "input_line" and manifest["bad_lines"][0].startswith(f"{inp}:5: not UTF-8")
    annotate(str(blank_pipeline), str(inp), str(tmp_path / "json"), workers=2, shard_size=3, fmt="jsonl",
             progress=False)
    rows = [json.loads(x) for f in sorted((tmp_path / "json").glob("shard-*.jsonl")) for x in f.read_text().splitlines()]
    assert [(r["input_line"], r["text"]) for r in rows] == [(1, "first doc."), (3, "third doc."), (8, "eighth doc.")]


def test_jsonl_input_with_bad_lines_and_jsonl_output(ray_local, blank_pipeline, tmp_path):
    inp = tmp_path / "in.jsonl"
    inp.write_text('{"text": "a b"}\nnot json\n{"text": "c d"}\n', encoding="utf8")
    messages = []
    run = Annotation(str(blank_pipeline), str(inp), str(tmp_path / "out"), workers=2, shard_size=2,
                     fmt="jsonl", progress=False, log=messages.append)
    try:
        summary = run.run()
    finally:
        run.shutdown()
    assert summary["n_docs"] == 2
    assert summary["bad_lines"] == [f"{inp}:2: bad JSON (Expecting value)"]
    assert messages == [f"skipped unreadable line {inp}:2: bad JSON (Expecting value)"]
    lines = [json.loads(x) for f in sorted((tmp_path / "out").glob("shard-*.jsonl")) for x in f.read_text().splitlines()]
    assert [x["text"] for x in lines] == ["a b", "c d"]


def test_missing_model(tmp_path):
    (tmp_path / "in.txt").write_text("x\n")
    with pytest.raises(FileNotFoundError, match="no pipeline at"):
        annotate(str(tmp_path / "nope"), str(tmp_path / "in.txt"), str(tmp_path / "out"))


def test_cached_msgpack_codecs_nests_and_restores():
    import srsly
    import srsly.msgpack

    from spacy_adf.distributed.annotate import cached_msgpack_codecs

    regs = (srsly.msgpack.msgpack_encoders, srsly.msgpack.msgpack_decoders)
    data = {"a": [1, 2.5, "x"]}
    with cached_msgpack_codecs():
        with cached_msgpack_codecs():
            assert srsly.msgpack_loads(srsly.msgpack_dumps(data)) == data
        assert all("get_all" in vars(r) for r in regs)  # the inner block left the outer cache alone
        assert srsly.msgpack_loads(srsly.msgpack_dumps(data)) == data
    assert not any("get_all" in vars(r) for r in regs)
