"""The one binary format for spacy-adf's numeric model files: msgpack (via
srsly) holding a format name, a version, free-form metadata and named
little-endian arrays with dtype and shape, plus a CRC32 over the arrays, so
a truncated, corrupted or foreign file fails loudly with a ValueError.

Models that were written before this framing was shared (the CRF and MaxEnt
files of spacy-adf 0.1, version 1 of their formats) are read by
`unpack_v1`, so pipelines saved then still load.
"""
import zlib
from typing import Any, Dict, Sequence, Tuple

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


def peek_format(data: bytes, what: str = "spacy-adf model") -> Tuple[str, dict]:
    """(format name, whole message) of framed data (ValueError if unreadable)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ValueError(f"{what} data must be bytes")
    try:
        msg = srsly.msgpack_loads(data)
    except Exception as e:  # msgpack raises several types on garbage input
        raise ValueError(f"the {what} data is corrupt or not msgpack ({e})") from None
    if not isinstance(msg, dict) or not isinstance(msg.get("format"), str):
        raise ValueError(f"the data is not a {what} (no format marker)")
    return msg["format"], msg


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


def unpack(data, fmt: str, version: int, dtypes: Dict[str, str]):
    """(arrays, meta) after checking format, version, dtypes and checksum."""
    _, msg = peek_format(data, fmt)
    check_format(msg, fmt, [version])
    return unpack_message(msg, fmt, dtypes)


def unpack_message(msg: dict, fmt: str, dtypes: Dict[str, str]):
    """(arrays, meta) of an already decoded, format-checked message."""
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


def unpack_v1(msg: dict, fmt: str, dtypes: Dict[str, str]) -> Dict[str, numpy.ndarray]:
    """Arrays of a version-1 CRF or MaxEnt message (spacy-adf 0.1): arrays
    stored as {"shape", "data"} or as bare bytes (then 1-d), dtypes implied
    by the format, the CRC taken in the order of `dtypes`."""
    arrays = {}
    crc = 0
    try:
        for name, dtype in dtypes.items():
            entry = msg["arrays"][name]
            raw, shape = (entry["data"], entry["shape"]) if isinstance(entry, dict) else (entry, [-1])
            crc = zlib.crc32(raw, crc)
            dt = numpy.dtype(dtype).newbyteorder("<")
            arrays[name] = numpy.frombuffer(raw, dtype=dt).astype(dtype).reshape(shape)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"the {fmt} data is incomplete or corrupt ({e!r})") from None
    if crc != msg.get("crc32"):
        raise ValueError(f"the {fmt} data is corrupt (checksum mismatch)")
    return arrays
