"""The six small models that `benchmarks.code_versions` runs, trained by one
checkout of spacy-adf (its own configs, `PYTHONPATH` at that checkout), and
whether two checkouts train byte-identical models from the same data and seed.

A refactoring must change no output: `code_versions` shows that the same saved
models predict the same with both checkouts; `--compare` here shows that both
checkouts also train the same models.

    python -m benchmarks.version_models train --checkout ../old --data ../shared/data --output training/versions
    python -m benchmarks.version_models train --checkout . --data ../shared/data --output training/versions_new
    python -m benchmarks.version_models compare training/versions training/versions_new
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List


def recipes(data: Path) -> Dict[str, List[str]]:
    """kind -> `spacy train` arguments after the config (small, fixed-seed runs)."""
    conll, kwdlc = data / "conll2000", data / "kwdlc"
    return {
        "tagger": ["configs/chunking_np.cfg", "--paths.train", f"{conll}/train.txt", "--paths.dev",
                   f"{conll}/test.txt", "--training.max_steps", "300"],
        "segmenter": ["configs/seg_ja_kwdlc.cfg", "--paths.train", f"{kwdlc}/train.knp", "--paths.dev",
                      f"{kwdlc}/dev.knp", "--training.max_epochs", "2"],
        "textcat": ["configs/textcat_blitzer_books.cfg", "--paths.blitzer", f"{data}/blitzer_sentiment/books",
                    "--training.max_epochs", "3"],
        "pke_tagger": ["configs/ebc_conll2000.cfg", "--paths.train", f"{conll}/train.txt", "--paths.dev",
                       f"{conll}/test.txt", "--corpora.train.limit", "1500", "--components.chunker.trainer",
                       "libsvm"],
        "pke_segmenter": ["configs/jws_kwdlc.cfg", "--paths.train", f"{kwdlc}/train.knp", "--paths.dev",
                          f"{kwdlc}/dev.knp", "--corpora.train.limit", "2000"],
        "dependency": ["configs/dep_ja_kwdlc.cfg", "--paths.train", f"{kwdlc}/train.knp", "--paths.dev",
                       f"{kwdlc}/dev.knp", "--corpora.train.limit", "3000"],
    }


def train(checkout: Path, data: Path, output: Path, kinds: List[str]) -> None:
    env = dict(os.environ, PYTHONPATH=str(checkout.resolve()))
    for kind in kinds:
        args = recipes(data.resolve())[kind]
        cmd = [sys.executable, "-m", "spacy", "train", args[0], *args[1:], "--output", str((output / kind).resolve())]
        print(f"[version-models] {kind}: training with {checkout} ...", flush=True)
        start = time.perf_counter()
        done = subprocess.run(cmd, env=env, cwd=checkout, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{kind} failed with {checkout}:\n{done.stderr[-3000:]}")
        print(f"[version-models] {kind}: {time.perf_counter() - start:.0f} s", flush=True)


def _untimed(value):
    """A component cfg without what a clock wrote (the `*seconds` fields and
    the checksum over them)."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not k.endswith("seconds") and k != "checksum"}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def digests(model: Path) -> Dict[str, str]:
    """sha1 of every file of a saved pipeline, by its path inside it; a
    component cfg is compared without its timings."""
    out = {}
    for p in sorted(model.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            if p.name == "cfg":
                data = json.dumps(_untimed(json.loads(data)), sort_keys=True).encode("utf8")
            out[str(p.relative_to(model))] = hashlib.sha1(data).hexdigest()
    return out


def compare(a: Path, b: Path) -> Dict[str, dict]:
    """kind -> the files that differ (or are missing on one side) between the two folders' model-last."""
    report = {}
    for kind_dir in sorted(p for p in a.iterdir() if p.is_dir()):
        left, right = digests(kind_dir / "model-last"), digests(b / kind_dir.name / "model-last")
        differ = sorted(k for k in set(left) | set(right) if left.get(k) != right.get(k))
        report[kind_dir.name] = {"files": len(left), "identical": not differ, "differ": differ}
    return report


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train")
    t.add_argument("--checkout", type=Path, required=True)
    t.add_argument("--data", type=Path, required=True)
    t.add_argument("--output", type=Path, required=True)
    t.add_argument("--kind", action="append", choices=list(recipes(Path("."))), help="default: all six")
    c = sub.add_parser("compare")
    c.add_argument("a", type=Path)
    c.add_argument("b", type=Path)
    c.add_argument("--out-json", type=Path, help="also write the report here")
    args = p.parse_args(argv)
    if args.command == "train":
        train(args.checkout, args.data, args.output, args.kind or list(recipes(Path("."))))
        return 0
    report = compare(args.a, args.b)
    text = json.dumps(report, indent=1)
    print(text)
    if args.out_json:
        args.out_json.write_text(text + "\n", encoding="utf8")
    return 0 if all(r["identical"] for r in report.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
