"""benchmarks.harness: the Markdown section writer, fmt, the JSON writer and
child processes with wall time and peak RSS."""
import json
import sys

import pytest

from benchmarks.harness import (MD_HEADER, Child, fmt, machine_info, markers, read_jsonl,
                                run_child, write_json, write_section)


def test_write_section_replaces_only_its_section(tmp_path):
    md = tmp_path / "docs" / "benchmarks.md"
    write_section(md, "bench_a", "first\n")
    assert md.read_text(encoding="utf8").startswith(MD_HEADER)
    start, end = markers("bench_a")
    assert (start, end) == ("<!-- bench_a:start -->", "<!-- bench_a:end -->")
    md.write_text(md.read_text(encoding="utf8") + "\n## Other benchmark\nkeep me\n", encoding="utf8")
    write_section(md, "bench_b", "b section")  # appended; a newline is added
    write_section(md, "bench_a", "second\n")
    text = md.read_text(encoding="utf8")
    assert "second" in text and "first" not in text and "keep me" in text
    assert text.count(start) == 1 and text.count(end) == 1
    assert f"{start}\nsecond\n{end}" in text
    assert "<!-- bench_b:start -->\nb section\n<!-- bench_b:end -->\n" in text
    assert text.index("keep me") < text.index("bench_b:start")
    # replacing again leaves the file as it is
    write_section(md, "bench_a", "second\n")
    assert md.read_text(encoding="utf8") == text


def test_fmt():
    assert fmt(None) == "n/a"
    assert fmt(None, ".1f", "not reached") == "not reached"
    assert fmt(3.14159) == "3.14"
    assert fmt(1234567.8, ",.0f") == "1,234,568"
    assert fmt(7, "d") == "7"


def test_write_json_and_read_jsonl(tmp_path):
    path = tmp_path / "sub" / "out.json"
    write_json(path, {"a": [1, 2], "text": "北京"}, indent=1)
    raw = path.read_text(encoding="utf8")
    assert raw.endswith("\n") and "北京" in raw
    assert json.loads(raw) == {"a": [1, 2], "text": "北京"}
    log = tmp_path / "log.jsonl"
    log.write_text('{"step": 0}\n\n{"step": 1}\n', encoding="utf8")
    assert read_jsonl(log) == [{"step": 0}, {"step": 1}]


def test_run_child_wall_time_and_peak_rss(tmp_path):
    code = "x = bytearray(20 * 2**20); print('done')"
    result = run_child([sys.executable, "-c", code], tmp_path / "child.log", cwd=tmp_path)
    assert result["returncode"] == 0 and result["wall_seconds"] > 0
    assert result["peak_rss_mb"] > 20
    assert (tmp_path / "child.log").read_text(encoding="utf8") == "done\n"


def test_run_child_failure_shows_the_log(tmp_path):
    code = "import sys; print('last words'); sys.exit(3)"
    with pytest.raises(RuntimeError, match="exit code 3(.|\n)*last words"):
        run_child([sys.executable, "-c", code], tmp_path / "child.log", cwd=tmp_path)


def test_child_poll_without_check(tmp_path):
    child = Child([sys.executable, "-c", "import sys; sys.exit(2)"], tmp_path / "c.log", cwd=tmp_path)
    result = None
    while result is None:
        result = child.poll(check=False)
    assert result["returncode"] == 2 and result["peak_rss_mb"] > 0


def test_machine_info_keys():
    info = machine_info()
    for key in ("cores", "cpu", "load_average_at_start", "python", "spacy", "spacy_adf",
                "git_commit"):
        assert key in info


def test_child_reports_the_commands_own_peak_rss(tmp_path):
    """Children run under the launcher: this process's 400 MB peak does not
    show up in the command's ru_maxrss (it would after a direct fork + exec)."""
    import sys

    import pytest

    from benchmarks.harness import Child, run_child

    ballast = bytearray(400 * 1024 * 1024)
    ballast[::4096] = b"\x01" * len(ballast[::4096])
    r = run_child([sys.executable, "-c", "print('hi')"], tmp_path / "log")
    assert r["returncode"] == 0 and (tmp_path / "log").read_text().strip() == "hi"
    assert r["peak_rss_mb"] < 200 and r["end_time"] >= r["start_time"] and r["wall_seconds"] > 0
    del ballast
    with pytest.raises(RuntimeError, match="exit code 3"):
        run_child([sys.executable, "-c", "import sys; sys.exit(3)"], tmp_path / "log2")
    child = Child([sys.executable, "-c", "import sys; sys.exit(4)"], tmp_path / "log3")
    assert child.wait(check=False)["returncode"] == 4
