"""Shard planning and input reading for distributed annotation (no Ray here):
a shard is a range of the lines (a DocBin's Docs) of one input file, with its
byte range so a worker reads it with one seek (docs/distributed.md)."""
import codecs
import glob
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

FORMATS = {".spacy": "docbin", ".jsonl": "jsonl", ".json": "jsonl"}


@dataclass(frozen=True)
class Shard:
    index: int
    source: str  # input file
    start: int  # first line (Doc) of the source in the shard, 0-based
    stop: int  # one past the last
    offset: int = 0  # byte offset of line `start` (text and JSONL sources)
    end: int = -1  # byte offset one past line `stop` - 1 (-1: to the end of the source)

    def name(self, suffix: str = ".spacy") -> str:
        return f"shard-{self.index:06d}{suffix}"


@dataclass(frozen=True)
class BadLine:
    source: str
    line: int  # 1-based, as an editor shows it
    reason: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.reason}"


def input_format(path) -> str:
    return FORMATS.get(Path(path).suffix.lower(), "text")


def list_inputs(spec: str) -> List[Path]:
    """The input files of a file, a folder (its files, recursively) or a glob,
    sorted; a FileNotFoundError if there are none."""
    path = Path(spec)
    if path.is_file():
        return [path]
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and not p.name.startswith("."))
    else:
        files = sorted(Path(p) for p in glob.glob(spec, recursive=True) if Path(p).is_file())
    if not files:
        raise FileNotFoundError(f"no input files at {spec}")
    return files


def count_items(path: Path) -> int:
    """Lines of a text or JSONL file (a last line without a newline counts),
    Docs of a DocBin."""
    if input_format(path) == "docbin":
        from spacy.tokens import DocBin

        return len(DocBin().from_disk(path))
    return line_index(path, 1 << 62)[0]


def line_index(path: Path, every: int) -> Tuple[int, List[int]]:
    """(lines of a text or JSONL file, byte offsets of lines 0, every,
    2 every, ...): one pass in 4 MiB blocks, newlines found by numpy."""
    import numpy

    n, pos, last, offsets = 0, 0, b"\n", [0]
    mark = every
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 22), b""):
            newlines = numpy.flatnonzero(numpy.frombuffer(block, dtype=numpy.uint8) == 10)
            while mark <= n + len(newlines):
                offsets.append(pos + int(newlines[mark - n - 1]) + 1)
                mark += every
            n += len(newlines)
            pos += len(block)
            last = block[-1:]
    return n + (last != b"\n"), offsets


def plan_shards(sizes: Sequence[Tuple[str, int]], shard_size: int,
                offsets: Optional[Dict[str, List[int]]] = None) -> List[Shard]:
    """Shards of at most shard_size items over (source, n_items) pairs, in
    order; a shard never spans two sources. `offsets[source]` (line_index)
    gives each shard of a text source its byte range."""
    if shard_size < 1:
        raise ValueError(f"shard_size must be positive, got {shard_size}")
    shards: List[Shard] = []
    for source, n in sizes:
        marks = (offsets or {}).get(str(source))
        for k, start in enumerate(range(0, n, shard_size)):
            byte_range = {}
            if marks is not None:
                byte_range = {"offset": marks[k], "end": marks[k + 1] if k + 1 < len(marks) else -1}
            shards.append(Shard(len(shards), str(source), start, min(start + shard_size, n), **byte_range))
    return shards


def plan_inputs(paths: Sequence[Path], shard_size: int) -> Tuple[List[Tuple[str, int]], List[Shard]]:
    """(source, n_items) of every input and the shard plan over them; each
    input is read once (text and JSONL: their shards' byte ranges too)."""
    sizes, offsets = [], {}
    for path in paths:
        if input_format(path) == "docbin":
            sizes.append((str(path), count_items(path)))
        else:
            n, offsets[str(path)] = line_index(path, shard_size)
            sizes.append((str(path), n))
    return sizes, plan_shards(sizes, shard_size, offsets)


def _text_line(raw: bytes, fmt: str, text_field: str) -> str:
    """The document text of one line; ValueError with the reason if none."""
    try:
        line = raw.decode("utf8")
    except UnicodeDecodeError as e:
        raise ValueError(f"not UTF-8 ({e.reason} at byte {e.start})") from None
    line = line.rstrip("\r\n")
    if fmt == "text":
        return line
    if not line.strip():
        return ""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise ValueError(f"bad JSON ({e.msg})") from None
    text = obj.get(text_field) if isinstance(obj, dict) else None
    if not isinstance(text, str):
        raise ValueError(f"no string field {text_field!r}")
    return text


def shard_bytes(shard: Shard) -> bytes:
    """The bytes a worker needs for `shard`, read on the driver: the shard's
    byte range of a text or JSONL source (one seek and one read), or the
    whole DocBin file (put into Ray's object store once per file)."""
    with open(shard.source, "rb") as f:
        if input_format(shard.source) == "docbin":
            return f.read()
        f.seek(shard.offset)
        return f.read(shard.end - shard.offset) if shard.end >= 0 else f.read()


def read_shard(shard: Shard, text_field: str = "text", vocab=None,
               data: Optional[bytes] = None) -> Tuple[List[Tuple[object, int]], List[BadLine]]:
    """(items, bad lines) of one shard: each item with its 1-based line in
    the source (a DocBin's Doc number), as (text or Doc, line). `data` is
    shard_bytes(shard), read here if not given. Blank lines are no items,
    and the items keep their input line numbers all the same."""
    if data is None:
        data = shard_bytes(shard)
    fmt = input_format(shard.source)
    if fmt == "docbin":
        from spacy.tokens import DocBin
        from spacy.vocab import Vocab

        docs = DocBin(store_user_data=True).from_bytes(data).get_docs(vocab or Vocab())
        picked = itertools.islice(docs, shard.start, shard.stop)
        return [(doc, line) for line, doc in enumerate(picked, start=shard.start + 1)], []
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    if len(lines) != shard.stop - shard.start:
        raise ValueError(f"{shard.source} changed since the shard plan was made: lines {shard.start + 1}-"
                         f"{shard.stop} are now {len(lines)} lines")
    if shard.start == 0 and lines and lines[0].startswith(codecs.BOM_UTF8):
        lines[0] = lines[0][len(codecs.BOM_UTF8):]  # an editor's byte-order mark, not text (nor JSON)
    items, bad = [], []
    for line, raw in enumerate(lines, start=shard.start + 1):
        try:
            text = _text_line(raw, fmt, text_field)
        except ValueError as e:
            bad.append(BadLine(shard.source, line, str(e)))
        else:
            if text.strip():
                items.append((text, line))
    return items, bad
