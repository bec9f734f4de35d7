"""Word segmentation scores with SIGHAN semantics: a predicted word is correct if
a gold word covers exactly the same characters, whitespace ignored; recall on
words outside (OOV) and inside (IV) a lexicon, usually the training words."""
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from spacy.util import registry


def _scored_words(words: Sequence[str]) -> List[str]:
    """The words without their whitespace, whitespace-only words dropped."""
    return [w for w in ("".join(word.split()) for word in words) if w]


def word_spans(words: Sequence[str]) -> List[Tuple[int, int]]:
    """Character offsets (ignoring whitespace) of each non-space word."""
    out = []
    pos = 0
    for w in _scored_words(words):
        out.append((pos, pos + len(w)))
        pos += len(w)
    return out


def segmentation_prf(
    gold: Iterable[Sequence[str]],
    pred: Iterable[Sequence[str]],
    lexicon: Optional[Set[str]] = None,
) -> Dict[str, float]:
    """P/R/F over all sentences (one word sequence each), plus OOV and IV recall
    if a lexicon is given; ValueError if a sentence's characters differ."""
    tp = n_gold = n_pred = 0
    oov_total = oov_hit = iv_total = iv_hit = 0
    for k, (g, p) in enumerate(zip(gold, pred)):
        g_words = _scored_words(g)
        if "".join(g_words) != "".join(_scored_words(p)):
            raise ValueError(f"sentence {k}: gold and predicted characters differ")
        g_spans = word_spans(g)
        p_set = set(word_spans(p))
        n_gold += len(g_spans)
        n_pred += len(p_set)
        for span, word in zip(g_spans, g_words):
            hit = span in p_set
            tp += hit
            if lexicon is not None:
                if word in lexicon:
                    iv_total += 1
                    iv_hit += hit
                else:
                    oov_total += 1
                    oov_hit += hit
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    out = {"token_p": p, "token_r": r, "token_f": 2 * p * r / (p + r) if p + r else 0.0}
    if lexicon is not None:
        out["oov_recall"] = oov_hit / oov_total if oov_total else 0.0
        out["iv_recall"] = iv_hit / iv_total if iv_total else 0.0
        out["oov_rate"] = oov_total / n_gold if n_gold else 0.0
    return out


def doc_words(doc) -> List[str]:
    """The non-whitespace tokens of a Doc, as a word list."""
    return [t.text for t in doc if not t.is_space]


def segmentation_score(examples, *, lexicon: Optional[Set[str]] = None, **kwargs) -> Dict[str, float]:
    """`segmentation_prf` of the predicted Docs against the references (whitespace tokens ignored)."""
    examples = list(examples)
    return segmentation_prf(
        (doc_words(eg.reference) for eg in examples),
        (doc_words(eg.predicted) for eg in examples),
        lexicon,
    )


def boundary_accuracy(gold: Iterable[Sequence[str]], pred: Iterable[Sequence[str]]) -> float:
    """The share of gaps between adjacent non-whitespace characters labelled right (word boundary
    or not; Kudo & Matsumoto 2003); ValueError if a sentence's characters differ."""
    right = total = 0
    for k, (g, p) in enumerate(zip(gold, pred)):
        g_spans, p_spans = word_spans(g), word_spans(p)
        n = g_spans[-1][1] if g_spans else 0
        if n != (p_spans[-1][1] if p_spans else 0):
            raise ValueError(f"sentence {k}: gold and predicted characters differ")
        if n < 2:
            continue
        g_ends = {e for _, e in g_spans}
        p_ends = {e for _, e in p_spans}
        total += n - 1
        right += n - 1 - len((g_ends ^ p_ends) - {n})
    return right / total if total else 0.0


def segmentation_boundary_score(examples, **kwargs) -> Dict[str, float]:
    """`segmentation_score` plus ``boundary_acc`` (`boundary_accuracy`)."""
    examples = list(examples)
    out = segmentation_score(examples, **kwargs)
    out["boundary_acc"] = boundary_accuracy((doc_words(eg.reference) for eg in examples),
                                            (doc_words(eg.predicted) for eg in examples))
    return out


@registry.scorers("spacy_adf.segmentation_scorer.v1")
def make_segmentation_scorer(boundaries: bool = False):
    """Word P/R/F (`segmentation_score`); with ``boundaries``, also ``boundary_acc``."""
    return segmentation_boundary_score if boundaries else segmentation_score
