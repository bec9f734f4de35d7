"""Word segmentation benchmark: adf_segmenter vs spacy-pkuseg, in one run.

Both systems train on the same files (spacy-pkuseg with its own `train()`,
default 20 iterations; adf_segmenter with `python -m spacy train` and the
project's config) and are scored with the same SIGHAN word P/R/F and OOV
recall (OOV = not a word of the training file):

* weibo: NLPCC-2016 Weibo train -> dev (the test file has no gold);
* gsd:   UD Chinese GSD r1.4 train -> test (words joined without spaces);
  adf_segmenter uses configs/seg_zh_weibo.cfg's settings here, on the same
  SIGHAN files as spacy-pkuseg;
* kwdlc: KWDLC morphemes train -> test;
* msr / msr+dict: the Weibo models on the SIGHAN-2005 MSR test gold, without
  and with `msr_training_words.utf8` as user dictionary.

Schedule (2 cores): spacy-pkuseg's Weibo training (the longest job) runs in a
second process while the other trainings run one after another, so training
times are measured with two single-threaded jobs on the machine, for both
systems alike. All segmentation (speed and accuracy) runs afterwards, with
nothing else running. Segmentation speed is characters per second over the
evaluation texts, best of `--repeats` passes; adf_segmenter is timed as the
tokenizer (`spacy_adf.Segmenter.v1`, `tokenizer.pipe`) and as the pipeline
component (`nlp.pipe` over character Docs, including the character
tokenizer and the merges).

    python -m benchmarks.segmentation                # full run (~45 minutes)
    python -m benchmarks.segmentation --limit 300 --pkuseg-iters 2 --epochs 2

Output: raw figures as JSON (`--out-json`) and a Markdown section between
`<!-- bench_segmentation:start -->` and `<!-- bench_segmentation:end -->` in
`--out-md`.
"""
import argparse
import json
import math
import re
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set

from benchmarks.config_epochs import epochs_of
from benchmarks.harness import BENCHMARKS_MD, DATA, REPO, Child, fmt, machine_info, publish, read_jsonl, run_child

NAME = "bench_segmentation"
DEFAULT_DATA = DATA
DEFAULT_JSON = REPO / "metrics" / "bench_segmentation.json"
DEFAULT_MD = BENCHMARKS_MD

DATASETS = {
    "weibo": {"title": "NLPCC-2016 Weibo (dev)", "config": "configs/seg_zh_weibo.cfg",
              "train": "nlpcc2016_weibo/nlpcc2016-word-seg-train.dat",
              "dev": "nlpcc2016_weibo/nlpcc2016-wordseg-dev.dat",
              "eval": "nlpcc2016_weibo/nlpcc2016-wordseg-dev.dat", "format": "segmented"},
    "gsd": {"title": "UD Chinese GSD r1.4 (test)", "config": "configs/seg_zh_weibo.cfg",
            "train": "ud_chinese_gsd_r1.4/zh-ud-train.conllu",
            "dev": "ud_chinese_gsd_r1.4/zh-ud-dev.conllu",
            "eval": "ud_chinese_gsd_r1.4/zh-ud-test.conllu", "format": "conllu"},
    "kwdlc": {"title": "KWDLC morphemes (test)", "config": "configs/seg_ja_kwdlc.cfg",
              "train": "kwdlc/train.knp", "dev": "kwdlc/dev.knp",
              "eval": "kwdlc/test.knp", "format": "knp"},
}
MSR_GOLD = "sighan2005_msr/msr_test_gold.utf8"
MSR_WORDS = "sighan2005_msr/msr_training_words.utf8"
BATCH_SIZE = 64  # spaCy batch size of the configs (ADF still steps per sentence)


# ----------------------------------------------------------------- data


def read_words(path: Path, fmt: str, limit: int = 0) -> List[List[str]]:
    """Gold word lists of a "segmented", "conllu" (words joined without spaces, as UD Chinese
    needs) or "knp" corpus, whitespace dropped as SIGHAN scoring does."""
    from spacy_adf.corpora.conllu import read_conllu
    from spacy_adf.corpora.knp import read_knp
    from spacy_adf.corpora.segmented import read_segmented

    if fmt == "segmented":
        sents = list(read_segmented(path, limit))
    elif fmt == "conllu":
        sents = [s.words for s in read_conllu(path, limit, spaces="none")]
    elif fmt == "knp":
        sents = [s.words for s in read_knp(path, limit, bad_heads="ignore")]
    else:
        raise ValueError(f"unknown corpus format {fmt!r}: use segmented, conllu or knp")
    # whitespace dropped from every word, whitespace-only words and empty sentences skipped
    stripped = ([w for w in ("".join(word.split()) for word in words) if w] for words in sents)
    return [words for words in stripped if words]


_UNWRITABLE = (" ", "\t", "\r", "\n")


def write_segmented(sentences: Iterable[Sequence[str]], path: Path) -> int:
    """Write word lists as SIGHAN lines (words joined by one space, LF endings).

    For other tools, e.g. spacy-pkuseg training files. A word that is empty or
    holds an ASCII space, tab, CR or LF cannot be written in this format (it
    would not read back as one word), nor can a sentence without words: both
    raise a ValueError, and ``path`` is then left as it was (the
    lines go to a temporary file first). Other whitespace
    (U+3000 ...) is written as it is and reads back as part of a word.
    Returns the number of lines written.
    """
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    count = 0
    try:
        with tmp.open("w", encoding="utf8", newline="\n") as f:
            for i, words in enumerate(sentences):
                if isinstance(words, str):
                    raise ValueError(f"sentence {i}: expected a list of words, got the string {words[:50]!r}")
                if not words:
                    raise ValueError(f"sentence {i} has no words; the segmented format cannot hold it")
                for word in words:
                    if not word or any(c in word for c in _UNWRITABLE):
                        raise ValueError(
                            f"sentence {i}: the word {word!r} is empty or contains an ASCII space, "
                            "tab or line break; the segmented format cannot hold it"
                        )
                f.write(" ".join(words))
                f.write("\n")
                count += 1
        tmp.replace(path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return count


def write_sighan(path: Path, sentences: Sequence[Sequence[str]]) -> Path:
    write_segmented(sentences, path)
    return path


def lexicon_of(sentences: Sequence[Sequence[str]]) -> Set[str]:
    return {w for s in sentences for w in s}


# ----------------------------------------------------------------- pkuseg


PKUSEG_ITER = re.compile(r"iter(\d+)\s+diff=\S+\s+train-time\(sec\)=([\d.]+)\s+f-score=([\d.]+)%")


def pkuseg_command(train: Path, test: Path, model_dir: Path, iters: int) -> List[str]:
    code = ("import sys, spacy_pkuseg; "
            "spacy_pkuseg.train(sys.argv[1], sys.argv[2], sys.argv[3], train_iter=int(sys.argv[4]))")
    return [sys.executable, "-c", code, str(train), str(test), str(model_dir), str(iters)]


def parse_pkuseg_log(text: str) -> List[Dict]:
    return [{"iter": int(m.group(1)), "train_seconds": float(m.group(2)),
             "own_f": float(m.group(3))} for m in PKUSEG_ITER.finditer(text)]


def pkuseg_result(child: Dict, log_path: Path) -> Dict:
    iters = parse_pkuseg_log(log_path.read_text(encoding="utf8"))
    per_pass = [it["train_seconds"] for it in iters]
    return {
        "passes": len(iters),
        "seconds_per_pass": per_pass,
        "mean_seconds_per_pass": sum(per_pass) / max(len(per_pass), 1),
        "train_wall_seconds": child["wall_seconds"],
        "peak_rss_mb": child["peak_rss_mb"],
        "own_f_per_pass": [it["own_f"] for it in iters],
    }


def pkuseg_segment(model_dir: Path, texts: List[str], user_dict: Optional[Path], repeats: int):
    """(words, chars/s of cut(), chars/s of cut() plus building spaCy Docs
    from its words, as spaCy's own zh tokenizer does)."""
    import spacy
    import spacy_pkuseg
    from spacy.tokens import Doc

    seg = spacy_pkuseg.pkuseg(model_name=str(model_dir),
                              user_dict=None if user_dict is None else str(user_dict))
    vocab = spacy.blank("xx").vocab
    best = best_docs = math.inf
    out = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = [seg.cut(t) for t in texts]
        best = min(best, time.perf_counter() - start)
        start = time.perf_counter()
        for t in texts:
            words = seg.cut(t)
            Doc(vocab, words=words, spaces=[False] * len(words))
        best_docs = min(best_docs, time.perf_counter() - start)
    n = sum(map(len, texts))
    return out, n / best, n / best_docs


# ----------------------------------------------------------------- adf


def adf_command(name: str, train: Path, dev: Path, job: Path, epochs: int, n_train: int) -> List[str]:
    config = REPO / DATASETS[name]["config"]
    return [sys.executable, "-m", "spacy", "train", str(config),
            "--paths.train", str(train), "--paths.dev", str(dev),
            "--paths.log", str(job / "log.jsonl"), "--output", str(job / "output"),
            "--training.max_epochs", str(epochs), "--training.max_steps", "0",
            "--training.eval_frequency", str(-(-n_train // BATCH_SIZE))]


def adf_result(child: Dict, job: Path, epochs: int) -> Dict:
    """spaCy evaluates after the first batch (step 0) and then every pass, so
    the differences between consecutive records are whole passes."""
    records = read_jsonl(job / "log.jsonl")
    cumulative = [r["train_seconds"] for r in records]
    per_pass = [b - a for a, b in zip(cumulative[:-1], cumulative[1:])]
    return {
        "passes": epochs,
        "seconds_per_pass": per_pass,
        "mean_seconds_per_pass": sum(per_pass) / max(len(per_pass), 1),
        "train_wall_seconds": child["wall_seconds"],
        "peak_rss_mb": child["peak_rss_mb"],
        "dev_f_per_pass": [100 * r["other_scores"].get("token_f", 0.0) for r in records],
    }


def adf_segment(nlp, texts: List[str], repeats: int):
    """(words per text, tokenizer chars/s, component chars/s, forms agree)."""
    from spacy_adf.pipeline.segmenter import ADFSegmenter
    from spacy_adf.tokenizers.word_tokenizer import SegmenterTokenizer

    seg = next(p for _, p in nlp.pipeline if isinstance(p, ADFSegmenter))
    tok = SegmenterTokenizer(nlp.vocab).from_segmenter(seg)
    n_chars = sum(map(len, texts))
    best_tok = best_comp = math.inf
    tok_words = comp_words = None
    for _ in range(repeats):
        start = time.perf_counter()
        docs = list(tok.pipe(texts, batch_size=256))
        best_tok = min(best_tok, time.perf_counter() - start)
        tok_words = [[t.text for t in d if not t.is_space] for d in docs]
        start = time.perf_counter()
        docs = list(nlp.pipe(texts, batch_size=256))
        best_comp = min(best_comp, time.perf_counter() - start)
        comp_words = [[t.text for t in d if not t.is_space] for d in docs]
    return tok_words, n_chars / best_tok, n_chars / best_comp, tok_words == comp_words


# ----------------------------------------------------------------- scoring


def score(gold: List[List[str]], pred: List[List[str]], lexicon: Set[str]) -> Dict:
    from spacy_adf.scorers.segmentation import segmentation_prf

    s = segmentation_prf(gold, pred, lexicon)
    return {"f": 100 * s["token_f"], "p": 100 * s["token_p"], "r": 100 * s["token_r"],
            "oov_recall": 100 * s["oov_recall"], "iv_recall": 100 * s["iv_recall"],
            "oov_rate": 100 * s["oov_rate"]}


# ----------------------------------------------------------------- report


def markdown_section(report: Dict) -> str:
    lines = [
        "## Word segmentation: adf_segmenter vs spacy-pkuseg",
        "",
        f"`python -m benchmarks.segmentation` ({report['machine']['cpu']}, "
        f"{report['machine']['cores']} cores; spacy-pkuseg {report['machine'].get('spacy_pkuseg')}, "
        f"commit {report['machine']['git_commit']}). Both systems train on the same files; "
        "F, P, R and OOV recall use SIGHAN word matching (OOV = not a training word). "
        "Training times: seconds per pass as each tool logs it (adf: `spacy train`'s training "
        "time without evaluation, from `spacy_adf.TimingLogger.v1`; pkuseg: its `train-time(sec)`), "
        "and the whole training process (reading, features, all passes, its per-pass "
        "evaluation), with its peak RSS. Segmentation speed: characters/s, best of "
        f"{report['settings']['repeats']}.",
        "",
        "| data | system | F | P | R | OOV rec. | passes | s/pass | train total s | peak RSS MB | chars/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, res in report["results"].items():
        for system in ("adf", "pkuseg"):
            r = res.get(system)
            if not r:
                continue
            label = "adf_segmenter" if system == "adf" else "spacy-pkuseg"
            train = r.get("train", {})
            speed = fmt(r.get("chars_per_s_tokenizer", r.get("chars_per_s")), ",.0f")
            if system == "adf" and "chars_per_s_component" in r:
                speed += f" (component {fmt(r['chars_per_s_component'], ',.0f')})"
            if system == "pkuseg" and "chars_per_s_docs" in r:
                speed += f" (with Docs {fmt(r['chars_per_s_docs'], ',.0f')})"
            lines.append(
                f"| {res['title']} | {label} | {fmt(r['f'])} | {fmt(r['p'])} | {fmt(r['r'])} | "
                f"{fmt(r['oov_recall'])} | {train.get('passes', '(Weibo model)')} | "
                f"{fmt(train.get('mean_seconds_per_pass'), '.1f')} | "
                f"{fmt(train.get('train_wall_seconds'), '.0f')} | {fmt(train.get('peak_rss_mb'), '.0f')} | "
                f"{speed} |")
    lines += ["", "| data | F gain (adf - pkuseg) | s/pass ratio (adf / pkuseg) | speed ratio (adf tokenizer / pkuseg `cut`) | ... / pkuseg `cut` + Doc |",
              "|---|---|---|---|---|"]
    for name, res in report["results"].items():
        c = res.get("comparison", {})
        lines.append(f"| {res['title']} | {fmt(c.get('f_gain'), '+.2f')} | "
                     f"{fmt(c.get('seconds_per_pass_ratio'), '.3f')} | {fmt(c.get('speed_ratio'), '.1f')}x | "
                     f"{fmt(c.get('speed_ratio_docs'), '.1f')}x |")
    src = report["settings"].get("training_from")
    if src:
        lines += ["", f"Training figures (both systems) are those of the run recorded at commit "
                      f"{src['git_commit']}; the same trained models were re-scored and re-timed "
                      "in this run."]
    lines.append("")
    return "\n".join(lines) + "\n"


def compare(res: Dict) -> Dict:
    a, p = res["adf"], res["pkuseg"]
    out = {"f_gain": a["f"] - p["f"]}
    if "train" in a and "train" in p:
        out["seconds_per_pass_ratio"] = (a["train"]["mean_seconds_per_pass"]
                                         / max(p["train"]["mean_seconds_per_pass"], 1e-9))
    out["speed_ratio"] = a["chars_per_s_tokenizer"] / max(p["chars_per_s"], 1e-9)
    if "chars_per_s_docs" in p:
        out["speed_ratio_docs"] = a["chars_per_s_tokenizer"] / max(p["chars_per_s_docs"], 1e-9)
    return out


# ----------------------------------------------------------------- main


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--datasets", default="weibo,gsd,kwdlc", help="comma-separated; msr comes with weibo")
    p.add_argument("--limit", type=int, default=0, help="first N training sentences only (smoke runs)")
    p.add_argument("--eval-limit", type=int, default=0)
    p.add_argument("--epochs", type=int, default=0, help="override the configs' max_epochs")
    p.add_argument("--pkuseg-iters", type=int, default=20, help="spacy-pkuseg's own default is 20")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--workdir", type=Path, default=None)
    p.add_argument("--out-json", type=Path, default=DEFAULT_JSON)
    p.add_argument("--out-md", type=Path, default=DEFAULT_MD)
    p.add_argument("--reuse-training", type=Path, default=None,
                   help="a previous report JSON whose run trained the models now in --workdir: "
                        "skip training and re-measure segmentation only")
    return p.parse_args(argv)


def config_epochs(name: str) -> int:
    return epochs_of(REPO / DATASETS[name]["config"])


def main(argv=None) -> int:
    args = parse_args(argv)
    names = [n for n in args.datasets.split(",") if n]
    for n in names:
        if n not in DATASETS:
            raise SystemExit(f"unknown dataset {n!r}; choose from {sorted(DATASETS)}")
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_seg_"))
    workdir.mkdir(parents=True, exist_ok=True)
    report = {"machine": machine_info(), "settings": {
        "limit": args.limit, "eval_limit": args.eval_limit, "pkuseg_iters": args.pkuseg_iters,
        "repeats": args.repeats, "epochs": {n: args.epochs or config_epochs(n) for n in names}},
        "results": {}}
    data: Dict[str, Dict] = {}
    for n in names:
        spec = DATASETS[n]
        train = read_words(args.data / spec["train"], spec["format"], args.limit)
        dev = read_words(args.data / spec["dev"], spec["format"], args.eval_limit)
        gold = read_words(args.data / spec["eval"], spec["format"], args.eval_limit)
        job = workdir / n
        job.mkdir(exist_ok=True)
        data[n] = {
            "train": train, "gold": gold, "lexicon": lexicon_of(train),
            "train_file": write_sighan(job / "train.txt", train),
            "dev_file": write_sighan(job / "dev.txt", dev),
            "eval_file": write_sighan(job / "eval.txt", gold),
        }
        print(f"[{n}] train {len(train)} sentences, eval {len(gold)}", flush=True)

    trained: Dict[str, Dict] = {n: {} for n in names}
    if args.reuse_training is not None:
        if args.workdir is None:
            raise SystemExit("--reuse-training needs --workdir (the folder with the trained models)")
        prev = json.loads(args.reuse_training.read_text(encoding="utf8"))
        report["settings"]["training_from"] = {"json": str(args.reuse_training),
                                               "git_commit": prev["machine"]["git_commit"]}
        for n in names:
            for system in ("adf", "pkuseg"):
                trained[n][system] = prev["results"][n][system]["train"]
        names_to_train: List[str] = []
    else:
        names_to_train = names
    # --- training: pkuseg on the first dataset in a second process
    lane = None
    if names_to_train:
        first = names[0]
        log_path = workdir / first / "pkuseg-train.log"
        cmd = pkuseg_command(data[first]["train_file"], data[first]["eval_file"],
                             workdir / first / "pkuseg-model", args.pkuseg_iters)
        lane = (first, log_path, Child(cmd, log_path, cwd=workdir / first))
    for n in names_to_train:
        job = workdir / n / "adf"
        job.mkdir(exist_ok=True)
        epochs = args.epochs or config_epochs(n)
        # the same SIGHAN files as spacy-pkuseg (configs/seg_zh_gsd.cfg and
        # seg_ja_kwdlc.cfg read CoNLL-U / KNP directly, with the same settings)
        cmd = adf_command(n, data[n]["train_file"], data[n]["dev_file"], job, epochs,
                          len(data[n]["train"]))
        if DATASETS[n]["format"] == "knp":
            cmd += ["--corpora.train.@readers", "spacy_adf.SegmentedCorpus.v1",
                    "--corpora.dev.@readers", "spacy_adf.SegmentedCorpus.v1"]
        print(f"[{n}] adf: {shlex.join(cmd)}", flush=True)
        child = run_child(cmd, job / "train.log")
        trained[n]["adf"] = adf_result(child, job, epochs)
        trained[n]["adf"]["command"] = shlex.join(cmd)
    for n in names_to_train[1:]:
        log_path = workdir / n / "pkuseg-train.log"
        cmd = pkuseg_command(data[n]["train_file"], data[n]["eval_file"],
                             workdir / n / "pkuseg-model", args.pkuseg_iters)
        print(f"[{n}] pkuseg training", flush=True)
        child = run_child(cmd, log_path, cwd=workdir / n)
        trained[n]["pkuseg"] = pkuseg_result(child, log_path)
    if lane is not None:
        first, log_path, child = lane
        trained[first]["pkuseg"] = pkuseg_result(child.wait(), log_path)

    # --- segmentation: accuracy and speed, nothing else running
    import spacy

    for n in names:
        d = data[n]
        texts = ["".join(s) for s in d["gold"]]
        nlp = spacy.load(workdir / n / "adf" / "output" / "model-last")
        words, tok_speed, comp_speed, agree = adf_segment(nlp, texts, args.repeats)
        adf = dict(score(d["gold"], words, d["lexicon"]), train=trained[n]["adf"],
                   chars_per_s_tokenizer=tok_speed, chars_per_s_component=comp_speed,
                   forms_agree=agree)
        pk_words, pk_speed, pk_docs = pkuseg_segment(workdir / n / "pkuseg-model", texts, None,
                                                     args.repeats)
        pk = dict(score(d["gold"], pk_words, d["lexicon"]), train=trained[n]["pkuseg"],
                  chars_per_s=pk_speed, chars_per_s_docs=pk_docs)
        res = {"title": DATASETS[n]["title"], "adf": adf, "pkuseg": pk}
        res["comparison"] = compare(res)
        report["results"][n] = res
        print(f"[{n}] adf F {adf['f']:.2f} / pkuseg F {pk['f']:.2f}", flush=True)
        if n == "weibo":
            report["results"].update(bench_msr(args, workdir, nlp, d["lexicon"]))
    publish(report, args.out_json, args.out_md, NAME, markdown_section(report))
    return 0


def bench_msr(args, workdir: Path, nlp, lexicon: Set[str]) -> Dict:
    """The Weibo models on MSR test gold, without and with the MSR word list."""
    from spacy_adf.pipeline.segmenter import ADFSegmenter

    gold = read_words(args.data / MSR_GOLD, "segmented", args.eval_limit)
    texts = ["".join(s) for s in gold]
    words_file = args.data / MSR_WORDS
    out = {}
    for key, user_dict in (("msr", None), ("msr+dict", words_file)):
        if user_dict is not None:
            seg = next(p for _, p in nlp.pipeline if isinstance(p, ADFSegmenter))
            seg.load_user_dict(user_dict)
        words, tok_speed, comp_speed, agree = adf_segment(nlp, texts, args.repeats)
        adf = dict(score(gold, words, lexicon), chars_per_s_tokenizer=tok_speed,
                   chars_per_s_component=comp_speed, forms_agree=agree)
        pk_words, pk_speed, pk_docs = pkuseg_segment(workdir / "weibo" / "pkuseg-model", texts,
                                                     user_dict, args.repeats)
        pk = dict(score(gold, pk_words, lexicon), chars_per_s=pk_speed, chars_per_s_docs=pk_docs)
        title = "SIGHAN-2005 MSR test, Weibo model" + (", MSR words as user dict" if user_dict else "")
        res = {"title": title, "adf": adf, "pkuseg": pk}
        res["comparison"] = compare(res)
        out[key] = res
        print(f"[{key}] adf F {adf['f']:.2f} / pkuseg F {pk['f']:.2f}", flush=True)
    return out


if __name__ == "__main__":
    sys.exit(main())
