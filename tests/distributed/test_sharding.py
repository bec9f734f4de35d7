import json

import pytest

pytest.importorskip("ray", reason='Ray is not installed (pip install "spacy-adf[ray]")')

from spacy_adf.distributed.sharding import (count_items, line_index, list_inputs, plan_inputs,  # noqa: E402
                                            plan_shards, read_shard)


@pytest.mark.parametrize("sizes,shard_size", [([10, 0, 7], 3), ([1], 5), ([25, 25], 5), ([4, 9, 1], 1)])
def test_plan_covers_every_line_exactly_once(sizes, shard_size):
    shards = plan_shards([(f"f{i}", n) for i, n in enumerate(sizes)], shard_size)
    seen = [(s.source, line) for s in shards for line in range(s.start, s.stop)]
    assert sorted(seen) == sorted((f"f{i}", line) for i, n in enumerate(sizes) for line in range(n))
    assert len(seen) == len(set(seen))
    assert [s.index for s in shards] == list(range(len(shards)))
    assert all(0 < s.stop - s.start <= shard_size for s in shards)
    names = [s.name() for s in shards]
    assert names == sorted(names)


def test_count_and_read_with_bad_lines(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"one\ntwo\n\xff\xfe bad\n\nfour")
    (tmp_path / "b.jsonl").write_text(
        json.dumps({"text": "x1"}) + "\n{not json\n" + json.dumps({"body": "no text"}) + "\n"
        + json.dumps({"text": "x4"}) + "\n", encoding="utf8")
    files = list_inputs(str(tmp_path))
    assert [f.name for f in files] == ["a.txt", "b.jsonl"]
    assert [count_items(f) for f in files] == [5, 4]
    sizes, shards = plan_inputs(files, 2)
    assert [n for _, n in sizes] == [5, 4]
    out = [read_shard(s) for s in shards]
    texts = [t for items, _ in out for t, _ in items]
    assert [n for items, _ in out for _, n in items] == [1, 2, 5, 1, 4]  # input line numbers, blank line 4 skipped
    assert texts == ["one", "two", "four", "x1", "x4"]
    bad = [str(b) for _, lines in out for b in lines]
    assert len(bad) == 3
    assert bad[0].startswith(f"{tmp_path / 'a.txt'}:3: not UTF-8")
    assert bad[1].startswith(f"{tmp_path / 'b.jsonl'}:2: bad JSON")
    assert bad[2] == f"{tmp_path / 'b.jsonl'}:3: no string field 'text'"


def test_no_inputs(tmp_path):
    with pytest.raises(FileNotFoundError, match="no input files"):
        list_inputs(str(tmp_path / "*.txt"))


@pytest.mark.parametrize("text", [b"", b"a\n", b"a", b"a\nbb\n\nccc\nd", b"a\nbb\n\nccc\nd\n", b"\n\n\n\n"])
@pytest.mark.parametrize("every", [1, 2, 3, 10])
def test_byte_ranges_read_exactly_the_planned_lines(tmp_path, text, every):
    path = tmp_path / "in.txt"
    path.write_bytes(text)
    lines = text.decode().splitlines()
    n, offsets = line_index(path, every)
    assert n == len(lines)
    assert offsets[:-(-n // every) or 1] == [len("".join(x + "\n" for x in lines[:k])) for k in range(0, max(n, 1), every)]
    _, shards = plan_inputs([path], every)
    got = [t for s in shards for t, _ in read_shard(s)[0]]
    assert got == [x for x in lines if x.strip()]


@pytest.mark.parametrize("every", [1, 2])
def test_a_bom_is_not_part_of_the_first_document(tmp_path, every):
    (tmp_path / "a.txt").write_bytes("\ufeff第一\n第二\n".encode("utf8"))
    (tmp_path / "b.jsonl").write_bytes(("\ufeff" + json.dumps({"text": "x1"}) + "\n"
                                        + json.dumps({"text": "x2"}) + "\n").encode("utf8"))
    files = list_inputs(str(tmp_path))
    _, shards = plan_inputs(files, every)
    out = [read_shard(s) for s in shards]
    assert [item for items, _ in out for item in items] == [("第一", 1), ("第二", 2), ("x1", 1), ("x2", 2)]
    assert [b for _, lines in out for b in lines] == []
