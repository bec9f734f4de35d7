"""Build a wheel of each raw-text pipeline, install spacy-adf and then the
wheels into one fresh virtual environment, run raw text through each
installed package there, and check that the annotations equal those of the
pipeline directory in this environment.

    python -m scripts.check_pipelines --pipeline en=training/pipeline_en:assets/raw_text/en.txt \\
        --pipeline ja=training/pipeline_ja:assets/raw_text/ja.txt --workdir packages/pipelines

``--pipeline KEY=DIR:TEXT``: the pipeline directory (its meta name is the
package name) and a raw-text file, one document a line. Exits 1 if any
installed package annotates differently. The order matters and is the
documented one: spacy-adf first (the packages require it, and pip cannot
find it on PyPI), then the pipeline wheels with ``--no-deps``.
"""
import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.packaging import build_package, make_venv, run

# Everything a component of ours writes, as JSON: tokens, tags, morphs,
# entities, every span group, the token tree.
ANNOTATE = r"""
import json, sys, spacy
nlp = spacy.load(sys.argv[1])
texts = [l.rstrip("\n") for l in open(sys.argv[2], encoding="utf8") if l.strip()]
out = []
for doc in nlp.pipe(texts):
    out.append({
        "text_kept": doc.text == texts[len(out)],
        "tokens": [t.text for t in doc],
        "tag": [t.tag_ for t in doc], "pos": [t.pos_ for t in doc],
        "morph": [str(t.morph) for t in doc],
        "ents": [[e.start, e.end, e.label_] for e in doc.ents],
        "spans": {k: [[s.start, s.end, s.label_] for s in g] for k, g in sorted(doc.spans.items())},
        "heads": [t.head.i for t in doc] if doc.has_annotation("DEP") else None,
    })
print(json.dumps(out, ensure_ascii=False))
"""


def build_wheel(model: Path, out_dir: Path) -> Path:
    """The pipeline's wheel, named and versioned by its meta, in a folder of its own."""
    meta = json.loads((model / "meta.json").read_text())
    return build_package(model, out_dir / f"{meta['lang']}_{meta['name']}", meta["name"], meta["version"], "wheel")


def describe(doc: dict, sep: str) -> str:
    """A few lines summarising a document's annotation, for the log (`sep`
    joins tokens: "" for Chinese and Japanese)."""
    words = doc["tokens"]
    parts = ["/".join(words[:16]) + (" ..." if len(words) > 16 else "")]
    for key, spans in doc["spans"].items():
        parts.append(f"spans[{key}]: " + str([(sep.join(words[s:e]), lab) for s, e, lab in spans[:8]]))
    if doc["ents"]:
        parts.append("ents: " + str([(sep.join(words[s:e]), lab) for s, e, lab in doc["ents"]]))
    if doc["heads"] is not None:
        parts.append(f"heads: {doc['heads']}")
    return "\n    ".join(parts)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pipeline", action="append", required=True, help="KEY=DIR:TEXT")
    p.add_argument("--workdir", type=Path, required=True)
    p.add_argument("--output", type=Path, default=None, help="a JSON summary of the check")
    args = p.parse_args(argv)
    args.workdir = args.workdir.resolve()  # the venv's python runs with cwd=workdir
    specs = []
    for spec in args.pipeline:
        key, _, rest = spec.partition("=")
        model, _, text = rest.rpartition(":")
        specs.append((key, Path(model), Path(text)))
    for key, model, text in specs:
        for path in (model, text):
            if not path.exists():
                raise SystemExit(f"--pipeline {key}: {path} does not exist (run the training steps first)")
    # the wheels are built while the venv installs spacy-adf (its compile
    # leaves the disk and the resolver time free), and each pipeline
    # annotates here and there at once: on 2 cores about a minute less
    with ThreadPoolExecutor(max_workers=2) as pool:
        venv_job = pool.submit(make_venv, args.workdir / "venv")
        wheels = [build_wheel(model, args.workdir / "packages") for _, model, _ in specs]
        py = venv_job.result()
    for wheel in wheels:
        run([py, "-m", "pip", "install", "-q", "--no-deps", wheel])
    script = args.workdir / "annotate.py"
    script.write_text(ANNOTATE, encoding="utf8")
    ok, summary = True, {}
    for (key, model, text), wheel in zip(specs, wheels):
        package = wheel.name.split("-")[0]
        with ThreadPoolExecutor(max_workers=2) as pool:
            here_job = pool.submit(run, [sys.executable, script, model, text],
                                   capture_output=True, text=True)
            there_job = pool.submit(run, [py, script, package, text.resolve()],
                                    capture_output=True, text=True, cwd=args.workdir)
            here = json.loads(here_job.result().stdout)
            there = json.loads(there_job.result().stdout)
        same = here == there
        kept = all(d["text_kept"] for d in there)
        ok = ok and same and kept
        summary[key] = {"package": package, "wheel": wheel.name, "pipeline": str(model), "texts": str(text),
                        "documents": len(there), "identical": same, "text_kept": kept,
                        "first_document": there[0] if there else None}
        print(f"{key}: {package} installed from {wheel.name}; {len(there)} documents; "
              f"annotations identical to {model}: {same}; text kept: {kept}")
        for doc in there[:2]:
            print("    " + describe(doc, "" if key in ("ja", "zh") else " "))
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(summary, ensure_ascii=False, indent=2) + "\n", encoding="utf8")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
