"""Self-training corpora for word segmentation (``python -m spacy_adf
self-train-corpus``): the gold lines, then unlabeled lines segmented by a
trained segmenter, less any line of an excluded file (docs/components.md)."""
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence

import spacy
from spacy.language import Language

from ..command_line import command_parser
from ..serialization import text_lines

PROGRESS_SECONDS = 30.0


@dataclass
class SelfTrainingReport:
    gold_lines: int = 0
    unlabeled_lines: int = 0
    blank_lines: int = 0
    excluded_lines: int = 0
    autolabeled_lines: int = 0
    autolabeled_words: int = 0
    seconds: float = 0.0


def unspaced(line: str) -> str:
    """A line's text as a key: every whitespace character removed."""
    return "".join(line.split())


def read_lines(path: Path, what: str) -> List[str]:
    """The lines of a UTF-8 file (a BOM dropped); errors name the file's role."""
    path = text_lines.check_file(path, f"self-training: {what}", hint="")
    try:
        return [line for _, line in text_lines.read_lines(path)]
    except ValueError as err:  # names the file and its first bad line
        raise ValueError(f"self-training: {what} file {err}") from None


def write_self_training_corpus(
    nlp: Language,
    unlabeled: Path,
    gold: Path,
    output: Path,
    *,
    exclude: Sequence[Path] = (),
    batch_size: int = 256,
    log: Optional[Callable[[str], None]] = print,
) -> SelfTrainingReport:
    """Write ``gold``'s lines, then ``unlabeled``'s lines segmented by
    ``nlp``, one sentence a line with words separated by spaces (the format
    of ``spacy_adf.SegmentedCorpus.v1``)."""
    start = time.perf_counter()
    report = SelfTrainingReport()
    gold_lines = [line for line in read_lines(gold, "gold") if line.strip()]
    raw = read_lines(unlabeled, "unlabeled")
    # the unspaced lines of every excluded file (segmented or raw)
    drop = {unspaced(line) for path in exclude for line in read_lines(path, "exclude")} - {""}
    texts = []
    for line in raw:
        text = line.strip()
        if not text:
            report.blank_lines += 1
        elif unspaced(text) in drop:
            report.excluded_lines += 1
        else:
            texts.append(text)
    report.gold_lines = len(gold_lines)
    report.unlabeled_lines = len(raw)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    last = start
    with output.open("w", encoding="utf-8") as out:
        for line in gold_lines:
            out.write(line.strip() + "\n")
        for n, doc in enumerate(nlp.pipe(texts, batch_size=batch_size), 1):
            words = [t.text for t in doc if not t.is_space]
            if words:
                out.write(" ".join(words) + "\n")
                report.autolabeled_lines += 1
                report.autolabeled_words += len(words)
            now = time.perf_counter()
            if log is not None and now - last >= PROGRESS_SECONDS:
                log(f"[self-training] {n:,} of {len(texts):,} lines segmented ({now - start:.0f} s)")
                last = now
    report.seconds = time.perf_counter() - start
    if log is not None:
        log(f"[self-training] {report.gold_lines:,} gold lines + {report.autolabeled_lines:,} segmented "
            f"lines ({report.autolabeled_words:,} words; {report.excluded_lines:,} excluded, "
            f"{report.blank_lines:,} blank) -> {output} in {report.seconds:.1f} s")
    return report


def main(argv=None) -> int:
    # a command's arguments are declarations (alike in shape to jackknife's); command_parser holds what is shared
    parser = command_parser(
        "self-train-corpus", "A self-training corpus for a segmenter: the gold training lines, then the lines of "
        "UNLABELED segmented by MODEL (a trained segmenter pipeline or its tokenizer form). A line whose text is "
        "a line of an --exclude file (spaces ignored) is left out.")
    parser.add_argument("model", type=Path)
    parser.add_argument("unlabeled", type=Path)
    parser.add_argument("--gold", type=Path, required=True, help="the gold training file (one sentence a line, words separated by spaces)")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--exclude", type=Path, action="append", default=[],
                        help="a file whose lines must not be trained on (the dev set); repeatable")
    parser.add_argument("--report", type=Path, default=None, help="write the counts as JSON here")
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args(argv)
    if not Path(args.model).exists():
        parser.error(f"model not found: {args.model} (train the gold segmenter first)")
    nlp = spacy.load(args.model)
    report = write_self_training_corpus(nlp, args.unlabeled, args.gold, args.output, exclude=args.exclude,
                                        batch_size=args.batch_size)
    if args.report is not None:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        data = {"model": str(args.model), "unlabeled": str(args.unlabeled), "gold": str(args.gold),
                "exclude": [str(p) for p in args.exclude], **asdict(report)}
        args.report.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0
