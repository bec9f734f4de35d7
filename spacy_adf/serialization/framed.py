"""The one binary format for spacy-adf's numeric model files (msgpack with a
format name, version, metadata, little-endian arrays and a CRC32), and the
checksummed part frame (`wrap`, `unwrap`) around every file of a component
(docs/architecture.md, "Files"). A damaged or foreign file is a ValueError."""
import zlib
from typing import Any, Dict, Sequence

import numpy
import srsly
from srsly import msgpack


def pack(fmt: str, version: int, arrays: Dict[str, numpy.ndarray], meta: Dict[str, Any]) -> bytes:
    return b"".join(pack_chunks(fmt, version, arrays, meta))


class Chunks(list):
    """Buffers whose concatenation is one file's bytes (a part dumper may
    return these instead of bytes: `write_wrapped` writes them one by one)."""

    def join(self) -> bytes:
        return b"".join(self)


def pack_chunks(fmt: str, version: int, arrays: Dict[str, numpy.ndarray], meta: Dict[str, Any]) -> Chunks:
    """`pack`'s bytes (those srsly.msgpack_dumps gives for the same message)
    as Chunks: the msgpack map around views of the little-endian arrays."""
    views = {}
    crc = 0
    for name in sorted(arrays):
        arr = numpy.ascontiguousarray(arrays[name])
        arr = arr.astype(arr.dtype.newbyteorder("<"), copy=False)
        raw = memoryview(arr.reshape(-1)).cast("B") if arr.size else memoryview(b"")
        crc = zlib.crc32(raw, crc)
        views[name] = (arr, raw)
    dumps = srsly.msgpack_dumps
    map_header = msgpack.Packer().pack_map_header
    out = Chunks([map_header(5), dumps("format"), dumps(fmt), dumps("version"), dumps(version),
                  dumps("meta"), dumps(meta), dumps("arrays"), map_header(len(views))])
    for name, (arr, raw) in views.items():
        out += [dumps(name), map_header(3), dumps("dtype"), dumps(arr.dtype.str.lstrip("<>|=")),
                dumps("shape"), dumps(list(arr.shape)), dumps("data"), _bin_header(raw.nbytes), raw]
    out += [dumps("crc32"), dumps(crc)]
    return out


def _bin_header(n: int) -> bytes:
    if n < 2 ** 8:
        return b"\xc4" + n.to_bytes(1, "big")
    return (b"\xc5" + n.to_bytes(2, "big")) if n < 2 ** 16 else (b"\xc6" + n.to_bytes(4, "big"))


class _Reader:
    """A file-like view of a buffer, so msgpack's Unpacker makes no copy of it."""

    def __init__(self, view: memoryview, pos: int):
        self.view, self.pos = view, pos

    def read(self, n: int = -1) -> bytes:
        end = len(self.view) if n < 0 else min(self.pos + n, len(self.view))
        out = bytes(self.view[self.pos:end])
        self.pos = end
        return out


_BIN_HEADER = {0xC4: 1, 0xC5: 2, 0xC6: 4}  # msgpack bin 8/16/32: bytes of the length after the marker


def decode_arrays(data, what: str = "spacy-adf model") -> dict:
    """The message of `pack`'s bytes, each array's "data" a zero-copy
    memoryview of `data` (a model's file is held once); ValueError if
    unreadable."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"{what} data must be bytes")
    view = memoryview(data).cast("B")
    pos = 0

    def unpacker():
        return msgpack.Unpacker(_Reader(view, pos), raw=False, read_size=4096, max_buffer_size=2 ** 31 - 1)

    try:
        u = unpacker()
        msg: dict = {}
        for _ in range(u.read_map_header()):
            key = u.unpack()
            if key != "arrays":
                msg[key] = u.unpack()
                continue
            arrays = msg["arrays"] = {}
            for _ in range(u.read_map_header()):
                name = u.unpack()
                entry = arrays[name] = {}
                for _ in range(u.read_map_header()):
                    field = u.unpack()
                    if field != "data":
                        entry[field] = u.unpack()
                        continue
                    pos += u.tell()
                    size_bytes = _BIN_HEADER[view[pos]]
                    start = pos + 1 + size_bytes
                    end = start + int.from_bytes(view[pos + 1:start], "big")
                    if end > len(view):
                        raise ValueError("an array runs past the end of the data")
                    entry["data"] = view[start:end]
                    pos = end  # a new Unpacker goes on after the array's bytes
                    u = unpacker()
        if pos + u.tell() != len(view):
            raise ValueError("extra bytes after the message")
    except Exception as e:  # msgpack raises several types on garbage input
        raise ValueError(f"the {what} data is corrupt or not msgpack ({e})") from None
    if not isinstance(msg.get("format"), str):
        raise ValueError(f"the data is not a {what} (no format marker)")
    return msg


def check_format(msg: dict, fmt: str, versions: Sequence[int]) -> int:
    """The message's version, after checking its format name."""
    if msg.get("format") != fmt:
        raise ValueError(f"the data is a {msg.get('format')!r} model, expected {fmt!r}")
    version = msg.get("version")
    if version not in versions:
        raise ValueError(
            f"{fmt} format version {version!r} is not supported (expects "
            f"{' or '.join(map(str, versions))}); retrain or rebuild the model with this spacy-adf version"
        )
    return version


def unpack(data, fmt: str, version: int, dtypes: Dict[str, str], copy: bool = True):
    """(arrays, meta) after checking format, version, dtypes and checksum;
    `copy=False` gives read-only arrays over `data` where the byte order allows."""
    msg = decode_arrays(data, fmt)
    check_format(msg, fmt, [version])
    return unpack_message(msg, fmt, dtypes, copy)


def read_model(data, fmt: str, version: int, dtypes: Dict[str, str], what: str):
    """(meta, arrays) of model data in format `fmt` at `version`; arrays()
    unpacks and checks the arrays (an uninitialized model has none)."""
    msg = decode_arrays(data, what)
    if msg.get("format") != fmt:
        raise ValueError(f"the data is not a spacy-adf {what} (wrong format marker)")
    check_format(msg, fmt, [version])
    meta = msg.get("meta")
    if not isinstance(meta, dict):
        raise ValueError(f"the {fmt} data is incomplete or corrupt (no metadata)")
    return meta, lambda: unpack_message(msg, fmt, dtypes)[0]


def unpack_message(msg: dict, fmt: str, dtypes: Dict[str, str], copy: bool = True):
    """(arrays, meta) of an already decoded, format-checked message (`unpack`'s `copy`)."""
    arrays = {}
    crc = 0
    try:
        for name in sorted(msg["arrays"]):
            entry = msg["arrays"][name]
            raw = entry["data"]
            crc = zlib.crc32(raw, crc)
            if name in dtypes and entry["dtype"] != numpy.dtype(dtypes[name]).str.lstrip("<>|="):
                raise ValueError(f"array {name!r} has dtype {entry['dtype']}")
            dt = numpy.dtype(entry["dtype"]).newbyteorder("<")
            arrays[name] = numpy.frombuffer(raw, dtype=dt).astype(dt.newbyteorder("="), copy=copy)
            arrays[name] = arrays[name].reshape(entry["shape"])
        meta = dict(msg["meta"])
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"the {fmt} data is incomplete or corrupt ({e!r})") from None
    if crc != msg.get("crc32"):
        raise ValueError(f"the {fmt} data is corrupt (checksum mismatch)")
    missing = set(dtypes) - set(arrays)
    if missing:
        raise ValueError(f"the {fmt} data lacks the arrays {sorted(missing)}")
    return arrays, meta


# A part frame: a msgpack header {"format": PART_FORMAT, "version", "part",
# "size", "crc32" of the payload}, always starting with PART_PREFIX, then the
# payload unchanged.
PART_FORMAT = "spacy_adf.part"
PART_VERSION = 1
_HEADER_KEYS = ("format", "version", "part", "size", "crc32")
_MAX_HEADER = 1024  # bytes read for the header (it holds the part name and four numbers)
PART_PREFIX = b"\x85" + srsly.msgpack_dumps("format") + srsly.msgpack_dumps(PART_FORMAT)


def part_header(part: str, size: int, crc: int) -> bytes:
    """The frame header of a payload of `size` bytes and CRC32 `crc` as the part `part`."""
    return srsly.msgpack_dumps({"format": PART_FORMAT, "version": PART_VERSION, "part": part,
                                "size": size, "crc32": crc})


def wrap(part: str, data) -> bytes:
    """`data` (bytes or Chunks) inside a checksummed frame naming it `part`."""
    if isinstance(data, Chunks):
        data = data.join()
    return part_header(part, len(data), zlib.crc32(data)) + bytes(data)


def write_wrapped(path, part: str, data) -> None:
    """`wrap(part, data)` written to `path`; Chunks are written one by one."""
    chunks = data if isinstance(data, Chunks) else [data]
    size, crc = 0, 0
    for chunk in chunks:
        size += memoryview(chunk).nbytes
        crc = zlib.crc32(chunk, crc)
    with open(path, "wb") as f:
        f.write(part_header(part, size, crc))
        for chunk in chunks:
            f.write(chunk)


def unwrap(part: str, data) -> memoryview:
    """The payload of a frame written by ``wrap(part, ...)``, as a view of
    `data`, after checking the header, part name, size and CRC32."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError("the file data must be bytes")
    if not data:
        raise ValueError("the file is empty")
    if bytes(data[:len(PART_PREFIX)]) != PART_PREFIX:
        if PART_PREFIX.startswith(bytes(data)):
            raise ValueError("the file is truncated (incomplete header)")
        raise ValueError(f"the file does not start with a {PART_FORMAT} header")
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=_MAX_HEADER)
    try:
        unpacker.feed(bytes(data[:_MAX_HEADER]))
        header = unpacker.unpack()
        offset = unpacker.tell()
    except msgpack.OutOfData:
        raise ValueError("the file header is incomplete (truncated or damaged)") from None
    except Exception as e:  # msgpack raises several types on garbage input
        raise ValueError(f"the file header is unreadable ({e!r})") from None
    if not isinstance(header, dict) or set(header) != set(_HEADER_KEYS):
        raise ValueError("the file header is damaged (unexpected fields)")
    if header["version"] != PART_VERSION:
        raise ValueError(f"{PART_FORMAT} version {header['version']!r} is not supported "
                         f"(expects {PART_VERSION})")
    if header["part"] != part:
        raise ValueError(f"the file holds the part {header['part']!r}, expected {part!r}")
    size, crc = header["size"], header["crc32"]
    if not isinstance(size, int) or not isinstance(crc, int):
        raise ValueError("the file header is damaged (size or checksum is not a number)")
    payload = memoryview(data)[offset:]
    if len(payload) != size:
        raise ValueError(f"the file is truncated or extended ({len(payload)} data bytes, "
                         f"the header says {size})")
    if zlib.crc32(payload) != crc:
        raise ValueError("checksum mismatch")
    return payload
