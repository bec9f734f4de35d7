"""Versioned msgpack payloads: the model files without arrays, each a `framed`
message whose metadata holds the content (docs/architecture.md, "Files")."""
from typing import Any, Sequence, Tuple

import srsly

from . import framed

CONTENT_KEY = "content"


def dump_payload(fmt: str, version: int, content: Any) -> bytes:
    """`content` (msgpack-serializable) as a framed message of `fmt` / `version`."""
    return framed.pack(fmt, version, {}, {CONTENT_KEY: content})


def load_payload(data, fmt: str, versions: Sequence[int]) -> Tuple[int, Any]:
    """(version, content) of a payload written by `dump_payload` at one of
    `versions`. ValueError for anything else."""
    try:
        msg = srsly.msgpack_loads(bytes(data))
    except Exception as e:  # msgpack raises several types on garbage input
        raise ValueError(f"the {fmt} data is corrupt or not msgpack ({type(e).__name__}: {e})") from None
    if isinstance(msg, dict) and "format" in msg:
        version = framed.check_format(msg, fmt, versions)
        _, meta = framed.unpack_message(msg, fmt, {})
        if CONTENT_KEY not in meta:
            raise ValueError(f"the {fmt} data is incomplete (no content)")
        return version, meta[CONTENT_KEY]
    raise ValueError(f"the data is not a {fmt} file (no format marker)")
