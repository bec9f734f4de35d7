"""The training table of spacy_adf.TimingLogger.v1 on the console: spaCy's
console logger's rows, with headers shortened (never into two alike) until a
row fits 80 columns and a legend that spells them out (docs/training.md)."""
import re
from typing import IO, Any, Callable, Dict, List, Optional, Tuple

from spacy.pipeline import Pipe

WIDTH = 80
SPACING = 2
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def _without_spans(col: str) -> str:
    """A score column's name without ``spans_`` (the span key names it)."""
    return col[len("spans_"):] if col.lower().startswith("spans_") else col


def short_header(col: str) -> str:
    """A score column's full header: upper case, without ``spans_``."""
    return _without_spans(col).upper()


def name_parts(name: str) -> List[str]:
    """The upper-case parts of a name: split at "_" and at camelCase
    ("morph_SrcPos_acc" -> MORPH, SRC, POS, ACC)."""
    return [p.upper() for chunk in name.split("_") for p in _PART.findall(chunk)] or [name.upper()]


def _without_shared_ends(names: List[List[str]]) -> List[List[str]]:
    """Drop the leading and trailing parts every name shares (one part stays)."""
    if len(names) < 2:
        return names
    k = 0
    while all(len(n) > k + 1 for n in names) and len({n[k] for n in names}) == 1:
        k += 1
    names = [n[k:] for n in names]
    k = 0
    while all(len(n) > k + 1 for n in names) and len({n[-1 - k] for n in names}) == 1:
        k += 1
    return [n[:len(n) - k] for n in names]


def _widths(headers: List[str], minimum: List[int]) -> List[int]:
    return [max(len(h), m) for h, m in zip(headers, minimum)]


def _row_width(widths: List[int]) -> int:
    return sum(widths) + SPACING * (len(widths) - 1)


def _header_levels(loss_pipes: List[str], cols: List[str]) -> List[Tuple[List[str], List[str]]]:
    """(loss headers, score headers), from the full ones to the shortest."""
    levels = [([f"LOSS {p.upper()}" for p in loss_pipes], [short_header(c) for c in cols])]
    pipes = _without_shared_ends([name_parts(p) for p in loss_pipes])
    scores = _without_shared_ends([name_parts(_without_spans(c)) for c in cols])
    levels.append(([f"LOSS {'_'.join(p)}" for p in pipes], ["_".join(c) for c in scores]))
    for n in (4, 3, 2, 1):
        levels.append(([f"L {'_'.join(x[:n] for x in p)}" for p in pipes],
                       ["_".join(x[:n] for x in c) for c in scores]))
    return levels


def plan_columns(loss_pipes: List[str], score_weights: Dict[str, Optional[float]]
                 ) -> Tuple[List[str], List[str], List[int]]:
    """(score columns shown, headers, widths) of a table that fits WIDTH."""
    scores = [c for c, w in score_weights.items() if w is not None]

    def layout(cols: List[str], level: int = 0) -> Optional[Tuple[List[str], List[int]]]:
        losses, names = _header_levels(loss_pipes, cols)[level]
        headers = ["E", "#"] + losses + names + ["SCORE"]
        if len(set(headers)) < len(headers):
            return None  # shortening made two columns alike
        return headers, _widths(headers, _minimum(len(loss_pipes), len(cols)))

    headers, widths = layout(scores)
    zero = [c for c in scores if not score_weights[c]]
    while _row_width(widths) > WIDTH and zero:
        scores.remove(zero.pop())
        headers, widths = layout(scores)
    for level in range(1, 6):
        shorter = layout(scores, level) if _row_width(widths) > WIDTH else None
        if shorter is not None:
            shorter = _cut_to_fit(shorter[0], _minimum(len(loss_pipes), len(scores)))
        if shorter is not None:
            headers, widths = shorter
    while _row_width(widths) > WIDTH and max(widths) > 6:  # last resort: cut, even if two become alike
        cut = max(widths) - 1
        headers = [h[:cut] for h in headers]
        widths = _widths(headers, [min(w, cut) for w in widths])
    return scores, headers, widths


def _minimum(n_losses: int, n_scores: int) -> List[int]:
    """The widths the values need (E, #, losses, scores, SCORE)."""
    return [3, 6] + [8] * n_losses + [6] * n_scores + [6]


def _cut_to_fit(headers: List[str], minimum: List[int]) -> Optional[Tuple[List[str], List[int]]]:
    """The headers with the longest ones cut until the row fits, or None if
    that takes cutting two into one."""
    widths = _widths(headers, minimum)
    while _row_width(widths) > WIDTH:
        cut = max(len(h) for h in headers) - 1
        if cut < 4:
            return None
        headers = [h[:cut].rstrip("_ ") for h in headers]
        if len(set(headers)) < len(headers):
            return None
        widths = _widths(headers, minimum)
    return headers, widths


def legend(loss_pipes: List[str], scores: List[str], headers: List[str]) -> List[str]:
    """Lines that spell out every shortened header (none if none is)."""
    full = ["E", "#"] + [f"LOSS {p.upper()}" for p in loss_pipes] + [short_header(c) for c in scores] + ["SCORE"]
    names = ["E", "#"] + [f"loss of {p}" for p in loss_pipes] + list(scores) + ["SCORE"]
    pairs = [f"{h} = {n}" for h, f, n in zip(headers, full, names) if h != f]
    if not pairs:
        return []
    lines = ["Columns:"]
    for k, pair in enumerate(pairs):  # a pair is never broken over two lines
        piece = pair + (";" if k < len(pairs) - 1 else "")
        if len(lines[-1]) + 1 + len(piece) > WIDTH:
            lines.append(" ")
        lines[-1] += " " + piece
    return lines


def _row(values: List[str], widths: List[int], left: int) -> str:
    cells = [v.ljust(w) if i < left else v.rjust(w) for i, (v, w) in enumerate(zip(values, widths))]
    return (" " * SPACING).join(cells).rstrip()


def console_table(nlp, stdout: IO) -> Tuple[Callable[[Optional[Dict[str, Any]]], None], Callable[[], None]]:
    """(log_step, finalize) printing one row per evaluation, as spaCy's
    console logger does, for the trainable components' losses and the
    configured scores."""
    pipes = [name for name, proc in nlp.pipeline if isinstance(proc, Pipe) and proc.is_trainable]
    weights = dict(nlp.config["training"]["score_weights"])
    scores, headers, widths = plan_columns(pipes, weights)

    def write(text: str) -> None:
        print(text, file=stdout, flush=True)

    for line in legend(pipes, scores, headers):
        write(line)
    write(_row(headers, widths, len(headers)))
    write(_row(["-" * w for w in widths], widths, len(headers)))

    def log_step(info: Optional[Dict[str, Any]]) -> None:
        if info is None:
            return
        losses = [f"{float(info['losses'].get(p, 0.0)):.2f}" for p in pipes]
        values = []
        for col in scores:
            value = info["other_scores"].get(col, 0.0)
            try:
                value = float(value)
            except TypeError:
                raise ValueError(f"score {col!r} is a {type(value).__name__}, not a number") from None
            values.append(f"{value if col == 'speed' else 100 * value:.2f}")
        score = f"{100 * float(info['score']):.2f}"  # on the scale of the score columns
        write(_row([str(info["epoch"]), str(info["step"])] + losses + values + [score], widths, 0))

    return log_step, lambda: None
