"""msgpack framing shared by the kernel classifiers (same scheme as the CRF
format): a format name, a version, raw little-endian arrays with dtype and
shape, and a CRC32 over them, so corrupt data fails loudly with ValueError."""
import zlib
from typing import Any, Dict, Tuple

import numpy
import srsly


def pack(fmt: str, version: int, arrays: Dict[str, numpy.ndarray], meta: Dict[str, Any]) -> bytes:
    packed = {}
    crc = 0
    for name in sorted(arrays):
        arr = numpy.ascontiguousarray(arrays[name])
        raw = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
        crc = zlib.crc32(raw, crc)
        packed[name] = {"dtype": arr.dtype.str.lstrip("<>|="), "shape": list(arr.shape), "data": raw}
    return srsly.msgpack_dumps(
        {"format": fmt, "version": version, "meta": meta, "arrays": packed, "crc32": crc}
    )


def peek_format(data: bytes) -> Tuple[str, dict]:
    """The format name of serialized kernel data (ValueError if unreadable)."""
    try:
        msg = srsly.msgpack_loads(data)
    except Exception as e:  # msgpack raises several types on garbage input
        raise ValueError(f"the kernel classifier data is corrupt or not msgpack ({e})") from None
    if not isinstance(msg, dict) or not isinstance(msg.get("format"), str):
        raise ValueError("the data is not a spacy-adf kernel classifier (no format marker)")
    return msg["format"], msg


def unpack(data, fmt: str, version: int, dtypes: Dict[str, str]):
    """(arrays, meta) after checking format, version, dtypes and checksum."""
    found, msg = peek_format(data) if isinstance(data, (bytes, bytearray, memoryview)) else (None, None)
    if msg is None:
        raise ValueError("kernel classifier data must be bytes")
    if found != fmt:
        raise ValueError(f"the data is a {found!r} model, expected {fmt!r}")
    if msg.get("version") != version:
        raise ValueError(
            f"{fmt} format version {msg.get('version')!r} is not supported (expects {version}); "
            "rebuild the classifier with this spacy-adf version"
        )
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
            arrays[name] = numpy.frombuffer(raw, dtype=dt).astype(dt.newbyteorder("="))
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
