import json

import pytest

pytest.importorskip("ray", reason='Ray is not installed (pip install "spacy-adf[ray]")')

from spacy_adf.distributed.sharding import count_items, list_inputs, plan_shards, read_shards  # noqa: E402


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
    sizes = [(str(f), count_items(f)) for f in files]
    assert [n for _, n in sizes] == [5, 4]
    out = list(read_shards(plan_shards(sizes, 2)))
    texts = [t for _, items, _ in out for t in items]
    assert texts == ["one", "two", "four", "x1", "x4"]
    bad = [str(b) for _, _, lines in out for b in lines]
    assert len(bad) == 3
    assert bad[0].startswith(f"{tmp_path / 'a.txt'}:3: not UTF-8")
    assert bad[1].startswith(f"{tmp_path / 'b.jsonl'}:2: bad JSON")
    assert bad[2] == f"{tmp_path / 'b.jsonl'}:3: no string field 'text'"


def test_no_inputs(tmp_path):
    with pytest.raises(FileNotFoundError, match="no input files"):
        list_inputs(str(tmp_path / "*.txt"))
