"""Small synthetic Japanese-like dependency corpus in KNP format, for the
pke_dependency tests (made here, deterministic; not real Japanese).

Grammar: a sentence is a list of phrases followed by a final verb
bunsetsu. A phrase is a noun bunsetsu with a case particle (が, を, に),
which modifies the main verb, optionally preceded by "Nの" bunsetsu (each
modifies its right neighbour), or a relative clause "Nを Vる N<case>" where
the Nを modifies the adnominal verb, which modifies the next noun. Heads
therefore depend on the particle, the conjugation form and what lies
between: what the features see.
"""
import random
from typing import List, Tuple

NOUNS = ["本", "友達", "学校", "先生", "映画", "手紙", "公園", "電車", "写真", "料理"]
VERBS = ["読む", "書く", "見る", "送る", "作る"]
CASES = ["が", "を", "に"]


def _m(surface, pos, subpos="*", conj_type="*", conj_form="*"):
    return f"{surface} {surface} {surface} {pos} 1 {subpos} 1 {conj_type} 0 {conj_form} 0 NIL"


def sentence(rng: random.Random) -> Tuple[List[List[str]], List[int]]:
    """(bunsetsu as lists of morpheme lines, heads)."""
    bunsetsu: List[List[str]] = []
    heads: List[int] = []
    to_verb: List[int] = []  # bunsetsu that modify the final verb
    for _ in range(rng.randint(1, 3)):
        if rng.random() < 0.35:
            # relative clause: Nを Vる N<case>
            start = len(bunsetsu)
            bunsetsu.append([_m(rng.choice(NOUNS), "名詞", "普通名詞"), _m("を", "助詞", "格助詞")])
            verb = rng.choice(VERBS)
            bunsetsu.append([_m(verb, "動詞", "*", "子音動詞", "基本形")])
            bunsetsu.append([_m(rng.choice(NOUNS), "名詞", "普通名詞"), _m(rng.choice(CASES), "助詞", "格助詞")])
            heads += [start + 1, start + 2, None]
            to_verb.append(start + 2)
        else:
            for _ in range(rng.randint(0, 2)):
                k = len(bunsetsu)
                bunsetsu.append([_m(rng.choice(NOUNS), "名詞", "普通名詞"), _m("の", "助詞", "接続助詞")])
                heads.append(k + 1)
            k = len(bunsetsu)
            bunsetsu.append([_m(rng.choice(NOUNS), "名詞", "普通名詞"), _m(rng.choice(CASES), "助詞", "格助詞")])
            heads.append(None)
            to_verb.append(k)
        if rng.random() < 0.3:  # a comma after a phrase
            bunsetsu[-1].append(_m("、", "特殊", "読点"))
    final = len(bunsetsu)
    bunsetsu.append([_m(rng.choice(VERBS), "動詞", "*", "子音動詞", "基本形"), _m("。", "特殊", "句点")])
    heads.append(-1)
    for k in to_verb:
        heads[k] = final
    return bunsetsu, heads


def knp_text(n: int, seed: int = 0, prefix: str = "syn") -> str:
    rng = random.Random(seed)
    lines = []
    for s in range(n):
        bunsetsu, heads = sentence(rng)
        lines.append(f"# S-ID:{prefix}-{s} KNP:test")
        for morphs, head in zip(bunsetsu, heads):
            lines.append(f"* {head}D")
            lines.extend(morphs)
        lines.append("EOS")
    return "\n".join(lines) + "\n"


def corpus_examples(nlp, path):
    """Examples of a KNP file: gold references, predicted Docs with their
    words, POS and bunsetsu but no tree."""
    from spacy.training import Example

    from spacy_adf.corpora.bunsetsu import bunsetsu_docs, make_predicted

    return [Example(make_predicted(ref), ref) for ref in bunsetsu_docs(path, nlp.vocab)]
