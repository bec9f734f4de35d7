"""The training table of spacy_adf.TimingLogger.v1 on the console: the rows
of spaCy's console logger with headers that stay readable within 80
columns.

spaCy cuts every header to 13 characters ("SPANS_CHUN...", "MORPH_CONJ..."),
which hides which score a column is. Here a header drops the ``spans_``
prefix (the span key names the column), long ones keep the first letters of
each part ("MORPH_CONJFORM_ACC" -> "MORP_CONJ_ACC"), and when the row is still
wider than 80 columns the score columns that do not count towards SCORE
(weight 0) go first, then the remaining headers are cut without an ellipsis.
SCORE (the weighted main score) is printed x 100, like the score columns.
"""
from typing import IO, Any, Callable, Dict, List, Optional, Tuple

from spacy.pipeline import Pipe

WIDTH = 80
SPACING = 2
MAX_HEADER = 12


def short_header(col: str) -> str:
    name = col.upper()
    if name.startswith("SPANS_"):
        name = name[len("SPANS_"):]
    if len(name) > MAX_HEADER:
        name = "_".join(part[:4] for part in name.split("_"))
    return name


def _widths(headers: List[str], minimum: List[int]) -> List[int]:
    return [max(len(h), m) for h, m in zip(headers, minimum)]


def _row_width(widths: List[int]) -> int:
    return sum(widths) + SPACING * (len(widths) - 1)


def plan_columns(loss_pipes: List[str], score_weights: Dict[str, Optional[float]]
                 ) -> Tuple[List[str], List[str], List[int]]:
    """(score columns shown, headers, widths) of a table that fits WIDTH."""
    scores = [c for c, w in score_weights.items() if w is not None]

    def layout(cols: List[str]) -> Tuple[List[str], List[int]]:
        headers = ["E", "#"] + [f"LOSS {p.upper()}" for p in loss_pipes] + [short_header(c) for c in cols] + ["SCORE"]
        minimum = [3, 6] + [8] * len(loss_pipes) + [6] * len(cols) + [6]
        return headers, _widths(headers, minimum)

    headers, widths = layout(scores)
    zero = [c for c in scores if not score_weights[c]]
    while _row_width(widths) > WIDTH and zero:
        scores.remove(zero.pop())
        headers, widths = layout(scores)
    while _row_width(widths) > WIDTH and max(widths) > 6:
        cut = max(widths) - 1
        headers = [h[:cut] for h in headers]
        widths = _widths(headers, [min(w, cut) for w in widths])
    return scores, headers, widths


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
