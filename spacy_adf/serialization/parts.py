"""Serialization shared by spacy-adf's components: a component lists its files
as ``_parts()`` (name -> (dump, load), loaded in order) and gets spaCy's
to/from bytes/disk with every file checked (cfg checksum, part frames;
docs/architecture.md, "Files"). Every load error is a `PartLoadError`."""
import json
import re
import zlib
from pathlib import Path
from typing import Callable, Dict, Iterable, Optional, Tuple, Union

import srsly
from spacy import util

from . import framed

Parts = Dict[str, Tuple[Callable[[], bytes], Callable[[bytes], None]]]

CFG_PART = "cfg"  # the one JSON part: not framed, checksummed in-band
CHECKSUM_KEY = "checksum"
_CHECKSUM_VALUE = re.compile(r"crc32:[0-9a-f]{8}\Z")
ADVICE = ("The file is damaged or was not written for this component by this spacy-adf version: "
          "retrain the component or re-download the pipeline.")


class PartLoadError(ValueError):
    """A component file could not be loaded (the message names it)."""


def describe(e: Exception, limit: int = 300) -> str:
    """A short reason for a load error: the message of a plain ValueError,
    else the exception's type and message (msgpack's ExtraData, JSON and
    UTF-8 errors, ...), cut at `limit` characters."""
    text = str(e) if type(e) in (ValueError, PartLoadError) else f"{type(e).__name__}: {e}"
    return text if len(text) <= limit else text[:limit] + "..."


def cfg_checksum(cfg: dict) -> str:
    """"crc32:<8 hex digits>" of the canonical JSON of `cfg`."""
    canonical = json.dumps(cfg, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return f"crc32:{zlib.crc32(canonical.encode('utf8')):08x}"


def add_cfg_checksum(data: bytes) -> bytes:
    """The JSON object `data` (a component's cfg), indented, with its checksum
    as the last key."""
    cfg = json.loads(data)
    if not isinstance(cfg, dict):
        raise TypeError("a cfg part must be a JSON object")
    cfg.pop(CHECKSUM_KEY, None)
    cfg[CHECKSUM_KEY] = cfg_checksum(cfg)
    return json.dumps(cfg, indent=2, ensure_ascii=False).encode("utf8")


def check_cfg(data) -> bytes:
    """The cfg JSON without its checksum, after checking that it is a UTF-8
    JSON object whose checksum, if present, matches. ValueError otherwise."""
    try:
        text = bytes(data).decode("utf8")
    except UnicodeDecodeError as e:
        raise ValueError(f"the file is not UTF-8 text ({e.reason} at byte {e.start})") from None
    try:
        cfg = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"the file is not valid JSON ({e})") from None
    if not isinstance(cfg, dict):
        raise ValueError("the file is not a JSON object")
    if CHECKSUM_KEY not in cfg:
        # edited by hand: read unchecked, unless the checksum is there under
        # a damaged key
        garbled = [k for k, v in cfg.items() if isinstance(v, str) and _CHECKSUM_VALUE.match(v)]
        if garbled:
            raise ValueError(f"the checksum is stored under the key {garbled[0]!r}")
        return bytes(data)
    saved = cfg.pop(CHECKSUM_KEY)
    if saved != cfg_checksum(cfg):
        raise ValueError(f"checksum mismatch (a cfg edited by hand must drop its {CHECKSUM_KEY!r} key)")
    return json.dumps(cfg, ensure_ascii=False).encode("utf8")


class SerializedParts:
    name: str
    optional_parts: Tuple[str, ...] = ()  # loaded as b"" where missing (see the module docstring)

    def _parts(self) -> Parts:  # pragma: no cover - abstract
        raise NotImplementedError

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        def checked(name, dump):
            if name == CFG_PART:
                return lambda: add_cfg_checksum(dump())
            return lambda: framed.wrap(name, dump())

        return util.to_bytes({k: checked(k, dump) for k, (dump, _) in self._parts().items()}, exclude)

    def to_disk(self, path: Union[str, Path], *, exclude=tuple()) -> None:
        def writer(name, dump):
            if name == CFG_PART:
                return lambda p: Path(p).write_bytes(add_cfg_checksum(dump()))
            return lambda p: framed.write_wrapped(p, name, dump())

        serialize = {k: writer(k, dump) for k, (dump, _) in self._parts().items()}
        util.to_disk(path, serialize, exclude)

    def _wanted(self, exclude) -> Parts:
        return {k: v for k, v in self._parts().items() if k.split(".")[0] not in exclude}

    def _load_error(self, where: str, e: Exception) -> PartLoadError:
        reason = describe(e)
        prefix = f"[{self.name}] "
        if reason.startswith(prefix):
            reason = reason[len(prefix):]
        return PartLoadError(f"[{self.name}] cannot load {where}: {reason}. {ADVICE}")

    def _load_parts(self, parts: Parts, items: Iterable[Tuple[str, Callable[[], Optional[bytes]], str]]) -> None:
        """Check and load each (name, read the data, where) in order (read()
        gives None for a missing optional part)."""
        for name, read, where in items:
            try:
                data = read()
                if data is None:
                    parts[name][1](b"")
                else:
                    parts[name][1](check_cfg(data) if name == CFG_PART else framed.unwrap(name, data))
            except Exception as e:
                raise self._load_error(where, e) from None

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()):
        parts = self._wanted(exclude)
        try:
            msg = srsly.msgpack_loads(bytes_data)
        except Exception as e:  # msgpack raises several types on garbage input
            raise self._load_error("the serialized data", ValueError(f"unreadable ({describe(e)})")) from None
        if not isinstance(msg, dict):
            raise self._load_error("the serialized data", ValueError("not a map of parts"))
        for name in parts:
            if not isinstance(msg.get(name), bytes) and (name in msg or name not in self.optional_parts):
                raise self._load_error(f"the part {name!r}", ValueError("missing from the serialized data"))
        self._load_parts(parts, ((k, lambda k=k: msg.get(k), f"the part {k!r}") for k in parts))
        return self

    def from_disk(self, path: Union[str, Path], *, exclude=tuple()):
        path = Path(path)
        parts = self._wanted(exclude)
        for name in parts:
            if not (path / name).exists() and name not in self.optional_parts:
                raise PartLoadError(f"[{self.name}] missing file {path / name}: incomplete model "
                                    "directory; re-download or re-save the pipeline")
        self._load_parts(parts, ((k, (path / k).read_bytes if (path / k).exists() else lambda: None, str(path / k))
                                 for k in parts))
        return self


def versioned_cfg_bytes(cfg: dict, version: int) -> bytes:
    """A component's cfg as JSON with its ``"format_version"`` first (the
    checksum is added when the parts are written)."""
    return json.dumps({"format_version": version, **cfg}, ensure_ascii=False).encode("utf8")


def read_versioned_cfg(data: bytes, version: int, name: str) -> dict:
    """The cfg written by `versioned_cfg_bytes`, without its version; a
    ValueError naming component `name` if it was written for another one."""
    cfg = json.loads(data)
    if cfg.pop("format_version", None) != version:
        raise ValueError(f"[{name}] model format version does not match this spacy-adf "
                         f"(expects {version}); retrain or install the matching version")
    return cfg
