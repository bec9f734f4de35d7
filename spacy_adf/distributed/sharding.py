"""Shard planning and input reading for distributed annotation (no Ray here).

An input is a text file (one document a line), a JSONL file (one object a
line with a text field) or a DocBin file (`.spacy`); a folder or a glob names
several, taken in sorted order. A shard is a range [start, stop) of the
lines (Docs for a DocBin) of one input file; shards are numbered in input
order, so their output names (`shard-000000.spacy`, ...) sort in input order,
and the plan covers every line of every input exactly once. Blank lines are
not documents; a line that cannot be read (bad UTF-8, bad JSON, no text) is
reported with its file and line number and left out, the rest goes on.
"""
import glob
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterator, List, Sequence, Tuple

FORMATS = {".spacy": "docbin", ".jsonl": "jsonl", ".json": "jsonl"}


@dataclass(frozen=True)
class Shard:
    index: int
    source: str  # input file
    start: int  # first line (Doc) of the source in the shard, 0-based
    stop: int  # one past the last

    def name(self, suffix: str = ".spacy") -> str:
        return f"shard-{self.index:06d}{suffix}"

    def to_dict(self) -> dict:
        return asdict(self)


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
    n, last = 0, b"\n"
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            n += block.count(b"\n")
            last = block[-1:]
    return n + (last != b"\n")


def plan_shards(sizes: Sequence[Tuple[str, int]], shard_size: int) -> List[Shard]:
    """Shards of at most shard_size items over (source, n_items) pairs, in
    order; a shard never spans two sources."""
    if shard_size < 1:
        raise ValueError(f"shard_size must be positive, got {shard_size}")
    shards: List[Shard] = []
    for source, n in sizes:
        for start in range(0, n, shard_size):
            shards.append(Shard(len(shards), str(source), start, min(start + shard_size, n)))
    return shards


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


def read_shards(shards: Sequence[Shard], text_field: str = "text") -> Iterator[Tuple[Shard, list, List[BadLine]]]:
    """(shard, payload, bad lines) in plan order, each source read once from
    start to end. The payload is a list of texts, or for a DocBin input the
    bytes of a DocBin of the shard's Docs."""
    by_source: dict = {}
    for shard in shards:
        by_source.setdefault(shard.source, []).append(shard)
    for source, group in by_source.items():
        fmt = input_format(source)
        if fmt == "docbin":
            yield from _docbin_shards(source, group)
            continue
        with open(source, "rb") as f:
            lines = enumerate(f)
            for shard in group:
                items, bad = [], []
                for i, raw in lines:
                    if i >= shard.start:
                        try:
                            text = _text_line(raw, fmt, text_field)
                        except ValueError as e:
                            bad.append(BadLine(source, i + 1, str(e)))
                        else:
                            if text.strip():
                                items.append(text)
                    if i + 1 >= shard.stop:
                        break
                yield shard, items, bad


def _docbin_shards(source: str, group: Sequence[Shard]):
    from spacy.tokens import DocBin
    from spacy.vocab import Vocab

    if len(group) == 1 and group[0].start == 0:
        # the whole file is one shard: pass its bytes on undecoded
        yield group[0], Path(source).read_bytes(), []
        return
    docs = list(DocBin(store_user_data=True).from_disk(source).get_docs(Vocab()))
    for shard in group:
        yield shard, DocBin(docs=docs[shard.start:shard.stop], store_user_data=True).to_bytes(), []
