"""What the `spacy package` round-trip checks share (scripts/check_package*.py):
build a pipeline's sdist, make a fresh venv with spacy-adf installed from this
checkout, and compare a prediction script's output in both places."""
import argparse
import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import List

from benchmarks.harness import EGG_INFO, REPO
from spacy_adf.serialization.text_lines import check_file, read_lines


def read_texts(path, segmented: bool = False, limit: int = 0) -> List[str]:
    """The non-empty lines of `path` (UTF-8); with `segmented`, a segmented
    corpus line with its spaces removed (the raw text); at most `limit`."""
    texts = []
    for _, line in read_lines(check_file(path, "text", hint="")):
        if segmented:
            line = line.replace(" ", "")
        if not line:
            continue
        texts.append(line)
        if limit and len(texts) >= limit:
            break
    return texts


def run(cmd, **kw):
    """Print and run `cmd` (check=True)."""
    print("$", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def build_sdist(model, out_dir, name, version="0.0.1"):
    """`spacy package MODEL OUT_DIR --name NAME --version VERSION --build sdist`;
    returns the path of the sdist (the newest .tar.gz under OUT_DIR)."""
    return build_package(model, out_dir, name, version, "sdist")


def build_package(model, out_dir, name, version, build="sdist"):
    """`spacy package MODEL OUT_DIR --name NAME --version VERSION --build
    BUILD` (sdist or wheel); returns the last such file under OUT_DIR by name."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "spacy", "package", model, out_dir, "--name", name,
         "--version", version, "--force", "--build", build])
    found = sorted(out_dir.rglob("*.tar.gz" if build == "sdist" else "*.whl"))
    if not found:
        raise SystemExit(f"spacy package wrote no {build} for {model} under {out_dir}")
    return found[-1]


def make_venv(env_dir):
    """A fresh virtual environment (no system site-packages) with spacy-adf
    installed by pip from this checkout; returns its python."""
    env_dir = Path(env_dir)
    venv.create(env_dir, with_pip=True, clear=True)
    py = env_dir / "bin" / "python"
    stray = REPO / EGG_INFO
    had_stray = stray.exists()
    run([py, "-m", "pip", "install", "-q", str(REPO)])
    if stray.exists() and not had_stray:
        # pip's build leaves it in the checkout (harness.EGG_INFO), where
        # benchmarks.ginza, right after the pipelines workflow, refuses to run
        shutil.rmtree(stray)
    return py


def check_installed(model, data, workdir, limit, name, predict) -> bool:
    """Package `model`, install it into a fresh venv, run the `predict`
    script (argv: model name or path, data file, limit; prints JSON) in
    both places; True if the outputs are equal."""
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    sdist = build_sdist(model, work / "packages", name, "0.0.1")
    py = make_venv(work / "venv")
    run([py, "-m", "pip", "install", "-q", "--no-deps", str(sdist)])
    original = run([sys.executable, "-c", predict, model, data, limit],
                   capture_output=True, text=True).stdout
    meta = json.loads(Path(model, "meta.json").read_text())
    installed_name = f"{meta['lang']}_{name}"
    packaged = run([py, "-c", predict, installed_name, data, limit],
                   capture_output=True, text=True, cwd=work).stdout
    same = json.loads(original) == json.loads(packaged)
    print(f"{installed_name}: {len(json.loads(original))} sentences, predictions identical: {same}")
    return same


def check_main(description: str, predict: str, *, limit: int, name: str, argv=None) -> None:
    """The command line of a round-trip check: MODEL DATA --workdir [--limit]
    [--name]; exits 1 unless the packaged predictions equal the original's."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("model")
    parser.add_argument("data")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--limit", type=int, default=limit)
    parser.add_argument("--name", default=name)
    args = parser.parse_args(argv)
    if not check_installed(args.model, args.data, args.workdir, args.limit, args.name, predict):
        sys.exit(1)
