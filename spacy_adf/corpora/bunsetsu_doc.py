"""One bunsetsu dependency Doc from a sentence's token columns and bunsetsu
heads, with the readers' ``bad_heads`` policy (raise, repair or skip)."""
from collections import Counter
from typing import List, Optional, Tuple

from spacy.tokens import Doc
from spacy.vocab import Vocab

from ..lang.ja.bunsetsu import (BUNSETSU_KEY, check_bunsetsu_heads, repair_bunsetsu_heads, set_bunsetsu_tree,
                                token_owners)
from .reader_state import check_choice

BAD_HEADS_MODES = ("raise", "repair", "skip")


def make_bunsetsu_doc(
    vocab: Vocab,
    words: List[str],
    tags: List[str],
    pos: List[str],
    lemmas: List[str],
    morphs: List[str],
    bounds: List[Tuple[int, int]],
    heads: List[int],
    dep_types: List[str],
    sent_id: Optional[str],
    bad_heads: str,
    stats: Optional[Counter] = None,
) -> Optional[Doc]:
    """One sentence as a Doc (docs/corpora.md, "Bunsetsu dependency Docs"); None if
    skipped (``bad_heads``) or without words. ``stats`` counts each case."""
    check_choice("bad_heads", bad_heads, BAD_HEADS_MODES)
    stats = Counter() if stats is None else stats
    stats["sentences"] += 1
    if not words:
        stats["empty"] += 1
        return None
    problem = check_bunsetsu_heads(heads)
    if problem is not None:
        if not bounds and bad_heads != "skip":
            where = f"sentence {sent_id!r}" if sent_id else f"sentence {''.join(words)[:40]!r}"
            raise ValueError(f"{where}: no bunsetsu (a morpheme-only analysis?)")
        if bad_heads == "skip":
            stats["skipped"] += 1
            return None
        stats["repaired"] += 1
    doc = Doc(
        vocab, words=words, spaces=[False] * len(words), tags=tags, pos=pos, lemmas=lemmas, morphs=morphs
    )
    if sent_id:
        doc.user_data["sent_id"] = sent_id
    doc.spans[BUNSETSU_KEY] = [doc[start:end] for start, end in bounds]
    set_bunsetsu_tree(doc, heads, dep_types, repair=bad_heads == "repair", name=sent_id)
    stats["docs"] += 1
    return doc


def project_heads(
    gold_bounds: List[Tuple[int, int]], gold_heads: List[int], pred_bounds: List[Tuple[int, int]]
) -> List[int]:
    """Heads for predicted bunsetsu ``pred_bounds`` over the tokens of the gold
    bunsetsu ``gold_bounds`` / ``gold_heads`` (one sentence; the rule: docs/corpora.md)."""
    n_tokens = gold_bounds[-1][1] if gold_bounds else 0
    if not pred_bounds or pred_bounds[-1][1] != n_tokens or pred_bounds[0][0] != 0:
        raise ValueError(f"predicted bunsetsu {pred_bounds[:3]}... do not cover the {n_tokens} tokens of the gold ones")
    gold_of_token = token_owners(gold_bounds, n_tokens).tolist()
    pred_of_token = token_owners(pred_bounds, n_tokens).tolist()
    stands_for = [gold_of_token[b - 1] for _, b in pred_bounds]
    heads: List[int] = []
    for p, g in enumerate(stands_for):
        if p + 1 < len(pred_bounds) and stands_for[p + 1] == g:
            heads.append(p + 1)
        elif gold_heads[g] < 0:
            heads.append(-1)
        else:
            heads.append(pred_of_token[gold_bounds[gold_heads[g]][1] - 1])
    if check_bunsetsu_heads(heads) is not None:
        heads = repair_bunsetsu_heads(heads)
    return heads


def predicted_reference(reference: Doc, predicted: Doc, use_bunsetsu: bool = True) -> Doc:
    """The gold tokens of ``reference`` with the tags, POS, morphs and lemmas of
    ``predicted`` (jack-knifed) and, if ``use_bunsetsu``, its bunsetsu with the
    gold heads projected onto them (`project_heads`), else the gold ones."""
    words = [t.text for t in reference]
    if [t.text for t in predicted] != words:
        sid = reference.user_data.get("sent_id")
        raise ValueError(f"sentence {sid or reference.text[:40]!r}: the predicted Doc has other tokens than the "
                         "gold one; jack-knife over the gold words")
    gold = reference.spans[BUNSETSU_KEY]
    gold_bounds = [(s.start, s.end) for s in gold]
    gold_heads = list(gold.attrs["heads"])
    if use_bunsetsu:
        if BUNSETSU_KEY not in predicted.spans:
            raise ValueError(f"the predicted Doc has no doc.spans[{BUNSETSU_KEY!r}]: run the bunsetsu chunker")
        bounds = [(s.start, s.end) for s in predicted.spans[BUNSETSU_KEY]]
        heads = project_heads(gold_bounds, gold_heads, bounds)
        dep_types = None
    else:
        bounds, heads = gold_bounds, gold_heads
        dep_types = gold.attrs.get("dep_types")
    doc = Doc(
        reference.vocab, words=words, spaces=[bool(t.whitespace_) for t in reference],
        tags=[t.tag_ for t in predicted], pos=[t.pos_ or "X" for t in predicted],
        lemmas=[t.lemma_ for t in predicted], morphs=[str(t.morph) for t in predicted],
    )
    doc.user_data.update({k: v for k, v in reference.user_data.items() if k == "sent_id"})
    doc.spans[BUNSETSU_KEY] = [doc[a:b] for a, b in bounds]
    set_bunsetsu_tree(doc, heads, dep_types, repair=True)
    return doc
