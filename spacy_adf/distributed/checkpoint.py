"""Atomic folders (`replace_dir`) and the IPM checkpoint, OUTPUT/ipm-state: the
mixed state after the last completed epoch and the run's record (no Ray
here; docs/distributed.md)."""
import json
import os
import shutil
from pathlib import Path
from typing import Callable, Dict, Optional, Tuple

import numpy

STATE_DIR = "ipm-state"
FORMAT = 1


def replace_dir(write: Callable[[Path], None], final: Path) -> None:
    """Write a folder with write(tmp), then swap it in for `final`."""
    tmp = final.with_name(f".{final.name}.tmp")
    old = final.with_name(f".{final.name}.old")
    shutil.rmtree(tmp, ignore_errors=True)
    write(tmp)
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        os.replace(final, old)
    os.replace(tmp, final)
    shutil.rmtree(old, ignore_errors=True)


def save_checkpoint(output: Path, mixed: Dict[str, dict], record: dict) -> None:
    def write(folder: Path) -> None:
        folder.mkdir(parents=True)
        arrays = {f"{name}/{key}": value for name, state in mixed.items() for key, value in state.items()
                  if value is not None}
        with open(folder / "state.npz", "wb") as f:
            numpy.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        (folder / "state.json").write_text(json.dumps(dict(record, format=FORMAT), indent=1), encoding="utf8")

    replace_dir(write, output / STATE_DIR)


def find_checkpoint(output: Path) -> Optional[Path]:
    for name in (STATE_DIR, f".{STATE_DIR}.old"):
        folder = output / name
        if (folder / "state.json").exists() and (folder / "state.npz").exists():
            return folder
    return None


def load_record(folder: Path) -> dict:
    record = json.loads((folder / "state.json").read_text(encoding="utf8"))
    if record.get("format") != FORMAT:
        raise ValueError(f"{folder} was written by another version of spacy_adf.distributed "
                         f"(format {record.get('format')}, not {FORMAT}): use a new output folder")
    return record


def load_checkpoint(folder: Path) -> Tuple[Dict[str, dict], dict]:
    """(mixed state, record) of a checkpoint folder (find_checkpoint)."""
    record = load_record(folder)
    mixed: Dict[str, dict] = {}
    with numpy.load(folder / "state.npz") as data:
        for key in data.files:
            name, part = key.rsplit("/", 1)
            mixed.setdefault(name, {"weights": None, "rates": None, "averages": None})[part] = data[key]
    return mixed, record
