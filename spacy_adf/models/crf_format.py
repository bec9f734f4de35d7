"""Binary format of a trained CRF (feature table + layout + weights).

msgpack via srsly; arrays as raw little-endian bytes with dtype and shape, and
a CRC32 over them, so a truncated or corrupted file is reported as such
instead of loading garbage weights.
"""
import zlib
from typing import Dict, Tuple

import numpy
import srsly

from ..core.crf import CRFModel
from ..features.extract import FeatureTable

FORMAT = "spacy_adf.crf"
VERSION = 1
_ARRAYS = {
    "keys": numpy.uint64,
    "block_ptr": numpy.int64,
    "codes": numpy.uint16,
    "weights": numpy.float32,
}


def crf_to_bytes(table: FeatureTable, crf: CRFModel) -> bytes:
    arrays = {
        "keys": table.keys,
        "block_ptr": crf.block_ptr,
        "codes": crf.codes,
        "weights": crf.weights,
    }
    packed = {}
    crc = 0
    for name, dtype in _ARRAYS.items():
        data = numpy.ascontiguousarray(arrays[name], dtype=numpy.dtype(dtype).newbyteorder("<")).tobytes()
        crc = zlib.crc32(data, crc)
        packed[name] = {"shape": list(arrays[name].shape), "data": data}
    msg = {"format": FORMAT, "version": VERSION, "n_labels": crf.n_labels,
           "arrays": packed, "crc32": crc}
    return srsly.msgpack_dumps(msg)


def crf_from_bytes(data: bytes, *, expected_labels: int = -1) -> Tuple[FeatureTable, CRFModel]:
    try:
        msg = srsly.msgpack_loads(data)
    except Exception as e:  # msgpack raises several types on garbage input
        raise ValueError(f"the CRF model data is corrupt or not a spacy-adf model ({e})") from None
    if not isinstance(msg, dict) or msg.get("format") != FORMAT:
        raise ValueError("the data is not a spacy-adf CRF model (wrong format marker)")
    if msg.get("version") != VERSION:
        raise ValueError(
            f"CRF model format version {msg.get('version')} is not supported by this "
            f"spacy-adf (expects {VERSION}); retrain or install the matching version"
        )
    arrays: Dict[str, numpy.ndarray] = {}
    crc = 0
    try:
        for name, dtype in _ARRAYS.items():
            entry = msg["arrays"][name]
            raw = entry["data"]
            crc = zlib.crc32(raw, crc)
            dt = numpy.dtype(dtype).newbyteorder("<")
            arr = numpy.frombuffer(raw, dtype=dt).astype(dtype)
            arrays[name] = arr.reshape(entry["shape"])
        n_labels = int(msg["n_labels"])
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"the CRF model data is incomplete or corrupt ({e!r})") from None
    if crc != msg.get("crc32"):
        raise ValueError("the CRF model data is corrupt (checksum mismatch)")
    if expected_labels >= 0 and n_labels != expected_labels:
        raise ValueError(
            f"the CRF model has {n_labels} labels but the component config lists "
            f"{expected_labels}: model file and cfg do not belong together"
        )
    try:
        crf = CRFModel(n_labels, arrays["block_ptr"], arrays["codes"], arrays["weights"])
    except ValueError as e:
        raise ValueError(f"the CRF model data is inconsistent: {e}") from None
    if len(arrays["keys"]) != crf.n_attrs:
        raise ValueError("the CRF model's feature table and weights do not match")
    return FeatureTable(arrays["keys"]), crf
