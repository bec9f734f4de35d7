"""Feature strings of bunsetsu dependency decisions (Kudo & Matsumoto 2002), the
ids of parsing: `bunsetsu_fast.pyx`; docs/components.md, "Japanese dependency parsing"."""
from typing import Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from spacy.tokens import Doc, Span

from ..lang.ja.bunsetsu import bunsetsu_head_tokens
from ..lang.ja.pos import PUNCT_POS, PUNCT_UPOS

FEATURE_GROUPS = ("head", "function", "punct", "position", "distance", "between", "dynamic", "context",
                  "particles", "coordination")
BRACKET_SUBPOS = frozenset({"括弧始", "括弧終", "括弧開", "括弧閉"})
PARTICLE_POS = frozenset({"助詞", "ADP", "SCONJ", "PART"})
FIELD_NAMES = ("w", "p", "s", "ct", "cf")  # the `token_fields`, in feature strings
# the coordination strings, in the order the C parsers take their ids
COORDINATION_FEATURES = ("co.ij", "co.pj", "co.in")


def check_groups(groups: Iterable[str]) -> List[str]:
    groups = list(groups)
    unknown = [g for g in groups if g not in FEATURE_GROUPS]
    if unknown:
        raise ValueError(f"unknown bunsetsu feature groups {unknown}; choose from {list(FEATURE_GROUPS)}")
    if not groups:
        raise ValueError("at least one bunsetsu feature group is needed")
    return groups


def token_fields(token) -> Tuple[str, str, str, str, str]:
    """(surface, POS, sub-POS, conjugation type, conjugation form)."""
    m = token.morph.to_dict()
    pos = m.get("SrcPos") or token.pos_ or "-"
    sub = m.get("SrcSubPos") or token.tag_ or "-"
    return token.text, pos, sub, m.get("ConjType", "-"), m.get("ConjForm", "-")


def is_punct_token(fields, token) -> bool:
    return fields[1] in PUNCT_POS or (fields[1] == token.pos_ and token.pos_ in PUNCT_UPOS)


class Segment(NamedTuple):
    """The per-segment facts the features read."""

    mod: List[str]              # static features as modifier
    head: List[str]             # static features as head
    func: str                   # functional word surface ("-" if none)
    func_pos: str
    particle: Optional[str]     # the functional word if it is a particle
    puncts: List[str]
    brackets: bool
    word: str = ""              # the head word's surface (coordination)


class BunsetsuFeaturizer:
    """Feature strings for the cascaded-chunking decisions of one Doc."""

    def __init__(self, groups: Sequence[str] = FEATURE_GROUPS):
        self.groups = frozenset(check_groups(groups))

    def segments(self, doc: Doc, spans: Sequence[Span]) -> List[Segment]:
        g = self.groups
        out = []
        n = len(spans)
        heads = bunsetsu_head_tokens(doc, spans)
        # each token's fields once (reading token.morph is most of the cost)
        start = spans[0].start if n else 0
        fields = [token_fields(t) for t in doc[start:spans[-1].end]] if n else []
        for b, span in enumerate(spans):
            h = heads[b]
            hf = fields[h - start]
            func, puncts, brackets, last = None, [], False, None
            for token in span:
                f = fields[token.i - start]
                if is_punct_token(f, token):
                    puncts.append(f[0])
                    brackets = brackets or f[2] in BRACKET_SUBPOS
                else:
                    last = f
                    if token.i > h:
                        func = f
            static = []
            if "head" in g:
                static += ["h" + name + "=" + v for name, v in zip(FIELD_NAMES, hf)]
            if "function" in g:
                static += ["f" + name + "=" + v for name, v in zip(FIELD_NAMES, func or ("-",) * 5)]
                if last is not None:
                    static.append("lcf=" + last[4])
            if "punct" in g:
                static += ["pu=" + p for p in puncts]
                if brackets:
                    static.append("br")
                if not puncts:
                    static.append("pu=-")
            mod = ["m." + s for s in static]
            head = ["h." + s for s in static]
            if "position" in g:
                if b == 0:
                    mod.append("m.first")
                if b == n - 1:
                    head.append("h.last")
            if "context" in g:
                first, lastt = fields[span.start - start], fields[span.end - 1 - start]
                mod += ["m.last=" + lastt[0], "m.lp=" + lastt[2],
                        "m.pl=" + (spans[b - 1][-1].text if b > 0 else "BOS")]
                head += ["h.first=" + first[0], "h.fp=" + first[2], "h.lp=" + lastt[2]]
                if b + 1 < n:
                    nxt = spans[b + 1]
                    head += ["h.nf=" + nxt[0].text, "h.nh=" + doc[heads[b + 1]].text, "h.nl=" + nxt[-1].text]
                else:
                    head += ["h.nf=EOS", "h.nh=EOS", "h.nl=EOS"]
            if "particles" in g:
                for f in fields[span.start - start:span.end - start]:
                    if f[1] in PARTICLE_POS:
                        mod.append("m.pa=" + f[0])
                        head.append("h.pa=" + f[0])
            fw = func[0] if func else "-"
            fp = func[2] if func else "-"
            particle = fw if func and (func[1] in PARTICLE_POS) else None
            out.append(Segment(mod, head, fw, fp, particle, puncts, brackets, hf[0]))
        return out

    def pair(self, segs: List[Segment], i: int, j: int, children: Optional[List[List[int]]]) -> List[str]:
        """Feature strings of "does segment i modify segment j?"."""
        g = self.groups
        feats = segs[i].mod + self._head_side(segs, i, j, i)
        if "dynamic" in g and children is not None:
            for p, seg in (("da.", i), ("db.", j)):
                for c in children[seg]:
                    feats += [p + "fw=" + segs[c].func, p + "fs=" + segs[c].func_pos]
        return feats

    def game(self, segs: List[Segment], i: int, nearer: int, farther: int) -> Tuple[List[str], List[str]]:
        """Does segment i modify `farther` rather than `nearer`? `pair(i, nearer)` without dynamic
        features, and `farther` as head (other inputs: ids offset by the vocabulary's size)."""
        return self.pair(segs, i, nearer, None), self._head_side(segs, i, farther, nearer)

    def _head_side(self, segs: List[Segment], i: int, j: int, after: int) -> List[str]:
        """j as head, its distance from i and the segments strictly between `after` and j."""
        g = self.groups
        feats = list(segs[j].head)
        if "distance" in g:
            d = j - i
            feats.append("dist=1" if d == 1 else "dist=2-5" if d <= 5 else "dist=6+")
        if "between" in g:
            for k in range(after + 1, j):
                s = segs[k]
                if s.particle is not None:
                    feats.append("b.p=" + s.particle)
                for p in s.puncts:
                    feats.append("b.pu=" + p)
                if s.brackets:
                    feats.append("b.br")
        if "coordination" in g:
            feats += coordination(segs, i, j)
        return feats


def coordination(segs: List[Segment], i: int, j: int) -> List[str]:
    """The coordination strings of modifier i and head j (same head words)."""
    word = segs[i].word
    same = (word == segs[j].word, i > 0 and segs[i - 1].word == segs[j].word,
            j + 1 < len(segs) and word == segs[j + 1].word)
    return [name for name, hit in zip(COORDINATION_FEATURES, same) if hit]


class FeatureVocab:
    """Feature strings <-> dense ids [0, len); unknown strings are dropped at lookup."""

    def __init__(self, strings: Sequence[str] = ()):
        self.strings: List[str] = list(strings)
        self.ids: Dict[str, int] = {s: i for i, s in enumerate(self.strings)}
        if len(self.ids) != len(self.strings):
            raise ValueError("duplicate feature strings in the vocabulary")

    def __len__(self) -> int:
        return len(self.strings)

    @classmethod
    def from_counts(cls, counts: Dict[str, int], min_count: int = 1) -> "FeatureVocab":
        if min_count < 1:
            raise ValueError("min_count must be >= 1")
        kept = sorted((s for s, c in counts.items() if c >= min_count), key=lambda s: (-counts[s], s))
        return cls(kept)

    def lookup(self, feats: Iterable[str]) -> List[int]:
        ids = self.ids
        return sorted({ids[f] for f in feats if f in ids})
