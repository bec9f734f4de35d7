"""Jack-knifing: the readers ``spacy_adf.FoldSplit.v1`` and ``spacy_adf.JackknifedCorpus.v1`` and the
command ``python -m spacy_adf jackknife`` (docs/corpora.md, "Folds and jack-knifed input")."""
import copy
import hashlib
import json
import multiprocessing
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Union

import spacy
from spacy import util
from spacy.attrs import IDS as ATTR_IDS
from spacy.cli._util import parse_config_overrides
from spacy.pipeline import Pipe
from spacy.tokens import Doc, DocBin, Span
from spacy.training import Example
from spacy.util import registry
from thinc.api import Config

# spaCy and thinc only: `spacy train --code` loads this file on its own (`_train`)
PathLike = Union[str, Path]
PARTS = ("all", "train", "heldout")
ANNOTATIONS = "annotations.spacy"
SUMMARY = "jackknife.json"


def _digest(words: Iterable[str], size: int, key: bytes = b"") -> bytes:
    return hashlib.blake2b("\x1f".join(words).encode("utf8"), digest_size=size, key=key).digest()


def fold_of(words: Sequence[str], n_folds: int, seed: int = 0) -> int:
    """The fold (0..n_folds-1) of a sentence with these words under `seed`."""
    return int.from_bytes(_digest(words, 8, seed.to_bytes(8, "little", signed=True)), "little") % n_folds


def check_split(n_folds: int, folds: Iterable[int], part: str) -> List[int]:
    """`folds` as a sorted list; ValueError for settings that select nothing
    sensible (shared by FoldSplit and the readers with fold settings)."""
    if part not in PARTS:
        raise ValueError(f"part must be one of {list(PARTS)}, not {part!r}")
    folds = sorted(set(int(f) for f in folds))
    if part != "all":
        if n_folds < 2:
            raise ValueError(f"part={part!r} needs n_folds >= 2, not {n_folds}")
        bad = [f for f in folds if not 0 <= f < n_folds]
        if bad or not folds:
            raise ValueError(f"folds {folds} must be a non-empty list of fold numbers in 0..{n_folds - 1}")
    return folds


def select_part(examples: Iterable[Example], n_folds: int, folds: Sequence[int], part: str,
                seed: int = 0) -> Iterator[Example]:
    """The examples whose reference sentence falls in `folds` ("heldout"),
    or not in them ("train"), or all of them ("all")."""
    if part == "all":
        yield from examples
        return
    wanted = frozenset(folds)
    keep_heldout = part == "heldout"
    for eg in examples:
        if (fold_of([t.text for t in eg.reference], n_folds, seed) in wanted) == keep_heldout:
            yield eg


class FoldSplit:
    """Reader: the examples of `corpus` in a part of its folds."""

    def __init__(self, corpus: Callable[..., Iterable[Example]], *, n_folds: int, folds: Sequence[int],
                 part: str, seed: int = 0) -> None:
        self.corpus = corpus
        self.n_folds = n_folds
        self.folds = check_split(n_folds, folds, part)
        self.part = part
        self.seed = seed

    def __call__(self, nlp) -> Iterator[Example]:
        yield from select_part(self.corpus(nlp), self.n_folds, self.folds, self.part, self.seed)


@registry.readers("spacy_adf.FoldSplit.v1")
def create_fold_split(corpus: Callable[..., Iterable[Example]], n_folds: int = 10, folds: List[int] = [0],
                      part: str = "train", seed: int = 0) -> FoldSplit:
    """Keep `corpus`'s examples in `folds` (part "heldout") or in the other
    folds (part "train"); "all" keeps everything."""
    return FoldSplit(corpus, n_folds=n_folds, folds=folds, part=part, seed=seed)


def _words_key(doc: Doc) -> bytes:
    return _digest((t.text for t in doc), 16)


class JackknifeAnnotations:
    """The annotated Docs a jack-knife run wrote (a DocBin), found by their words, and what to copy
    from them onto a predicted Doc: token `attrs` by spaCy name, `span_keys`, `ents`."""

    def __init__(self, path: PathLike, attrs: Sequence[str] = ("TAG",), span_keys: Sequence[str] = (),
                 ents: bool = False) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise ValueError(f"Jack-knifed annotations not found: {str(self.path)!r}; run the "
                             "jack-knife step first (python -m spacy_adf jackknife, see its --help)")
        unknown = [a for a in attrs if a.upper() not in ATTR_IDS]
        if unknown:
            raise ValueError(f"Unknown token attribute(s) {unknown} in attrs; use spaCy names such as TAG, POS, MORPH")
        if not attrs and not span_keys and not ents:
            raise ValueError("JackknifedCorpus copies nothing: give attrs, span_keys or ents")
        self.attrs = [a.upper() for a in attrs]
        self.span_keys = list(span_keys)
        self.ents = ents
        self._vocab = None
        self._docs: Dict[bytes, List[Doc]] = {}

    def _load(self, vocab) -> None:
        if self._vocab is vocab:
            return
        docs: Dict[bytes, List[Doc]] = defaultdict(list)
        for doc in DocBin().from_disk(self.path).get_docs(vocab):
            docs[_words_key(doc)].append(doc)
        self._docs, self._vocab = dict(docs), vocab

    def annotated(self, reference: Doc) -> Doc:
        """The annotated Doc with the reference's words. Identical sentences
        share a fold (see `fold_of`), so any of their Docs was annotated by
        the same models; the first is taken, whatever the reading order."""
        self._load(reference.vocab)
        found = self._docs.get(_words_key(reference))
        if not found:
            words = " ".join(t.text for t in reference[:12])
            raise ValueError(f"{self.path} has no annotated sentence with the words {words!r}...: the "
                             "corpus differs from the one the jack-knife step read (rerun it)")
        return found[0]

    def apply(self, eg: Example) -> Example:
        """`eg` with the annotation copied onto its predicted Doc (a new Doc:
        a reader may hand out the same predicted Doc again)."""
        source = self.annotated(eg.reference)
        pred = eg.predicted
        if [t.text for t in pred] != [t.text for t in source]:
            raise ValueError(f"the predicted Doc's tokens differ from the jack-knifed Doc's: "
                             f"{pred.text[:60]!r} vs {source.text[:60]!r}")
        doc = pred.copy()
        if self.attrs:
            doc.from_array(self.attrs, source.to_array(self.attrs))
        for key in self.span_keys:
            if key not in source.spans:
                doc.spans[key] = []
                continue
            group = source.spans[key]
            doc.spans[key] = [Span(doc, s.start, s.end, label=s.label_) for s in group]
            if "heads" in group.attrs:
                doc.spans[key].attrs["heads"] = list(group.attrs["heads"])
        if self.ents:
            doc.set_ents([Span(doc, e.start, e.end, label=e.label_) for e in source.ents], default="outside")
        return Example(doc, eg.reference)


class JackknifedCorpus:
    """Reader: `corpus`'s examples with jack-knifed input annotation on the
    predicted Doc; ``annotations = null`` leaves them as read."""

    def __init__(self, corpus: Callable[..., Iterable[Example]], annotations: Optional[JackknifeAnnotations]) -> None:
        self.corpus = corpus
        self.annotations = annotations

    def __call__(self, nlp) -> Iterator[Example]:
        examples = self.corpus(nlp)
        yield from examples if self.annotations is None else map(self.annotations.apply, examples)


@registry.readers("spacy_adf.JackknifedCorpus.v1")
def create_jackknifed_corpus(corpus: Callable[..., Iterable[Example]], annotations: Optional[str] = None,
                             attrs: List[str] = ["TAG"], span_keys: List[str] = [],
                             ents: bool = False) -> JackknifedCorpus:
    """`corpus` with the predicted Docs' `attrs`, `span_keys` and `ents`
    taken from the DocBin `annotations` written by spacy_adf jackknife."""
    found = None if annotations is None else JackknifeAnnotations(annotations, attrs, span_keys, ents)
    return JackknifedCorpus(corpus, found)


@dataclass
class JackknifeSettings:
    upstream: List[Path]                 # upstream configs, trained and applied in this order
    output: Path
    n_folds: int = 10
    seed: int = 0
    corpus: str = "corpora.train"        # the section to split, in every upstream config
    overrides: Dict[str, str] = field(default_factory=dict)
    keep_models: bool = False
    batch_size: int = 256
    python: str = sys.executable
    folds: Optional[List[int]] = None    # run only these folds (None: all), e.g. one per process
    jobs: int = 1                        # folds trained at the same time (each in its own process)

    def __post_init__(self) -> None:
        self.upstream = [Path(p) for p in self.upstream]
        self.output = Path(self.output)
        if not self.upstream:
            raise ValueError("jack-knifing needs at least one upstream config")
        for path in self.upstream:
            if not path.exists():
                raise ValueError(f"upstream config not found: {str(path)!r}")
        names = [p.stem for p in self.upstream]
        if len(set(names)) != len(names):
            raise ValueError(f"upstream configs need distinct file names (their output folders): {names}")
        check_split(self.n_folds, [0], "train")
        if self.folds is not None:
            check_split(self.n_folds, self.folds, "heldout")
        if self.jobs < 1:
            raise ValueError(f"[jackknife] jobs must be >= 1, not {self.jobs}")


def _section(config: Dict, dotted: str, source: Path) -> Dict:
    node = config
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            raise ValueError(f"{source} has no section [{dotted}] (the corpus to split; set --corpus)")
        node = node[part]
    if not isinstance(node, dict) or not any(k.startswith("@") for k in node):
        raise ValueError(f"[{dotted}] in {source} is not a reader section (no @readers)")
    return node


def _keys_in(config: Config, overrides: Dict[str, str]) -> Dict[str, str]:
    """The overrides whose key the config has (an upstream chain shares one
    set of overrides; spaCy refuses keys a config lacks)."""
    found = {}
    for key, value in overrides.items():
        node, parts = config, key.split(".")
        for part in parts[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and parts[-1] in node:
            found[key] = value
    return found


def fold_config(path: Path, settings: JackknifeSettings, fold: int, fold_dir: Path) -> Config:
    """The upstream config at `path` training on every fold but `fold`,
    with `fold` as its dev set."""
    raw = util.load_config(path, interpolate=False)
    overrides = {k: v.replace("{fold_dir}", str(fold_dir)) if isinstance(v, str) else v
                 for k, v in settings.overrides.items()}
    config = util.load_config(path, overrides=_keys_in(raw, overrides), interpolate=False)
    corpus = _section(config, settings.corpus, path)
    corpora = config.setdefault("corpora", {})
    for name, part in (("train", "train"), ("dev", "heldout")):
        corpora[name] = {"@readers": "spacy_adf.FoldSplit.v1", "n_folds": settings.n_folds, "folds": [fold],
                         "part": part, "seed": settings.seed, "corpus": copy.deepcopy(corpus)}
        config["training"][f"{name}_corpus"] = f"corpora.{name}"
    return config


def annotate(docs: List[Doc], pipelines: Sequence, batch_size: int) -> List[Doc]:
    """`docs` through every component of each pipeline, in order."""
    for nlp in pipelines:
        if docs and docs[0].vocab is not nlp.vocab:
            docs = [Doc(nlp.vocab).from_bytes(d.to_bytes()) for d in docs]
        for _, proc in nlp.pipeline:
            # a plain function added as a component has no pipe()
            docs = list(proc.pipe(docs, batch_size=batch_size)) if isinstance(proc, Pipe) else [proc(d) for d in docs]
    return docs


def _train(config_path: Path, out: Path, python: str, log: Callable[[str], None]) -> float:
    # --code registers FoldSplit in the child even where the installed entry
    # points are stale (this module imports only spaCy and thinc)
    cmd = [python, "-m", "spacy", "train", str(config_path), "--output", str(out), "--code", str(Path(__file__).resolve())]
    log("  $ " + " ".join(cmd))
    start = time.perf_counter()
    done = subprocess.run(cmd)
    if done.returncode:
        raise RuntimeError(f"spacy train failed (exit {done.returncode}) for {config_path}")
    return time.perf_counter() - start


def _main_score(model_dir: Path, config: Config) -> Optional[float]:
    """The model's dev (held-out fold) score under the heaviest score weight."""
    meta = model_dir / "meta.json"
    weights = {k: v for k, v in (config["training"].get("score_weights") or {}).items() if v}
    if not meta.exists() or not weights:
        return None
    value = json.loads(meta.read_text()).get("performance", {}).get(max(weights, key=weights.get))
    return value if isinstance(value, (int, float)) else None


def check_overrides(settings: JackknifeSettings) -> None:
    """Every override must name a key of some upstream config (else it would
    be dropped without a word)."""
    configs = [util.load_config(p, interpolate=False) for p in settings.upstream]
    unused = [k for k in settings.overrides if not any(_keys_in(c, {k: ""}) for c in configs)]
    if unused:
        raise ValueError(f"override(s) {unused} name no key of the upstream configs "
                         f"{[str(p) for p in settings.upstream]}")


def fold_annotations(output: Path, fold: int) -> Path:
    """Where fold `fold`'s annotated held-out Docs are written."""
    return output / f"fold{fold}" / ANNOTATIONS


def join_folds(paths: Sequence[Path]) -> DocBin:
    """The fold DocBins in one, in order, with their user data (its sentence
    ids pair each Doc with its gold copy: `corpora.bunsetsu.read_jackknifed`)."""
    joined = DocBin(store_user_data=True)
    for path in paths:
        joined.merge(DocBin(store_user_data=True).from_disk(path))
    return joined


def fold_fingerprint(settings: JackknifeSettings, fold: int) -> str:
    """A digest of the fold's upstream configs as trained (overrides and fold
    split applied): a fold annotated under other settings is redone."""
    fold_dir = (settings.output / f"fold{fold}").resolve()
    text = "\n".join(fold_config(path, settings, fold, fold_dir).to_str() for path in settings.upstream)
    return hashlib.sha256(text.encode("utf8")).hexdigest()[:16]


def _fold_done(settings: JackknifeSettings, fold: int) -> bool:
    """Whether the fold has its DocBin, made under the present settings."""
    summary = settings.output / f"fold{fold}" / SUMMARY
    if not fold_annotations(settings.output, fold).exists() or not summary.exists():
        return False
    try:
        return json.loads(summary.read_text()).get("fingerprint") == fold_fingerprint(settings, fold)
    except ValueError:
        return False


def _run_fold(settings: JackknifeSettings, names: List[str], fold: int, log: Callable[[str], None]) -> Dict:
    """Train the upstream chain on the other folds, annotate this one and
    write it to its own DocBin (a rerun resumes at the first fold without one)."""
    out = settings.output
    fold_dir = (out / f"fold{fold}").resolve()
    fold_dir.mkdir(parents=True, exist_ok=True)
    record: Dict = {"fold": fold, "fingerprint": fold_fingerprint(settings, fold), "upstream": {}}
    configs = []
    for path, name in zip(settings.upstream, names):
        config = fold_config(path, settings, fold, fold_dir)
        config_path = fold_dir / f"{name}.cfg"
        config.to_disk(config_path)
        configs.append(config)
        log(f"[jackknife] fold {fold + 1}/{settings.n_folds} · {name}: training on the other "
            f"{settings.n_folds - 1} folds")
        seconds = _train(config_path, fold_dir / name, settings.python, log)
        score = _main_score(fold_dir / name / "model-last", config)
        record["upstream"][name] = {"train_seconds": round(seconds, 1), "heldout_score": score}
        log(f"[jackknife] fold {fold + 1}/{settings.n_folds} · {name}: trained in {seconds:.0f} s"
            + (f", main score {100 * score:.2f} on the held-out fold" if score is not None else ""))
    start = time.perf_counter()
    pipelines = [spacy.load(fold_dir / name / "model-last") for name in names]
    # the held-out fold: the fold-split dev reader's predicted Docs
    heldout = util.registry.resolve({"reader": configs[0].interpolate()["corpora"]["dev"]})["reader"]
    docs = annotate([eg.predicted for eg in heldout(pipelines[0])], pipelines, settings.batch_size)
    DocBin(store_user_data=True, docs=docs).to_disk(fold_annotations(out, fold))
    record.update(sentences=len(docs), annotate_seconds=round(time.perf_counter() - start, 1))
    (fold_dir / SUMMARY).write_text(json.dumps(record, indent=2) + "\n")
    log(f"[jackknife] fold {fold + 1}/{settings.n_folds}: annotated {len(docs)} held-out sentences "
        f"in {record['annotate_seconds']} s")
    del pipelines
    if not settings.keep_models:
        for name in names:
            shutil.rmtree(fold_dir / name, ignore_errors=True)
    return record


def run_jackknife(settings: JackknifeSettings, log: Callable[[str], None] = print) -> Dict:
    """Train and annotate every fold not done yet (or ``settings.folds``),
    then, once every fold has its DocBin, join them into
    OUTPUT/annotations.spacy; the summary (also OUTPUT/jackknife.json;
    "sentences" None while folds are missing)."""
    check_overrides(settings)
    out = settings.output
    out.mkdir(parents=True, exist_ok=True)
    names = [p.stem for p in settings.upstream]
    total = time.perf_counter()
    todo = []
    for fold in (range(settings.n_folds) if settings.folds is None else settings.folds):
        if _fold_done(settings, fold):
            log(f"[jackknife] fold {fold + 1}/{settings.n_folds}: already annotated "
                f"({fold_annotations(out, fold)}), skipped")
        else:
            if fold_annotations(out, fold).exists():
                log(f"[jackknife] fold {fold + 1}/{settings.n_folds}: annotated under other settings "
                    "(configs or overrides changed), redone")
                fold_annotations(out, fold).unlink()
            todo.append(fold)
    if settings.jobs > 1 and len(todo) > 1:
        # several folds at once in fresh interpreters; their lines go to stdout as they come
        log(f"[jackknife] folds {[f + 1 for f in todo]} in {min(settings.jobs, len(todo))} processes")
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=settings.jobs, mp_context=context) as pool:
            running = [pool.submit(_run_fold, settings, names, fold, print) for fold in todo]
            for done in as_completed(running):
                done.result()  # a failed fold stops the run with its error (the others keep their DocBins)
    else:
        for fold in todo:
            _run_fold(settings, names, fold, log)
    missing = [f for f in range(settings.n_folds) if not fold_annotations(out, f).exists()]
    summary = {"upstream": [str(p) for p in settings.upstream], "corpus": settings.corpus,
               "n_folds": settings.n_folds, "seed": settings.seed, "overrides": settings.overrides,
               "annotations": str(out / ANNOTATIONS), "missing_folds": missing, "sentences": None,
               "seconds": round(time.perf_counter() - total, 1), "folds": []}
    if missing:
        log(f"[jackknife] folds {[f + 1 for f in missing]} not annotated yet; {ANNOTATIONS} is written "
            "when every fold is")
        return summary
    annotated = join_folds([fold_annotations(out, fold) for fold in range(settings.n_folds)])
    for fold in range(settings.n_folds):
        summary["folds"].append(json.loads((out / f"fold{fold}" / SUMMARY).read_text()))
    annotated.to_disk(out / ANNOTATIONS)
    summary["sentences"] = len(annotated)
    (out / SUMMARY).write_text(json.dumps(summary, indent=2) + "\n")
    log(f"[jackknife] {len(annotated)} sentences annotated by {settings.n_folds} fold models -> "
        f"{out / ANNOTATIONS} ({summary['seconds']:.0f} s)")
    return summary


def main(argv=None) -> int:
    from ..command_line import command_parser  # here: `spacy train --code` loads this file outside the package

    parser = command_parser(
        "jackknife", "k-fold jack-knifed input annotation for a downstream component's training corpus. "
        "Extra --section.key value arguments are config overrides, applied to every upstream config that has "
        "the key ({fold_dir} in a value: the fold's folder). Each fold writes OUTPUT/foldK/annotations.spacy "
        "(a rerun skips folds that have one); when all have, OUTPUT/annotations.spacy and OUTPUT/jackknife.json.")
    parser.add_argument("output")
    parser.add_argument("--upstream", action="append", required=True,
                        help="an upstream config; repeat for a chain, in pipeline order")
    parser.add_argument("--n-folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", default="corpora.train",
                        help="the reader section to split, in each upstream config")
    parser.add_argument("--folds", type=int, nargs="*", default=None,
                        help="run only these folds (0-based; e.g. one per process); the DocBin of all is "
                             "written once every fold is done")
    parser.add_argument("--jobs", type=int, default=1,
                        help="folds trained at the same time, each in its own process (default 1)")
    parser.add_argument("--keep-models", action="store_true", help="keep the fold models (deleted by default)")
    args, extra = parser.parse_known_args(argv)
    overrides = parse_config_overrides(extra)
    settings = JackknifeSettings(upstream=args.upstream, output=args.output, n_folds=args.n_folds,
                                 seed=args.seed, corpus=args.corpus, overrides=overrides,
                                 keep_models=args.keep_models, folds=args.folds,
                                 jobs=args.jobs)
    run_jackknife(settings)
    return 0
