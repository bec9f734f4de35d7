"""Serialization shared by spacy-adf's components: a component lists its
files as ``_parts()`` (name -> (dump to bytes, load from bytes), loaded in
order) and gets spaCy's to/from bytes/disk with clear errors for missing,
truncated or foreign files."""
from pathlib import Path
from typing import Callable, Dict, Tuple, Union

from spacy import util

Parts = Dict[str, Tuple[Callable[[], bytes], Callable[[bytes], None]]]


class SerializedParts:
    name: str

    def _parts(self) -> Parts:  # pragma: no cover - abstract
        raise NotImplementedError

    def to_bytes(self, *, exclude=tuple()) -> bytes:
        return util.to_bytes({k: dump for k, (dump, _) in self._parts().items()}, exclude)

    def from_bytes(self, bytes_data: bytes, *, exclude=tuple()):
        try:
            util.from_bytes(bytes_data, {k: load for k, (_, load) in self._parts().items()}, exclude)
        except ValueError:
            raise
        except Exception as e:
            raise ValueError(f"[{self.name}] could not read the component data: {e!r}") from None
        return self

    def to_disk(self, path: Union[str, Path], *, exclude=tuple()) -> None:
        serialize = {
            k: (lambda p, dump=dump: Path(p).write_bytes(dump()))
            for k, (dump, _) in self._parts().items()
        }
        util.to_disk(path, serialize, exclude)

    def from_disk(self, path: Union[str, Path], *, exclude=tuple()):
        path = Path(path)
        parts = self._parts()
        for name in parts:
            if name not in exclude and not (path / name).exists():
                raise ValueError(f"[{self.name}] missing file {path / name}: incomplete model directory")
        deserialize = {
            k: (lambda p, load=load: load(Path(p).read_bytes()))
            for k, (_, load) in parts.items()
        }
        try:
            util.from_disk(path, deserialize, exclude)
        except ValueError:
            raise
        except Exception as e:
            raise ValueError(f"[{self.name}] could not read {path}: {e!r}") from None
        return self
