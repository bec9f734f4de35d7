"""J.DepP beside pke_dependency on the same data, in one run: bunsetsu
dependency accuracy, sentence accuracy, training time and peak RSS, and
parse speed (parse only, and the whole process).

J.DepP (Yoshinaga's Japanese dependency parser: polynomial-kernel classifiers
trained on-line by opal, classified through pecco's feature-sequence trie) is
built from its PyPI source package in ``training/jdepp/`` (git-ignored) and
never enters the product. Run from the repository root:

    python -m benchmarks.jdepp [--data ../shared/data] [--repeats 3] [--steps ...]

Steps (all of them by default, in this order):

* ``setup``: ``pip download`` of the sdist (``jdepp==0.1.8``, its sha256
  checked), unpacked afresh, the two fixes of `PATCHES` applied (each must
  match exactly once, else the run stops), and its command-line tool compiled
  with g++ from the sources of its CMakeLists' ``jdepp`` target with CMake's
  Release flags. Skipped when the binary of the same sdist, fixes and flags is
  there.
* ``convert``: the KNP files read with the project's reader
  (`bunsetsu_docs`, ``bad_heads="skip"`` as the training config), so J.DepP
  gets the sentences and gold heads ours trains and is scored on, written in
  J.DepP's input format (`doc_to_jdp`).
* ``train``: J.DepP's recipe on KWDLC train + KU Wikipedia train, gold
  morphemes and bunsetsu (`jdepp_recipe`: learn, cache, compile), each step a
  measured child process; then ours, the `train-dep` command of project.yml
  (``spacy train configs/dep_ja_kwdlc.cfg``, both training files, both dev
  files) into ``training/jdepp/ours``.
* ``bench``: accuracy on the dev and test files of both corpora, each
  parser's heads scored by `score_bunsetsu_deps`, the project's scorer (J.DepP's
  input carries the gold heads, as its test format does: it reads them for its
  own statistics only, kept beside ours as a check); these passes also warm
  both parsers up. Then speed over each test file repeated (at least
  ``--min-sentences`` sentences), J.DepP and ours alternating for
  ``--repeats`` rounds, best kept, one thread each, every round's trees
  compared with the accuracy pass's:

  - parse only: ours ``nlp.pipe`` over Docs built beforehand (gold bunsetsu,
    POS and morph, no tree), ``n_threads = 1``; J.DepP has no timer in this
    build, so its parse-only time is the wall time of its run over the file
    less that of its run over the first sentence (start, model load and
    exit), neither writing its parse.
  - whole process: J.DepP reading its converted file and writing its parse;
    ours a child that loads spaCy and the model, reads the KNP file with the
    project's reader and writes the heads (`ours_whole_process`, which also
    reports the seconds of each phase).

Output: ``metrics/bench_jdepp.json`` and the ``bench_jdepp`` section of
docs/benchmarks.md. Files: ``training/jdepp/`` (sdist, sources, binary,
converted data, models, logs).
"""
import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from benchmarks.harness import BENCHMARKS_MD, DATA, REPO, Child, machine_info, module_command, publish, write_json

NAME = "bench_jdepp"
WORK = REPO / "training" / "jdepp"
SDIST = "jdepp-0.1.8.tar.gz"
SDIST_SHA256 = "4c4e3535122d7326befb0b23266ec8d36ecc173150bb94b80a597369c8f58161"
# the sources of the CMakeLists' `jdepp` executable, and CMake's Release flags
# with the C++ standard it sets
SOURCES = ("cpp_cli/jdepp-app.cc", "jdepp/classify.cc", "jdepp/kernel.cc", "jdepp/linear.cc",
           "jdepp/pdep.cc", "jdepp/io-util.cc")
CXXFLAGS = ("-O3", "-DNDEBUG", "-std=c++11", "-Ijdepp")
# (file, exact text, replacement): without them the tool cannot run its recipe
PATCHES = (
    # each option group after `--` is handed to optparse, which takes the
    # group's first entry for the program name: keep the `--` there, as the
    # original J.DepP did, or the group's first option is lost
    ("cpp_cli/jdepp-app.cc",
     "      i++;\n      while (i + lib_args.size() < argc &&",
     "      lib_args.push_back(argv[i]);\n      while (i + lib_args.size() < argc &&"),
    # the classifier options (the groups after the second and third `--`) are
    # never read: the cache step cannot choose its classifier
    ("jdepp/pdep.cc",
     "      //_pecco_opt.set (argc, argv);\n",
     "      _pecco_opt.set (argc, argv);\n"),
)
ALGORITHMS = {"shift-reduce": 0, "cascade": 1, "backward": 2, "tournament": 3}
# opal's settings in J.DepP's own training recipe (the Makefile of its
# original distribution, which the PyPI package leaves out): polynomial
# kernel of degree 2, PA-I with C = 0.00005, 40 passes, margin pruning
LEARNER_OPTIONS = "-t 1 -d 2 -c 0.00005 -i 40 -p"
# pecco in the recipe's cache step: PKE, exact (sigma 0); the default
# classifier, FST, needs the examples this step writes
CACHE_OPTIONS = "-t 1"
CORPORA = {"KWDLC": "kwdlc", "KU Wikipedia": "ku_wikipedia_annotated"}


# ------------------------------------------------------------------ setup


def apply_patches(src: Path, patches=PATCHES) -> None:
    """Each (file, old, new) of `patches` in `src`: `old` must occur exactly
    once (or, patched already, `new` once and `old` never)."""
    for rel, old, new in patches:
        path = src / rel
        text = path.read_text(encoding="utf8")
        if text.count(old) == 1:
            path.write_text(text.replace(old, new), encoding="utf8")
        elif not (old not in text and text.count(new) == 1):
            raise SystemExit(f"benchmarks.jdepp: {path} does not hold the line to fix exactly once "
                             f"({old.strip()!r}): the sdist is not the one this benchmark knows; "
                             f"check {SDIST} and PATCHES")


def setup(work: Path = WORK) -> Path:
    """The built J.DepP binary (downloaded, fixed and compiled if needed)."""
    binary = work / "bin" / "jdepp"
    stamp = work / "bin" / "build.json"
    want = {"sdist_sha256": SDIST_SHA256, "patches": [list(p) for p in PATCHES],
            "sources": list(SOURCES), "cxxflags": list(CXXFLAGS)}
    if binary.exists() and stamp.exists() and json.loads(stamp.read_text()) == want:
        print(f"setup: {binary} is built", flush=True)
        return binary
    work.mkdir(parents=True, exist_ok=True)
    sdist = work / SDIST
    if not sdist.exists():
        print("setup: pip download jdepp==0.1.8 (source package)", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "jdepp==0.1.8", "--no-binary", "jdepp",
                        "--no-deps", "-d", str(work)], check=True)
    digest = hashlib.sha256(sdist.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        raise SystemExit(f"benchmarks.jdepp: {sdist} has sha256 {digest}, not {SDIST_SHA256}: remove it "
                         "and run again, or check what the index served")
    src = work / "src"
    shutil.rmtree(src, ignore_errors=True)
    with tarfile.open(sdist) as tar:  # its sha256 checked; the "data" filter where Python has it
        tar.extractall(src, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    src = src / SDIST[:-len(".tar.gz")]
    apply_patches(src)
    binary.parent.mkdir(parents=True, exist_ok=True)
    cxx = os.environ.get("CXX", "g++")
    cmd = [cxx, *CXXFLAGS, *SOURCES, "-o", str(binary)]
    print(f"setup: compiling in {src}: {shlex.join(cmd)} (about 1-2 minutes)", flush=True)
    built = subprocess.run(cmd, cwd=src, capture_output=True, text=True)
    if built.returncode:
        raise SystemExit(f"benchmarks.jdepp: compiling J.DepP failed:\n{built.stderr[-4000:]}")
    stamp.write_text(json.dumps(want), encoding="utf8")
    return binary


# ---------------------------------------------------------------- convert


def _field(value: Optional[str]) -> str:
    return value if value else "*"


def doc_to_jdp(doc) -> str:
    """One reference Doc (the bunsetsu reader's) in J.DepP's input: an
    ``# S-ID:`` line, ``* i headT`` per bunsetsu, then its morphemes as
    ``surface<TAB>POS,subPOS,conjugation type,conjugation form,lemma,*,*``
    (JUMAN fields in MeCab order, as J.DepP's default build reads them),
    ``EOS``. A surface starting with ``*`` or ``#`` (J.DepP would read the
    line as a bunsetsu or a comment) gets the full-width character."""
    group = doc.spans["bunsetsu"]
    heads, types = group.attrs["heads"], group.attrs.get("dep_types") or ["D"] * len(group)
    lines = []
    if doc.user_data.get("sent_id"):
        lines.append(f"# S-ID:{doc.user_data['sent_id']}")
    for i, (span, head, dep_type) in enumerate(zip(group, heads, types)):
        lines.append(f"* {i} {head}{dep_type[:1] or 'D'}")
        for token in span:
            surface = token.text
            if surface[:1] in ("*", "#"):
                surface = chr(ord(surface[0]) + 0xFEE0) + surface[1:]
            morph = token.morph
            feats = [_field(";".join(morph.get(name)))
                     for name in ("SrcPos", "SrcSubPos", "ConjType", "ConjForm")]
            lines.append(f"{surface}\t{','.join(feats)},{_field(token.lemma_)},*,*")
    lines.append("EOS")
    return "\n".join(lines) + "\n"


def read_refs(path: Path, vocab) -> list:
    from spacy_adf.corpora.bunsetsu import bunsetsu_docs

    return list(bunsetsu_docs(path, vocab, format="knp", bad_heads="skip"))


def write_jdp(docs: Iterable, path: Path, copies: int = 1) -> int:
    """`docs` in J.DepP's input, `copies` times over; the sentences written."""
    text = "".join(doc_to_jdp(d) for d in docs)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text * copies, encoding="utf8")
    return text.count("\nEOS\n") * copies


_CHUNK_LINE = re.compile(r"\* (\d+) (?:-?\d+[A-Z] )?(-?\d+)D(?:@\S+)?\Z")


def read_jdepp_output(text: str) -> List[Tuple[List[int], List[int]]]:
    """J.DepP's parse (``-v -1`` output) as one (predicted heads, morphemes
    per bunsetsu) per sentence."""
    sentences, heads, sizes = [], [], []
    for line in text.splitlines():
        if line == "EOS":
            sentences.append((heads, sizes))
            heads, sizes = [], []
        elif line.startswith("# "):
            continue
        elif line.startswith("* "):
            match = _CHUNK_LINE.match(line)
            if match is None or int(match.group(1)) != len(heads):
                raise ValueError(f"unexpected J.DepP bunsetsu line {line!r}")
            heads.append(int(match.group(2)))
            sizes.append(0)
        elif "\t" in line and sizes:
            sizes[-1] += 1
        else:
            raise ValueError(f"unexpected J.DepP output line {line!r}")
    if heads or sizes:
        raise ValueError("J.DepP output ends inside a sentence (no EOS)")
    return sentences


def heads_of_output(refs: Sequence, text: str) -> List[List[int]]:
    """The predicted heads of J.DepP's output, checked to cover `refs`'
    bunsetsu exactly."""
    parsed = read_jdepp_output(text)
    if len(parsed) != len(refs):
        raise ValueError(f"J.DepP returned {len(parsed)} sentences for {len(refs)}")
    for k, (ref, (heads, sizes)) in enumerate(zip(refs, parsed)):
        if sizes != [len(s) for s in ref.spans["bunsetsu"]]:
            raise ValueError(f"sentence {k}: J.DepP's bunsetsu are not the gold ones")
    return [heads for heads, _ in parsed]


def score(refs: Sequence, predicted_heads: Sequence[Sequence[int]]) -> Dict[str, float]:
    """The project's bunsetsu scores (x100) of `predicted_heads` on the gold
    bunsetsu of `refs`."""
    from spacy.training import Example

    from spacy_adf.corpora.bunsetsu import make_predicted
    from spacy_adf.scorers.bunsetsu_deps import score_bunsetsu_deps

    examples = []
    for ref, heads in zip(refs, predicted_heads):
        pred = make_predicted(ref)
        pred.spans["bunsetsu"].attrs["heads"] = list(heads)
        examples.append(Example(pred, ref))
    scores = score_bunsetsu_deps(examples)
    return {"dep_acc": 100 * scores["bunsetsu_dep_acc"], "sent_acc": 100 * scores["bunsetsu_sent_acc"],
            "sentences": len(refs)}


# ------------------------------------------------------------ processes


def wait(child: Child, what: str, every: float = 30.0) -> Dict:
    """`child`'s result, saying every `every` seconds that it still runs."""
    start = last = time.perf_counter()
    while (result := child.poll()) is None:
        time.sleep(0.05 if time.perf_counter() - start < 2 else 1.0)
        if time.perf_counter() - last >= every:
            last = time.perf_counter()
            print(f"  {what}: {last - start:.0f} s", flush=True)
    return result


def jdepp_command(binary: Path, stdin: Path, stdout: Optional[Path], args: Sequence[str]) -> List[str]:
    """``sh -c 'exec jdepp ARGS < stdin [> stdout]'``: the shell execs J.DepP,
    so the measured process is J.DepP's."""
    line = f"exec {shlex.join([str(binary), *args])} < {shlex.quote(str(stdin))}"
    if stdout is not None:
        line += f" > {shlex.quote(str(stdout))}"
    return ["sh", "-c", line]


def jdepp_recipe(binary: Path, train: Path, model: Path, parser: int, learner: str, cache: str,
                 first: Path) -> List[Tuple[str, List[str]]]:
    """J.DepP's training recipe for the parser on gold bunsetsu, as
    (step, command):

    * learn (``-t 0 -I 2``): the dictionary from the training file, the
      parser's examples and opal's model (`learner` options, the first group
      after ``--``);
    * cache (``-t 3``): the parser run over the training file with pecco
      (`cache` options, the third group, the parser's classifier), writing
      the examples it meets (the ``.event`` file); the model compiled;
    * compile: the first parse (of the test file's first sentence) with the
      default classifier, FST, which builds the feature-sequence trie with
      precomputed weights from those examples.
    """
    base = ["-m", str(model), "-p", str(parser)]
    return [
        ("learn", [str(binary), "-t", "0", "-I", "2", "-c", str(train), *base, "--", *learner.split()]),
        ("cache", [str(binary), "-t", "3", "-I", "2", "-c", str(train), *base, "--", "--", "--", *cache.split()]),
        ("compile", jdepp_command(binary, first, None, ["-t", "1", "-I", "2", *base])),
    ]


def ours_whole_process(model: Path, knp: Path, out: Path) -> None:
    """Ours as a user runs it (a child of `bench`): spaCy and the model
    loaded, the KNP file read with the project's reader, the parser's input
    Docs made, parsed on one thread, the heads written as JSON lines; the
    seconds of each phase printed last, as JSON."""
    clock = [time.perf_counter()]
    import spacy

    from spacy_adf.corpora.bunsetsu import make_predicted

    nlp = spacy.load(model)
    nlp.get_pipe("pke_dependency").n_threads = 1
    clock.append(time.perf_counter())
    refs = read_refs(knp, nlp.vocab)
    clock.append(time.perf_counter())
    docs = [make_predicted(r) for r in refs]
    clock.append(time.perf_counter())
    parsed = list(nlp.pipe(docs, batch_size=256))
    clock.append(time.perf_counter())
    with open(out, "w", encoding="utf8") as f:
        for doc in parsed:
            f.write(json.dumps(doc.spans["bunsetsu"].attrs["heads"]) + "\n")
    clock.append(time.perf_counter())
    phases = ("load spaCy and the model", "read the KNP file", "make the input Docs", "parse", "write")
    print(json.dumps({p: b - a for p, a, b in zip(phases, clock, clock[1:])}))


# ------------------------------------------------------------------ steps


def set_files(data: Path) -> Dict[str, Path]:
    """'KWDLC dev' ... 'KU Wikipedia test' -> KNP file."""
    return {f"{name} {split}": data / folder / f"{split}.knp"
            for split in ("dev", "test") for name, folder in CORPORA.items()}


def convert(data: Path, work: Path, min_sentences: int) -> Dict:
    """Every file J.DepP reads, from the project's reader; their sentence counts."""
    from spacy.vocab import Vocab

    vocab = Vocab()
    out = work / "data"
    counts = {}
    train_docs = []
    for name, folder in CORPORA.items():
        docs = read_refs(data / folder / "train.knp", vocab)
        counts[f"{name} train"] = len(docs)
        train_docs += docs
    counts["train"] = write_jdp(train_docs, out / "train.jdp")
    for name, path in set_files(data).items():
        refs = read_refs(path, vocab)
        stem = name.replace(" ", "_")
        counts[name] = write_jdp(refs, out / f"{stem}.jdp")
        if name.endswith("test"):  # the speed rounds' inputs
            copies = -(-min_sentences // len(refs))
            write_jdp(refs, out / f"{stem}.repeated.jdp", copies)
            write_jdp(refs[:1], out / f"{stem}.first.jdp")
            (out / f"{stem}.repeated.knp").write_text(path.read_text(encoding="utf8") * copies, encoding="utf8")
            counts[f"{name} repeated"] = len(refs) * copies
        print(f"convert: {name}: {counts[name]} sentences", flush=True)
    print(f"convert: training file {counts['train']} sentences", flush=True)
    return counts


def train(binary: Path, data: Path, work: Path, args) -> Dict:
    """J.DepP's recipe, then ours, each step a measured child process."""
    model = work / "model"
    shutil.rmtree(model, ignore_errors=True)  # J.DepP reuses any compiled file newer than its model
    model.mkdir(parents=True)
    logs = work / "logs"
    logs.mkdir(exist_ok=True)
    steps = jdepp_recipe(binary, work / "data" / "train.jdp", model, ALGORITHMS[args.algorithm],
                         args.learner_options, args.cache_options, work / "data" / "KWDLC_test.first.jdp")
    result = {"jdepp": {"algorithm": args.algorithm, "steps": {}}}
    for step, cmd in steps:
        print(f"train: J.DepP {step}", flush=True)
        r = wait(Child(cmd, logs / f"train_{step}.log"), f"J.DepP {step}")
        result["jdepp"]["steps"][step] = {"command": shlex.join(cmd), "seconds": r["wall_seconds"],
                                          "peak_rss_mb": r["peak_rss_mb"]}
        print(f"  {r['wall_seconds']:.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB", flush=True)
    ours = work / "ours"
    cmd = module_command("spacy", "train", "configs/dep_ja_kwdlc.cfg", "--paths.train",
                         f"{data / 'kwdlc' / 'train.knp'},{data / 'ku_wikipedia_annotated' / 'train.knp'}",
                         "--paths.dev", f"{data / 'kwdlc' / 'dev.knp'},{data / 'ku_wikipedia_annotated' / 'dev.knp'}",
                         "--output", ours)
    print("train: ours (spacy train configs/dep_ja_kwdlc.cfg, as train-dep)", flush=True)
    r = wait(Child(cmd, logs / "train_ours.log"), "ours")
    result["ours"] = {"command": shlex.join(cmd), "seconds": r["wall_seconds"], "peak_rss_mb": r["peak_rss_mb"]}
    print(f"  {r['wall_seconds']:.1f} s, peak RSS {r['peak_rss_mb']:.0f} MB", flush=True)
    write_json(work / "training.json", result)
    return result


@dataclass
class Parsers:
    """What the bench step runs: J.DepP's binary and model, ours loaded."""

    binary: Path
    model: Path
    parser: int
    ours_model: Path
    nlp: object
    work: Path

    def jdepp(self, stdin: Path, stdout: Optional[Path], log: str) -> Dict:
        """A measured J.DepP parse of `stdin` (printed to `stdout` if given)."""
        args = ["-t", "1", "-I", "2", "-m", str(self.model), "-p", str(self.parser)]
        if stdout is not None:
            args += ["-v", "-1"]  # print the parse
        cmd = jdepp_command(self.binary, stdin, stdout, args)
        return wait(Child(cmd, self.work / "logs" / log), "J.DepP parse")

    def ours_whole(self, knp: Path, heads: Path, log: str) -> Dict:
        cmd = module_command("benchmarks.jdepp", "ours-whole", self.ours_model, knp, heads)
        return wait(Child(cmd, self.work / "logs" / log), "ours whole process")

    def ours_parse(self, refs) -> Tuple[float, List[List[int]]]:
        """(seconds, heads) of ``nlp.pipe`` over Docs built before the clock starts."""
        from spacy_adf.corpora.bunsetsu import make_predicted

        docs = [make_predicted(r) for r in refs]
        start = time.perf_counter()
        out = list(self.nlp.pipe(docs, batch_size=256))
        seconds = time.perf_counter() - start
        return seconds, [list(d.spans["bunsetsu"].attrs["heads"]) for d in out]


_SELF_REPORTED = re.compile(r"acc\. \(partial\)\s+\S+ \(\s*(\d+)/\s*(\d+)\)")


def self_reported(log: Path) -> Optional[Dict[str, int]]:
    """J.DepP's own count of right heads in its log (it reads the gold heads
    of its input for these statistics only)."""
    match = _SELF_REPORTED.search(log.read_text(encoding="utf8", errors="replace"))
    return {"correct": int(match.group(1)), "scored": int(match.group(2))} if match else None


def disagreements(refs, heads_a, heads_b) -> Tuple[int, int]:
    """Scored bunsetsu (all but each sentence's last) right in a only, in b only."""
    a_only = b_only = 0
    for ref, ha, hb in zip(refs, heads_a, heads_b):
        gold = ref.spans["bunsetsu"].attrs["heads"]
        for i in range(len(gold) - 1):
            a_only += ha[i] == gold[i] and hb[i] != gold[i]
            b_only += hb[i] == gold[i] and ha[i] != gold[i]
    return a_only, b_only


def bench(run: Parsers, data: Path, repeats: int) -> Dict:
    """Accuracy on dev and test (untimed passes, which also warm both parsers
    up), then speed on test, J.DepP and ours alternating."""
    rows = {}
    out = run.work / "out"
    out.mkdir(exist_ok=True)
    for name, knp in set_files(data).items():
        stem = name.replace(" ", "_")
        refs = read_refs(knp, run.nlp.vocab)
        print(f"bench: {name} ({len(refs)} sentences)", flush=True)
        parsed = out / f"{stem}.jdepp.jdp"
        run.jdepp(run.work / "data" / f"{stem}.jdp", parsed, f"{stem}.log")
        jdepp_heads = heads_of_output(refs, parsed.read_text(encoding="utf8"))
        _, ours_heads = run.ours_parse(refs)
        row = {"sentences": len(refs), "jdepp": score(refs, jdepp_heads), "ours": score(refs, ours_heads),
               "jdepp_self_reported": self_reported(run.work / "logs" / f"{stem}.log")}
        row["jdepp_only_right"], row["ours_only_right"] = disagreements(refs, jdepp_heads, ours_heads)
        j, o = row["jdepp"], row["ours"]
        print(f"  J.DepP {j['dep_acc']:.2f} (sentences {j['sent_acc']:.2f}), ours {o['dep_acc']:.2f} "
              f"({o['sent_acc']:.2f})", flush=True)
        if name.endswith("test"):
            row["speed"] = speed(run, refs, stem, repeats, jdepp_heads, ours_heads)
        rows[name] = row
    return rows


def speed(run: Parsers, refs, stem: str, repeats: int, jdepp_heads, ours_heads) -> Dict:
    """Best of `repeats` alternating rounds over the test file repeated:
    parse only and whole process (start to exit, parse written). Every
    round's trees are compared with the accuracy pass's."""
    data, out = run.work / "data", run.work / "out"
    repeated = (data / f"{stem}.repeated.jdp").read_text(encoding="utf8").count("\nEOS\n")
    copies = repeated // len(refs)
    refs_repeated = list(refs) * copies
    best = {k: float("inf") for k in ("jdepp_first_sentence", "jdepp_repeated", "jdepp_whole", "ours_parse",
                                      "ours_whole")}
    rss, phases = {}, {}
    same = True
    for r in range(repeats):
        for key, suffix in (("jdepp_first_sentence", "first"), ("jdepp_repeated", "repeated")):
            res = run.jdepp(data / f"{stem}.{suffix}.jdp", None, f"{stem}.{suffix}.log")
            best[key] = min(best[key], res["wall_seconds"])
        parsed = out / f"{stem}.repeated.jdepp.jdp"
        res = run.jdepp(data / f"{stem}.repeated.jdp", parsed, f"{stem}.repeated.whole.log")
        best["jdepp_whole"], rss["jdepp_whole"] = min(best["jdepp_whole"], res["wall_seconds"]), res["peak_rss_mb"]
        same &= heads_of_output(refs_repeated, parsed.read_text(encoding="utf8")) == jdepp_heads * copies
        heads = out / f"{stem}.repeated.ours.jsonl"
        res = run.ours_whole(data / f"{stem}.repeated.knp", heads, f"{stem}.repeated.ours.log")
        if res["wall_seconds"] < best["ours_whole"]:
            log = (run.work / "logs" / f"{stem}.repeated.ours.log").read_text(encoding="utf8")
            phases = json.loads(log.strip().splitlines()[-1])
        best["ours_whole"], rss["ours_whole"] = min(best["ours_whole"], res["wall_seconds"]), res["peak_rss_mb"]
        same &= [json.loads(line) for line in heads.read_text().splitlines()] == ours_heads * copies
        seconds, got = run.ours_parse(refs_repeated)
        best["ours_parse"] = min(best["ours_parse"], seconds)
        same &= got == ours_heads * copies
        print(f"  round {r + 1}/{repeats}, {repeated} sentences (best so far): J.DepP parse only "
              f"{best['jdepp_repeated'] - best['jdepp_first_sentence']:.2f} s, whole {best['jdepp_whole']:.2f} s; "
              f"ours parse only {best['ours_parse']:.2f} s, whole {best['ours_whole']:.2f} s", flush=True)
    rates = {"jdepp_parse_only": repeated / (best["jdepp_repeated"] - best["jdepp_first_sentence"]),
             "jdepp_whole": repeated / best["jdepp_whole"],
             "ours_parse_only": repeated / best["ours_parse"], "ours_whole": repeated / best["ours_whole"]}
    return {"sentences": repeated, "copies": copies, "seconds": best, "sentences_per_second": rates,
            "ours_over_jdepp_parse_only": rates["ours_parse_only"] / rates["jdepp_parse_only"],
            "ours_over_jdepp_whole": rates["ours_whole"] / rates["jdepp_whole"],
            "ours_whole_phases_seconds": phases, "peak_rss_mb": rss, "same_trees_every_round": same}


# ----------------------------------------------------------------- report


def markdown(report: Dict) -> str:
    m, tr, rows = report["machine"], report["training"], report["sets"]
    steps = tr["jdepp"]["steps"]
    total = sum(s["seconds"] for s in steps.values())
    peak = max(s["peak_rss_mb"] for s in steps.values())
    kw, wiki = rows["KWDLC test"], rows["KU Wikipedia test"]
    ks, ws = kw["speed"]["sentences_per_second"], wiki["speed"]["sentences_per_second"]
    earlier = " (training figures from an earlier run)" if tr.get("from_an_earlier_run") else ""
    agree = all(r["jdepp_self_reported"] and abs(100 * r["jdepp_self_reported"]["correct"]
                                                 / r["jdepp_self_reported"]["scored"] - r["jdepp"]["dep_acc"]) < 1e-9
                for r in rows.values())
    lines = [
        "## J.DepP beside pke_dependency: same data, same run",
        "",
        f"`{report['command']}` (`spacy project run bench-jdepp`){earlier}; commit {m['git_commit']}, "
        f"{m['cores']} cores ({m['cpu']}); load average {m['load_average_at_start'][0]:.1f} at the start, "
        f"{report['load_average_at_end'][0]:.1f} at the end. Both parsers trained in the run on KWDLC train + "
        "KU Wikipedia train, gold morphemes and bunsetsu, as the project's reader gives them, and scored by "
        "the project's scorer with gold bunsetsu. J.DepP: its PyPI source package 0.1.8 with the two fixes its "
        f"command-line tool needs, its own recipe (opal `{report['settings']['learner_options']}`, "
        f"{tr['jdepp']['algorithm']}; `benchmarks/jdepp.py`). Ours: the shipped `configs/dep_ja_kwdlc.cfg` "
        "(`train-dep`). One thread each; speed is the best of "
        f"{report['settings']['repeats']} rounds, J.DepP and ours alternating.",
        "",
        "| | training | peak RSS | KWDLC test | KU Wikipedia test | sentence acc (KWDLC / KU Wikipedia) "
        "| sentences/s parse only (KWDLC / KU Wikipedia) | whole process |",
        "|---|---|---|---|---|---|---|---|",
        f"| J.DepP {tr['jdepp']['algorithm']}, degree 2 | {steps['learn']['seconds']:.1f} s learning, "
        f"{total:.0f} s with its cache and FST build | {steps['learn']['peak_rss_mb']:.0f} MB learning, "
        f"{peak:.0f} MB in all | {kw['jdepp']['dep_acc']:.2f} | {wiki['jdepp']['dep_acc']:.2f} "
        f"| {kw['jdepp']['sent_acc']:.2f} / {wiki['jdepp']['sent_acc']:.2f} "
        f"| {ks['jdepp_parse_only']:,.0f} / {ws['jdepp_parse_only']:,.0f} "
        f"| {ks['jdepp_whole']:,.0f} / {ws['jdepp_whole']:,.0f} |",
        f"| ours, `pke_dependency` tournament, degree 2 | {tr['ours']['seconds']:.0f} s (whole `spacy train`) "
        f"| {tr['ours']['peak_rss_mb']:.0f} MB | {kw['ours']['dep_acc']:.2f} | {wiki['ours']['dep_acc']:.2f} "
        f"| {kw['ours']['sent_acc']:.2f} / {wiki['ours']['sent_acc']:.2f} "
        f"| {ks['ours_parse_only']:,.0f} / {ws['ours_parse_only']:,.0f} "
        f"| {ks['ours_whole']:,.0f} / {ws['ours_whole']:,.0f} |",
        "",
        "| set | sentences | J.DepP | ours | sentence acc J.DepP / ours | bunsetsu right in J.DepP only / ours only |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in rows.items():
        lines.append(f"| {name} | {row['sentences']:,} | {row['jdepp']['dep_acc']:.2f} | {row['ours']['dep_acc']:.2f} "
                     f"| {row['jdepp']['sent_acc']:.2f} / {row['ours']['sent_acc']:.2f} "
                     f"| {row['jdepp_only_right']} / {row['ours_only_right']} |")
    step_text = ", ".join(f"{k} {v['seconds']:.1f} s at {v['peak_rss_mb']:.0f} MB" for k, v in steps.items())
    lines += [
        "",
        f"Training: J.DepP's steps {step_text}; ours the whole `spacy train` (dev scoring included). "
        f"Speed over each test file repeated ({kw['speed']['sentences']:,} / {wiki['speed']['sentences']:,} "
        "sentences): parse only, ours is `nlp.pipe` over Docs built beforehand (gold bunsetsu, POS and "
        "morph); J.DepP, which has no timer in this build, the wall time of its run over the file less that "
        "of its run over the first sentence (start, model load, exit), neither writing its parse. Whole "
        "process: J.DepP reading its converted file and writing its parse; ours loading spaCy and the model, "
        "reading the KNP file with the project's reader and writing the heads (KWDLC: "
        + ", ".join(f"{k} {v:.1f} s" for k, v in kw["speed"]["ours_whole_phases_seconds"].items())
        + "). Ours / J.DepP, parse only: "
        f"{kw['speed']['ours_over_jdepp_parse_only']:.2f}x / {wiki['speed']['ours_over_jdepp_parse_only']:.2f}x. "
        "Same trees in every round: "
        f"{'yes' if all(r['speed']['same_trees_every_round'] for r in (kw, wiki)) else 'NO'}; J.DepP's own "
        f"count of right heads equal to the project scorer's on every set: {'yes' if agree else 'NO'}. The "
        "machine may be shared with other jobs (load average above): compare speeds within a run.",
        "",
    ]
    return "\n".join(lines)


def load_parsers(binary: Path, args) -> Parsers:
    import spacy

    ours_model = WORK / "ours" / "model-last"
    nlp = spacy.load(ours_model)
    nlp.get_pipe("pke_dependency").n_threads = 1
    return Parsers(binary, WORK / "model", ALGORITHMS[args.algorithm], ours_model, nlp, WORK)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--steps", default="setup,convert,train,bench",
                   help="comma-separated subset of setup, convert, train, bench")
    p.add_argument("--repeats", type=int, default=3, help="alternating speed rounds (best kept)")
    p.add_argument("--min-sentences", type=int, default=20000,
                   help="sentences of J.DepP's repeated parse-only input")
    p.add_argument("--algorithm", choices=list(ALGORITHMS), default="shift-reduce", help="J.DepP's parser")
    p.add_argument("--learner-options", default=LEARNER_OPTIONS, help="opal's options (J.DepP's learn step)")
    p.add_argument("--cache-options", default=CACHE_OPTIONS, help="pecco's options in J.DepP's cache step")
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / "bench_jdepp.json")
    p.add_argument("--out-md", type=Path, default=BENCHMARKS_MD)
    return p.parse_args(argv)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["ours-whole"]:
        ours_whole_process(*map(Path, argv[1:4]))
        return 0
    args = parse_args(argv)
    steps = set(args.steps.split(","))
    unknown = steps - {"setup", "convert", "train", "bench"}
    if unknown:
        raise SystemExit(f"benchmarks.jdepp: unknown steps {sorted(unknown)}: use setup, convert, train, bench")
    machine = machine_info()
    binary = setup() if "setup" in steps else WORK / "bin" / "jdepp"
    if "convert" in steps:
        convert(args.data, WORK, args.min_sentences)
    training = train(binary, args.data, WORK, args) if "train" in steps else None
    if "bench" not in steps:
        return 0
    if training is None:
        training = json.loads((WORK / "training.json").read_text(encoding="utf8"))
        training["from_an_earlier_run"] = True
    report = {"command": "python -m benchmarks.jdepp " + shlex.join(argv), "machine": machine,
              "settings": {"learner_options": args.learner_options, "cache_options": args.cache_options,
                           "algorithm": args.algorithm, "repeats": args.repeats,
                           "min_sentences": args.min_sentences, "cxxflags": list(CXXFLAGS),
                           "sdist_sha256": SDIST_SHA256},
              "training": training, "sets": bench(load_parsers(binary, args), args.data, args.repeats)}
    report["load_average_at_end"] = list(os.getloadavg())
    publish(report, args.out_json, args.out_md, NAME, markdown(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
