"""Read brat standoff folders (``NAME.txt`` + ``NAME.ann``) into NER examples:
the entity checks and their reports, sentence splitting, alignment modes and
document folds are described in docs/corpora.md, "Brat standoff folders"."""
import logging
import re
import warnings
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.util import registry

from ..serialization.text_lines import PathLike, read_text
from .conll import parse_iob_target, set_spans
from .reader_state import check_choice

logger = logging.getLogger("spacy_adf.brat")

ALIGNMENT_MODES = ("strict", "contract", "expand", "split")
SENTENCE_MODES = ("rules", "lines", "none")
ISSUE_KINDS = (
    "bad_line", "out_of_range", "discontinuous", "text_mismatch", "crosses_line",
    "misaligned", "overlap",
)
_WS = re.compile(r"\s+")
_END_PUNCT = frozenset(".?!")
_OPENERS = frozenset("([{\"'`")
# Tokens before a period that do not end a sentence (lower-cased, no final ".").
ABBREVIATIONS = frozenset(
    "al e.g i.e vs cf fig figs ca approx no nos ref refs resp etc dr mr mrs ms st "
    "prof eq eqs vol viz sp spp var ed eds".split()
)


@dataclass
class BratEntity:
    doc_id: str
    ann_id: str
    label: str
    start: int
    end: int
    text: str
    line: int  # line number in the .ann file


@dataclass
class BratIssue:
    doc_id: str
    ann_id: str
    kind: str
    label: str
    start: int
    end: int
    text: str
    detail: str = ""

    def __str__(self) -> str:
        return (f"{self.doc_id} {self.ann_id} {self.kind}: {self.label} "
                f"[{self.start}, {self.end}) {self.text!r} {self.detail}").rstrip()


def parse_ann(
    text: str, ann: str, doc_id: str = "", *, discontinuous: str = "skip",
    mismatch: str = "skip",
) -> Tuple[List[BratEntity], List[BratIssue], Counter]:
    """Entities of one document, the issues found, and counts of skipped
    non-T lines by their first letter."""
    entities: List[BratEntity] = []
    issues: List[BratIssue] = []
    other: Counter = Counter()
    for lineno, raw in enumerate(ann.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        if not line.startswith("T"):
            other[line[0]] += 1
            continue
        parts = line.split("\t")
        if len(parts) < 2:
            issues.append(BratIssue(doc_id, "", "bad_line", "", -1, -1, line, f"line {lineno}"))
            continue
        ann_id, body = parts[0], parts[1]
        ent_text = "\t".join(parts[2:]) if len(parts) > 2 else ""
        label, _, offsets = body.partition(" ")
        try:
            pieces = [tuple(int(x) for x in piece.split()) for piece in offsets.split(";")]
            if not pieces or any(len(p) != 2 for p in pieces):
                raise ValueError
        except ValueError:
            issues.append(BratIssue(doc_id, ann_id, "bad_line", label, -1, -1, ent_text,
                                    f"line {lineno}: {body!r}"))
            continue
        start, end = pieces[0][0], pieces[-1][1]
        if len(pieces) > 1:
            issues.append(BratIssue(doc_id, ann_id, "discontinuous", label, start, end, ent_text,
                                    offsets + ("; kept as outer span" if discontinuous == "outer" else "")))
            if discontinuous != "outer":
                continue
            start, end = min(p[0] for p in pieces), max(p[1] for p in pieces)
        if not 0 <= start < end <= len(text):
            issues.append(BratIssue(doc_id, ann_id, "out_of_range", label, start, end, ent_text,
                                    f"text has {len(text)} characters"))
            continue
        if len(pieces) == 1 and _WS.sub(" ", text[start:end]).strip() != _WS.sub(" ", ent_text).strip():
            issues.append(BratIssue(doc_id, ann_id, "text_mismatch", label, start, end, ent_text,
                                    f"text slice is {text[start:end]!r}"))
            if mismatch != "keep":
                continue
        entities.append(BratEntity(doc_id, ann_id, label, start, end, ent_text, lineno))
    return entities, issues, other


def _tokens(nlp, line: str) -> List[Tuple[int, int, bool]]:
    """(start, end, is_space) char offsets of `nlp.make_doc(line)`'s tokens."""
    doc = nlp.make_doc(line)
    return [(t.idx, t.idx + len(t.text), t.is_space) for t in doc]


def _cut_tokens(tokens: List[Tuple[int, int, bool]], cuts: Iterable[int]) -> List[Tuple[int, int, bool]]:
    cuts = sorted(set(cuts))
    if not cuts:
        return tokens
    out = []
    k = 0
    for start, end, sp in tokens:
        while k < len(cuts) and cuts[k] <= start:
            k += 1
        s = start
        while k < len(cuts) and cuts[k] < end:
            out.append((s, cuts[k], sp))
            s = cuts[k]
            k += 1
        out.append((s, end, sp))
    return out


def _sentence_starts(line: str, tokens, ent_tok_spans, mode: str) -> List[int]:
    """Token indices where sentences start (always including 0)."""
    starts = [0]
    if mode != "rules" or not tokens:
        return starts
    inside = [False] * (len(tokens) + 1)  # inside[i]: an entity spans tokens i-1 and i
    for s, e in ent_tok_spans:
        inside[s + 1:e] = [True] * (e - s - 1)
    words = [line[s:e] for s, e, _ in tokens]
    for i in range(len(tokens) - 1):
        w = words[i]
        if w not in _END_PUNCT:
            continue
        nxt = i + 1
        if tokens[nxt][0] == tokens[i][1]:  # no whitespace after the period
            continue
        while nxt < len(tokens) and tokens[nxt][2]:
            nxt += 1
        if nxt >= len(tokens):
            break
        first = words[nxt][:1]
        if not (first.isupper() or first.isdigit() or first in _OPENERS):
            continue
        if i > 0 and tokens[i - 1][1] == tokens[i][0] and words[i - 1].lower() in ABBREVIATIONS:
            continue
        if any(inside[j] for j in range(i + 1, nxt + 1)):
            continue
        starts.append(nxt)
    return starts


def _check_options(alignment_mode, sentences, discontinuous, mismatch, n_folds, fold, part):
    choices = {"alignment_mode": (alignment_mode, ALIGNMENT_MODES), "sentences": (sentences, SENTENCE_MODES),
               "discontinuous": (discontinuous, ("skip", "outer")), "mismatch": (mismatch, ("skip", "keep")),
               "part": (part, ("all", "train", "heldout"))}
    for name, (value, allowed) in choices.items():
        check_choice(name, value, allowed)
    if n_folds < 1 or not 0 <= fold < n_folds:
        raise ValueError(f"need n_folds >= 1 and 0 <= fold < n_folds, got {n_folds}, {fold}")
    if part != "all" and n_folds < 2:
        raise ValueError(f"part={part!r} needs n_folds >= 2")


@registry.readers("spacy_adf.BratCorpus.v1")
class BratCorpus:
    """Callable reader: ``corpus(nlp)`` yields one Example per sentence."""

    def __init__(
        self,
        path: Optional[PathLike],
        *,
        alignment_mode: str = "strict",
        sentences: str = "rules",
        discontinuous: str = "skip",
        mismatch: str = "skip",
        iob_target: str = "ents",
        keep_labels: Optional[List[str]] = None,
        n_folds: int = 1,
        fold: int = 0,
        part: str = "all",
        limit: int = 0,
        warn: bool = True,
    ) -> None:
        if path is None or not Path(path).exists():
            raise ValueError(
                f"brat corpus folder not found: {str(path)!r}. Pass it on the command line "
                "(e.g. --paths.jnlpba /path/to/jnlpba) or set it in the [paths] section."
            )
        _check_options(alignment_mode, sentences, discontinuous, mismatch, n_folds, fold, part)
        self.path = Path(path)
        self.alignment_mode = alignment_mode
        self.sentences = sentences
        self.discontinuous = discontinuous
        self.mismatch = mismatch
        self.span_key = parse_iob_target(iob_target)
        self.keep_labels = None if keep_labels is None else frozenset(keep_labels)
        self.n_folds, self.fold, self.part = n_folds, fold, part
        self.limit = limit
        self.warn = warn
        self._warned = False
        self.last_issues: List[BratIssue] = []
        self.last_stats: Dict[str, int] = {}

    def documents(self) -> List[Path]:
        if self.path.is_file():
            docs = [self.path] if self.path.suffix == ".txt" else []
        else:
            docs = sorted(self.path.glob("*.txt"), key=lambda p: p.name)
        if self.part == "all":
            return docs
        keep_heldout = self.part == "heldout"
        return [p for k, p in enumerate(docs) if (k % self.n_folds == self.fold) == keep_heldout]

    def _iter(self, nlp) -> Iterator[Tuple[Doc, Doc]]:
        issues: List[BratIssue] = []
        stats: Counter = Counter()
        count = 0
        for txt_path in self.documents():
            doc_id = txt_path.stem
            text = read_text(txt_path)
            ann_path = txt_path.with_suffix(".ann")
            if ann_path.exists():
                ann = read_text(ann_path)
            else:
                ann = ""
                stats["txt_without_ann"] += 1
            ents, doc_issues, other = parse_ann(text, ann, doc_id, discontinuous=self.discontinuous,
                                                mismatch=self.mismatch)
            stats["documents"] += 1
            stats["t_lines"] += sum(1 for line in ann.splitlines() if line.startswith("T"))
            for k, v in other.items():
                stats[f"skipped_{k}_lines"] += v
            issues.extend(doc_issues)
            for predicted, reference in self._read_document(nlp, doc_id, text, ents, issues):
                if self.limit and count >= self.limit:
                    break
                stats["sentences"] += 1
                stats["tokens"] += len(reference)
                stats["entities_out"] += len(reference.ents) if self.span_key is None else len(reference.spans[self.span_key])
                count += 1
                yield predicted, reference
            if self.limit and count >= self.limit:
                break
        for issue in issues:
            stats[f"issue_{issue.kind}"] += 1
        # entities that reached the output with exactly their annotated tokens
        stats["entities_exact"] = stats["entities_out"] - sum(
            1 for i in issues if i.kind == "misaligned" and "dropped" not in i.detail)
        self.last_issues = issues
        self.last_stats = dict(stats)
        if self.warn and not self._warned:
            self._warned = True
            summary = summarize_issues(issues, self.last_stats)
            if issues:
                logger.warning(summary)
                warnings.warn(summary, stacklevel=2)

    def _read_document(self, nlp, doc_id: str, text: str, entities: List[BratEntity],
                       issues: List[BratIssue]) -> Iterator[Tuple[Doc, Doc]]:
        """One document's text + entities as sentence Doc pairs."""
        if self.keep_labels is not None:
            entities = [e for e in entities if e.label in self.keep_labels]
        # (start, end) of each line, newline excluded
        if self.sentences == "none":
            lines = [(0, len(text))]
        else:
            lines, pos = [], 0
            for piece in text.split("\n"):
                lines.append((pos, pos + len(piece)))
                pos += len(piece) + 1
        by_line: Dict[int, List[BratEntity]] = {}
        li = 0
        for ent in sorted(entities, key=lambda e: (e.start, e.end)):
            s, e = ent.start, ent.end
            # trim whitespace inside the span
            while s < e and text[s].isspace():
                s += 1
            while e > s and text[e - 1].isspace():
                e -= 1
            while li < len(lines) and lines[li][1] < s:
                li += 1
            if li == len(lines) or not (lines[li][0] <= s and e <= lines[li][1]):
                issues.append(BratIssue(doc_id, ent.ann_id, "crosses_line", ent.label,
                                        ent.start, ent.end, ent.text))
                continue
            by_line.setdefault(li, []).append(replace(ent, start=s, end=e))
        for li, (lstart, lend) in enumerate(lines):
            line = text[lstart:lend]
            if not line.strip():
                continue
            yield from self._read_line(nlp, doc_id, line, lstart, by_line.get(li, []), issues)

    def _read_line(self, nlp, doc_id, line, offset, ents, issues):
        tokens = _tokens(nlp, line)
        local = [(e, e.start - offset, e.end - offset) for e in ents]
        if self.alignment_mode == "split":
            bounds = {b for _, s, e in local for b in (s, e)}
            tokens = _cut_tokens(tokens, bounds)
        starts = {s: i for i, (s, _, _) in enumerate(tokens)}
        ends = {e: i + 1 for i, (_, e, _) in enumerate(tokens)}
        aligned = []  # (tok_start, tok_end, entity)
        for ent, s, e in local:
            ts, te = starts.get(s), ends.get(e)
            if ts is not None and te is not None:
                aligned.append((ts, te, ent))
                continue
            covering = [i for i, (a, b, _) in enumerate(tokens) if a < e and b > s]
            inner = [i for i, (a, b, _) in enumerate(tokens) if a >= s and b <= e]
            toks = " ".join(repr(line[tokens[i][0]:tokens[i][1]]) for i in covering)
            if self.alignment_mode == "expand" and covering:
                span = (covering[0], covering[-1] + 1)
            elif self.alignment_mode == "contract" and inner:
                span = (inner[0], inner[-1] + 1)
            else:
                span = None
            action = ("dropped" if span is None
                      else f"{self.alignment_mode}ed to {line[tokens[span[0]][0]:tokens[span[1] - 1][1]]!r}")
            issues.append(BratIssue(doc_id, ent.ann_id, "misaligned", ent.label, ent.start, ent.end,
                                    ent.text, f"tokens {toks}; {action}"))
            if span is not None:
                aligned.append((span[0], span[1], ent))
        # overlaps: keep the longest, then earliest start, then earliest .ann line
        aligned.sort(key=lambda x: (-(x[1] - x[0]), x[0], x[2].line))
        taken = [False] * len(tokens)
        kept = []
        for ts, te, ent in aligned:
            if any(taken[ts:te]):
                other = next(k for k in kept if k[0] < te and ts < k[1])[2]
                issues.append(BratIssue(doc_id, ent.ann_id, "overlap", ent.label, ent.start, ent.end,
                                        ent.text, f"overlaps {other.ann_id} {other.label} {other.text!r}; dropped"))
                continue
            taken[ts:te] = [True] * (te - ts)
            kept.append((ts, te, ent))
        kept.sort(key=lambda x: x[0])
        sent_starts = _sentence_starts(line, tokens, [(a, b) for a, b, _ in kept], self.sentences)
        k = 0
        for a, end in zip(sent_starts, sent_starts[1:] + [len(tokens)]):
            sent_ents = []
            while k < len(kept) and kept[k][0] < end:
                sent_ents.append(kept[k])
                k += 1
            # drop trailing/leading whitespace-only tokens of a sentence
            b = end
            while a < b and tokens[a][2]:
                a += 1
            while b > a and tokens[b - 1][2]:
                b -= 1
            if a < b:
                yield self._make_docs(nlp.vocab, line, tokens[a:b], a, sent_ents)

    def _make_docs(self, vocab, line, tokens, first, ents):
        words = [line[s:e] for s, e, _ in tokens]
        # spaCy keeps a single space as token.whitespace_; more is a token
        spaces = [nxt[0] > cur[1] for cur, nxt in zip(tokens, tokens[1:])] + [False]
        reference = Doc(vocab, words=words, spaces=spaces)
        set_spans(reference, [Span(reference, ts - first, te - first, label=ent.label) for ts, te, ent in ents],
                  self.span_key)
        predicted = Doc(vocab, words=words, spaces=spaces)
        return predicted, reference

    def __call__(self, nlp) -> Iterator[Example]:
        for predicted, reference in self._iter(nlp):
            yield Example(predicted, reference)

    def issues(self, nlp) -> List[BratIssue]:
        """The full list of issues of one complete read."""
        for _ in self._iter(nlp):
            pass
        return list(self.last_issues)


def summarize_issues(issues: Sequence[BratIssue], stats: Optional[Dict[str, int]] = None,
                     n_examples: int = 5) -> str:
    counts = Counter(i.kind for i in issues)
    head = "brat corpus: " + (", ".join(f"{k}={stats[k]}" for k in
                                         ("documents", "t_lines", "entities_out", "entities_exact", "sentences")
                                         if stats and k in stats))
    lines = [head, f"{len(issues)} entity issue(s): " +
             (", ".join(f"{k} {counts[k]}" for k in ISSUE_KINDS if counts[k]) or "none")]
    for kind in ISSUE_KINDS:
        lines.extend(f"  {ex}" for ex in [i for i in issues if i.kind == kind][:n_examples])
    if issues:
        lines.append("  (BratCorpus.issues(nlp) / read_brat_issues(...) return the full list)")
    return "\n".join(lines)


def read_brat_issues(nlp, path: PathLike, **kwargs) -> List[BratIssue]:
    """Every entity issue of the brat folder `path` (options as BratCorpus)."""
    return BratCorpus(path, **{"warn": False, **kwargs}).issues(nlp)
