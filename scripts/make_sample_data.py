"""Write the project's small synthetic sample corpora.

Everything here is generated from a hand-written English vocabulary and a
small probabilistic phrase grammar; nothing is derived from a real corpus.
The output is deterministic for a given ``--seed`` (string-seeded
``random.Random`` streams, no hash-order dependence).

Files written under ``--out-dir`` (default: ``assets/`` in the repo):

* ``sample_chunking/train.txt``, ``sample_chunking/dev.txt``: CoNLL-2000
  format, one ``word POS chunk`` line per token (Penn Treebank POS tags,
  B-/I- chunk tags for NP, VP, PP, ADJP, ADVP, SBAR; O for punctuation and
  for conjunctions between chunks), a blank line after each sentence. Chunking
  follows CoNLL-2000 conventions: auxiliaries, ``not`` and ``to`` + verb sit
  inside the VP chunk; ``'s`` starts a new NP; coordinated plural nouns form
  one NP; relative ``that``/``which`` is an NP; an adverb before a finite
  verb is its own ADVP. Ambiguity that makes the task non-trivial: words
  that are nouns or verbs (``plans``, ``reports``, ``cut``), ``after``/
  ``before``/``since`` as PP or SBAR depending on whether a clause follows,
  ``that`` as DT, IN or WDT, adjectives in an NP or as a predicative ADJP,
  participles as adjectives, adjacent NPs after ditransitive verbs. A small
  fraction of the noun/verb-ambiguous words (``--pos-noise``, default 0.03)
  get the other POS tag, like a tagger's errors, so POS alone does not
  decide the chunk.
* ``sample_ner/train.tsv``, ``sample_ner/dev.tsv``: IOB2 ``word<TAB>tag``
  lines with PER, ORG and LOC entities, a blank line after each sentence.
  Person, place and organisation names are invented from syllables; a fifth
  of each name pool appears only in dev, so dev has unseen names.

By default 600 train and 150 dev sentences for each task (well under
300 KB in total).

Usage: python -m scripts.make_sample_data [--n-train 600] [--n-dev 150]
       [--seed 0] [--out-dir assets] [--pos-noise 0.03]
"""
import argparse
import random
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

Token = Tuple[str, str]  # (word, POS)
Chunk = Tuple[Optional[str], List[Token]]  # (label or None for O, tokens)

DEFAULT_OUT = Path(__file__).resolve().parent.parent / "assets"

# --------------------------------------------------------------------------
# Vocabulary for the chunking grammar
# --------------------------------------------------------------------------

# Nouns: (singular, plural). The first group are also verbs below.
NV_NOUNS = [
    ("plan", "plans"), ("report", "reports"), ("change", "changes"),
    ("increase", "increases"), ("offer", "offers"), ("visit", "visits"),
    ("cost", "costs"), ("cut", "cuts"), ("study", "studies"),
    ("control", "controls"), ("demand", "demands"), ("export", "exports"),
    ("review", "reviews"), ("test", "tests"), ("record", "records"),
    ("building", "buildings"), ("meeting", "meetings"), ("opening", "openings"),
]
PLAIN_NOUNS = [
    ("company", "companies"), ("market", "markets"), ("board", "boards"),
    ("manager", "managers"), ("price", "prices"), ("budget", "budgets"),
    ("factory", "factories"), ("bank", "banks"), ("city", "cities"),
    ("council", "councils"), ("farmer", "farmers"), ("teacher", "teachers"),
    ("river", "rivers"), ("bridge", "bridges"), ("contract", "contracts"),
    ("project", "projects"), ("school", "schools"), ("worker", "workers"),
    ("engineer", "engineers"), ("island", "islands"), ("village", "villages"),
    ("museum", "museums"), ("storm", "storms"), ("letter", "letters"),
    ("machine", "machines"), ("driver", "drivers"), ("student", "students"),
    ("garden", "gardens"), ("agency", "agencies"), ("wage", "wages"),
    ("tax", "taxes"), ("loan", "loans"), ("train", "trains"), ("ship", "ships"),
    ("book", "books"), ("system", "systems"), ("product", "products"),
    ("customer", "customers"), ("official", "officials"), ("rule", "rules"),
]
ALL_NOUNS = NV_NOUNS + PLAIN_NOUNS
# Nouns that read well as the first part of a compound ("the budget plan").
MODIFIER_NOUNS = [
    "budget", "city", "export", "school", "bank", "river", "tax", "test",
    "market", "factory", "contract", "record", "farm", "water", "power",
]

# Verbs: (VB, VBZ, VBD, VBN, VBG, class). Classes: t = transitive,
# i = intransitive, d = ditransitive, s = takes a clause (say-verbs).
VERBS = [
    ("plan", "plans", "planned", "planned", "planning", "t"),
    ("report", "reports", "reported", "reported", "reporting", "s"),
    ("change", "changes", "changed", "changed", "changing", "t"),
    ("increase", "increases", "increased", "increased", "increasing", "t"),
    ("offer", "offers", "offered", "offered", "offering", "d"),
    ("visit", "visits", "visited", "visited", "visiting", "t"),
    ("cut", "cuts", "cut", "cut", "cutting", "t"),
    ("study", "studies", "studied", "studied", "studying", "t"),
    ("control", "controls", "controlled", "controlled", "controlling", "t"),
    ("demand", "demands", "demanded", "demanded", "demanding", "t"),
    ("export", "exports", "exported", "exported", "exporting", "t"),
    ("review", "reviews", "reviewed", "reviewed", "reviewing", "t"),
    ("test", "tests", "tested", "tested", "testing", "t"),
    ("record", "records", "recorded", "recorded", "recording", "t"),
    ("build", "builds", "built", "built", "building", "t"),
    ("meet", "meets", "met", "met", "meeting", "t"),
    ("open", "opens", "opened", "opened", "opening", "t"),
    ("buy", "buys", "bought", "bought", "buying", "t"),
    ("sell", "sells", "sold", "sold", "selling", "t"),
    ("approve", "approves", "approved", "approved", "approving", "t"),
    ("reject", "rejects", "rejected", "rejected", "rejecting", "t"),
    ("hire", "hires", "hired", "hired", "hiring", "t"),
    ("close", "closes", "closed", "closed", "closing", "t"),
    ("raise", "raises", "raised", "raised", "raising", "t"),
    ("reduce", "reduces", "reduced", "reduced", "reducing", "t"),
    ("improve", "improves", "improved", "improved", "improving", "t"),
    ("win", "wins", "won", "won", "winning", "t"),
    ("find", "finds", "found", "found", "finding", "t"),
    ("repair", "repairs", "repaired", "repaired", "repairing", "t"),
    ("give", "gives", "gave", "given", "giving", "d"),
    ("send", "sends", "sent", "sent", "sending", "d"),
    ("show", "shows", "showed", "shown", "showing", "d"),
    ("promise", "promises", "promised", "promised", "promising", "d"),
    ("fall", "falls", "fell", "fallen", "falling", "i"),
    ("rise", "rises", "rose", "risen", "rising", "i"),
    ("grow", "grows", "grew", "grown", "growing", "i"),
    ("arrive", "arrives", "arrived", "arrived", "arriving", "i"),
    ("wait", "waits", "waited", "waited", "waiting", "i"),
    ("agree", "agrees", "agreed", "agreed", "agreeing", "i"),
    ("collapse", "collapses", "collapsed", "collapsed", "collapsing", "i"),
    ("work", "works", "worked", "worked", "working", "i"),
    ("say", "says", "said", "said", "saying", "s"),
    ("believe", "believes", "believed", "believed", "believing", "s"),
    ("think", "thinks", "thought", "thought", "thinking", "s"),
    ("argue", "argues", "argued", "argued", "arguing", "s"),
    ("expect", "expects", "expected", "expected", "expecting", "s"),
]
# Verbs that take "to" + verb inside the same VP chunk.
CATENATIVE = [v for v in VERBS if v[0] in ("plan", "want", "hope", "expect", "agree", "promise")]
CATENATIVE += [
    ("want", "wants", "wanted", "wanted", "wanting", "c"),
    ("hope", "hopes", "hoped", "hoped", "hoping", "c"),
]
TRANSITIVE = [v for v in VERBS if v[5] in "td"]
INTRANSITIVE = [v for v in VERBS if v[5] == "i"]
DITRANSITIVE = [v for v in VERBS if v[5] == "d"]
SAY_VERBS = [v for v in VERBS if v[5] == "s"]
# Participles that also work as adjectives inside an NP.
PARTICIPLE_ADJS = ["closed", "reduced", "improved", "expected", "planned", "rising", "growing"]

ADJS = [
    "new", "large", "small", "old", "strong", "weak", "local", "national",
    "annual", "final", "recent", "major", "important", "difficult", "quiet",
    "cheap", "expensive", "public", "private", "early", "simple", "careful",
]
PRED_ADJS = [
    "happy", "ready", "busy", "likely", "difficult", "expensive", "quiet",
    "strong", "weak", "cheap", "important", "careful", "early", "open",
]
COMPARATIVES = ["higher", "lower", "stronger", "cheaper", "larger", "weaker"]
DEGREE = ["very", "quite", "rather", "too"]
PRE_VERB_ADVS = ["also", "still", "often", "recently", "never", "already", "probably"]
MANNER_ADVS = ["quickly", "slowly", "carefully", "again", "today", "yesterday", "later"]
SENT_ADVS = ["However", "Meanwhile", "Still", "Instead", "Later"]
PREPS = ["in", "on", "at", "for", "with", "from", "by", "of", "into", "about", "under", "near"]
TEMPORAL = ["after", "before", "since"]  # PP or SBAR, depending on what follows
SUBORD = ["because", "although", "while", "if", "when", "unless"]
MODALS = ["will", "would", "could", "may", "might", "should", "can", "must"]
PROPER = [
    ["Velora"], ["Kestrel", "Systems"], ["Marlow", "Foods"], ["Tarnby"],
    ["Osric", "Dale"], ["Nimra", "Holt"], ["Brenlow", "Bank"], ["Quillan"],
    ["Harrow", "Point"], ["Selwyn", "Marsh"], ["Edda", "Voss"], ["Corvane"],
]
NUMBERS = ["two", "three", "five", "ten", "12", "40", "100", "several"]
PRONOUNS = {
    ("subj", "sg"): ["he", "she", "it"],
    ("subj", "pl"): ["they", "we"],
    ("obj", "sg"): ["him", "her", "it"],
    ("obj", "pl"): ["them", "us"],
}
DETS_SG = [("the", "DT"), ("the", "DT"), ("a", "DT"), ("this", "DT"), ("that", "DT"),
           ("every", "DT"), ("its", "PRP$"), ("their", "PRP$"), ("our", "PRP$")]
DETS_PL = [("the", "DT"), ("the", "DT"), ("these", "DT"), ("those", "DT"), ("some", "DT"),
           ("its", "PRP$"), ("their", "PRP$"), ("many", "JJ")]

# Word forms that are both nouns and verbs; the only words --pos-noise touches.
NV_WORDS = {n for pair in NV_NOUNS for n in pair}


class ChunkGrammar:
    """A small probabilistic phrase grammar that emits chunked sentences."""

    def __init__(self, rng: random.Random, pos_noise: float = 0.03) -> None:
        self.rng = rng
        self.pos_noise = pos_noise

    # -- helpers ---------------------------------------------------------
    def p(self, prob: float) -> bool:
        return self.rng.random() < prob

    def pick(self, items: Sequence):
        return self.rng.choice(items)

    # -- noun phrases ------------------------------------------------------
    def _nominal(self, number: str) -> List[Token]:
        """Optional adjectives and compound modifier, then the head noun."""
        toks: List[Token] = []
        if self.p(0.35):
            if self.p(0.2):
                toks.append((self.pick(DEGREE[:3]), "RB"))
            if self.p(0.15):
                toks.append((self.pick(PARTICIPLE_ADJS), "JJ"))
            else:
                toks.append((self.pick(ADJS), "JJ"))
        if self.p(0.2):
            toks.append((self.pick(MODIFIER_NOUNS), "NN"))
        noun = self.pick(ALL_NOUNS)
        toks.append((noun[0], "NN") if number == "sg" else (noun[1], "NNS"))
        return toks

    def np(self, case: str = "obj", depth: int = 0) -> Tuple[List[Chunk], str]:
        """Return the NP chunks (possibly with a PP or relative clause) and number."""
        r = self.rng.random()
        number = "sg" if self.p(0.55) else "pl"
        chunks: List[Chunk]
        if r < 0.14:
            word = self.pick(PRONOUNS[(case, number)])
            chunks = [("NP", [(word, "PRP")])]
            return chunks, number
        if r < 0.22:
            chunks, number = [("NP", [(w, "NNP") for w in self.pick(PROPER)])], "sg"
        elif r < 0.30:
            number = "pl"
            nums = self.pick(NUMBERS)
            chunks = [("NP", [(nums, "JJ" if nums == "several" else "CD")] + self._nominal("pl"))]
        elif r < 0.35:
            number = "sg"
            amount = [("$", "$"), (self.pick(["5", "20", "300", "1.5"]), "CD"),
                      (self.pick(["million", "billion"]), "CD")]
            chunks = [("NP", amount)]
        elif r < 0.41:
            number = "pl"
            if self.p(0.6):
                # Plural nouns coordinated inside one base NP: "and" is I-NP.
                toks: List[Token] = [self.pick(DETS_PL)] if self.p(0.5) else []
                toks += [(self.pick(ALL_NOUNS)[1], "NNS"), ("and", "CC"),
                         (self.pick(ALL_NOUNS)[1], "NNS")]
                chunks = [("NP", toks)]
            else:
                # Two full NPs: "and" is outside both chunks.
                chunks = [("NP", [self.pick(DETS_SG)] + self._nominal("sg")),
                          (None, [("and", "CC")]),
                          ("NP", [self.pick(DETS_SG)] + self._nominal("sg"))]
        elif r < 0.49:
            # Possessive: [NP the company] [NP 's new plan]
            owner = [self.pick([("the", "DT"), ("the", "DT"), ("this", "DT"), ("our", "PRP$")]),
                     (self.pick(ALL_NOUNS)[0], "NN")]
            chunks = [("NP", owner), ("NP", [("'s", "POS")] + self._nominal(number))]
        else:
            if number == "pl" and self.p(0.25):
                det: List[Token] = []  # bare plural
            else:
                det = [self.pick(DETS_SG if number == "sg" else DETS_PL)]
            chunks = [("NP", det + self._nominal(number))]
        self._fix_articles(chunks)
        # Post-modifiers; PP attachment to the noun (flat in chunking).
        if depth < 2 and self.p(0.22):
            chunks += self.pp(depth + 1)
        elif depth < 1 and self.p(0.10):
            rel = self.pick([("that", "WDT"), ("which", "WDT")])
            chunks.append(("NP", [rel]))
            verb = self.pick(TRANSITIVE)
            chunks.append(("VP", [(verb[1] if number == "sg" else verb[0],
                                   "VBZ" if number == "sg" else "VBP")]))
            chunks += self.np("obj", depth + 2)[0]
        return chunks, number

    @staticmethod
    def _fix_articles(chunks: List[Chunk]) -> None:
        for _, toks in chunks:
            for i in range(len(toks) - 1):
                if toks[i][0] == "a" and toks[i + 1][0][0] in "aeiou":
                    toks[i] = ("an", "DT")

    def pp(self, depth: int = 0, preps: Sequence[str] = PREPS) -> List[Chunk]:
        prep = self.pick(preps)
        return [("PP", [(prep, "IN")])] + self.np("obj", depth)[0]

    # -- verb groups -------------------------------------------------------
    def verb_group(self, verb, number: str, allow_passive: bool = True) -> Tuple[List[Chunk], bool]:
        """The VP chunk (plus a pre-verbal ADVP); returns (chunks, is_passive)."""
        vb, vbz, vbd, vbn, vbg, _ = verb
        r = self.rng.random()
        pre: List[Chunk] = []
        passive = False
        if r < 0.30:
            if self.p(0.2):  # adverb before a finite verb: its own ADVP
                pre = [("ADVP", [(self.pick(PRE_VERB_ADVS), "RB")])]
            if self.p(0.5):
                toks = [(vbd, "VBD")]
            else:
                toks = [(vbz, "VBZ")] if number == "sg" else [(vb, "VBP")]
        elif r < 0.45:
            toks = [(self.pick(MODALS), "MD")]
            if self.p(0.3):
                toks.append((self.pick(["not", "also", "probably", "still"]), "RB"))
            toks.append((vb, "VB"))
        elif r < 0.60:
            aux = self.pick([("has" if number == "sg" else "have", "VBZ" if number == "sg" else "VBP"),
                             ("had", "VBD")])
            toks = [aux]
            if self.p(0.3):
                toks.append((self.pick(PRE_VERB_ADVS), "RB"))
            toks.append((vbn, "VBN"))
        elif r < 0.72:
            be = self.pick([("is" if number == "sg" else "are", "VBZ" if number == "sg" else "VBP"),
                            ("was" if number == "sg" else "were", "VBD")])
            toks = [be, (vbg, "VBG")]
        elif r < 0.82:
            do = self.pick([("does" if number == "sg" else "do", "VBZ" if number == "sg" else "VBP"),
                            ("did", "VBD")])
            toks = [do, ("not" if self.p(0.8) else "n't", "RB"), (vb, "VB")]
        elif r < 0.90 and allow_passive and verb[5] in "td":
            be = ("was" if number == "sg" else "were", "VBD")
            toks = [be, (vbn, "VBN")]
            passive = True
        else:
            cat = self.pick(CATENATIVE)
            finite = (cat[2], "VBD") if self.p(0.5) else (
                (cat[1], "VBZ") if number == "sg" else (cat[0], "VBP"))
            toks = [finite, ("to", "TO"), (vb, "VB")]
        return pre + [("VP", toks)], passive

    # -- clauses -------------------------------------------------------------
    def predicate(self, number: str, depth: int) -> List[Chunk]:
        r = self.rng.random()
        if r < 0.14:  # copula + ADJP / NP
            sg = number == "sg"
            be = self.pick([("is", "VBZ") if sg else ("are", "VBP"),
                            ("was", "VBD") if sg else ("were", "VBD"),
                            ("seems", "VBZ") if sg else ("seem", "VBP"),
                            ("became", "VBD")])
            chunks: List[Chunk] = [("VP", [be])]
            if self.p(0.75):
                adjp: List[Token] = []
                if self.p(0.35):
                    adjp.append((self.pick(DEGREE), "RB"))
                if self.p(0.2):
                    adjp.append((self.pick(COMPARATIVES), "JJR"))
                else:
                    adjp.append((self.pick(PRED_ADJS), "JJ"))
                chunks.append(("ADJP", adjp))
                if self.p(0.3):
                    chunks += self.pp(depth + 1, ["for", "about", "with"])
            else:
                chunks += self.np("obj", depth + 1)[0]
            return chunks
        if r < 0.30 and depth < 2:  # say-verb + clause, with or without "that"
            verb = self.pick(SAY_VERBS)
            chunks, _ = self.verb_group(verb, number, allow_passive=False)
            if self.p(0.6):
                chunks.append(("SBAR", [("that", "IN")]))
            return chunks + self.clause(depth + 1)
        if r < 0.42:
            verb = self.pick(INTRANSITIVE)
            chunks, _ = self.verb_group(verb, number, allow_passive=False)
            if self.p(0.5):
                chunks += self.pp(depth + 1)
        elif r < 0.52:
            verb = self.pick(DITRANSITIVE)
            chunks, passive = self.verb_group(verb, number)
            if not passive:
                chunks += self.np("obj", 2)[0]  # adjacent NPs: B-NP directly after an NP
                if self.p(0.35):
                    chunks.append(("PP", [("to", "TO")]))
                chunks += self.np("obj", 2)[0]
        else:
            verb = self.pick(TRANSITIVE)
            chunks, passive = self.verb_group(verb, number)
            if passive:
                if self.p(0.5):
                    chunks += self.pp(depth + 1, ["by"])
            else:
                chunks += self.np("obj", depth + 1)[0]
            if self.p(0.3):
                chunks += self.pp(depth + 1)
        if self.p(0.12):
            chunks.append(("ADVP", [(self.pick(MANNER_ADVS), "RB")]))
        return chunks

    def clause(self, depth: int = 0) -> List[Chunk]:
        subject, number = self.np("subj", depth + 1)
        return subject + self.predicate(number, depth)

    def sentence(self) -> List[Tuple[str, str, str]]:
        chunks: List[Chunk] = []
        r = self.rng.random()
        if r < 0.10:
            chunks += [("ADVP", [(self.pick(SENT_ADVS), "RB")]), (None, [(",", ",")])]
        elif r < 0.20:
            chunks += self.pp(1, TEMPORAL + ["in", "during"]) + [(None, [(",", ",")])]
        elif r < 0.30:
            chunks += [("SBAR", [(self.pick(TEMPORAL + SUBORD), "IN")])] + self.clause(1)
            chunks += [(None, [(",", ",")])]
        chunks += self.clause(0)
        r = self.rng.random()
        if r < 0.15:
            chunks += [(None, [(",", ","), (self.pick(["and", "but"]), "CC")])] + self.clause(1)
        elif r < 0.30:
            # Same words as the PP case below; only the following clause makes it SBAR.
            chunks += [("SBAR", [(self.pick(TEMPORAL + SUBORD), "IN")])] + self.clause(1)
        elif r < 0.40:
            chunks += self.pp(1, TEMPORAL)
        chunks.append((None, [(".", ".")]))
        return self._flatten(chunks)

    def _noisy_pos(self, word: str, pos: str) -> str:
        """Occasionally swap the POS of a noun/verb-ambiguous word, as a tagger would."""
        if word not in NV_WORDS or not self.p(self.pos_noise):
            return pos
        if pos == "NN":
            return "VBG" if word.endswith("ing") else "VB"
        swap = {"NNS": "VBZ", "VBZ": "NNS", "VB": "NN", "VBP": "NN", "VBG": "NN",
                "VBD": "NN", "VBN": "NN"}
        return swap.get(pos, pos)

    def _flatten(self, chunks: List[Chunk]) -> List[Tuple[str, str, str]]:
        rows: List[Tuple[str, str, str]] = []
        for label, toks in chunks:
            for i, (word, pos) in enumerate(toks):
                tag = "O" if label is None else ("B-" if i == 0 else "I-") + label
                rows.append((word, self._noisy_pos(word, pos), tag))
        first = rows[0]
        rows[0] = (first[0][:1].upper() + first[0][1:], first[1], first[2])
        return rows


# --------------------------------------------------------------------------
# NER: invented names in simple templates
# --------------------------------------------------------------------------

ONSETS = ["b", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z",
          "br", "dr", "kr", "st", "th", "tr", "sh", "gr", "pl"]
VOWELS = ["a", "e", "i", "o", "u", "ai", "ei", "ou", "ia", "y"]
CODAS = ["", "", "n", "r", "l", "s", "m", "th", "nd", "rk", "x", "ck"]
PLACE_ENDS = ["ia", "ford", "holm", "stad", "mere", "ova", "ar", "heim", "on", "ey"]
ORG_SUFFIXES = ["Corp", "Group", "Holdings", "Labs", "Partners", "Foods", "Telecom",
                "Motors", "Institute", "Bank", "Airlines", "Media"]
TITLES = ["Mr.", "Ms.", "Dr.", "Professor", "Minister", "Judge"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["January", "March", "May", "July", "September", "November"]
NER_NOUNS = ["plan", "report", "agreement", "project", "deal", "budget", "election",
             "contract", "festival", "survey", "bridge", "factory", "strike", "merger"]
NER_ADJS = ["new", "final", "annual", "joint", "large", "local", "secret", "delayed"]

# Templates: whitespace-separated tokens; {PER}, {ORG}, {LOC}, {DAY}, {MONTH},
# {NOUN}, {ADJ}, {NUM} are slots. Plain capitalised words are not entities.
NER_TEMPLATES = [
    "{PER} , who works for {ORG} , arrived in {LOC} on {DAY} .",
    "{ORG} said on {DAY} that it will open a {ADJ} office in {LOC} .",
    "{PER} met {PER} in {LOC} to discuss the {NOUN} .",
    "The {NOUN} in {LOC} was {ADJ} , according to {PER} of {ORG} .",
    "Shares of {ORG} rose {NUM} percent on {DAY} .",
    "{PER} and {PER} founded {ORG} in {MONTH} .",
    "Officials in {LOC} said the {NOUN} had been cancelled .",
    "{LOC} and {LOC} signed an agreement on the {NOUN} .",
    "According to {ORG} , the {NOUN} in {LOC} is {ADJ} .",
    "The {NOUN} was approved by {ORG} last {MONTH} .",
    "{PER} told reporters in {LOC} that {ORG} would buy {ORG} .",
    "A spokesman for {ORG} declined to comment on the {NOUN} .",
    "{PER} will travel from {LOC} to {LOC} in {MONTH} .",
    "The {ADJ} {NOUN} ended early on {DAY} .",
    "In {LOC} , {PER} won the {NOUN} with {NUM} votes .",
    "{ORG} hired {PER} as its new director .",
    "Police in {LOC} are looking for {PER} .",
    "The {NOUN} of {ORG} in {LOC} was delayed again .",
    "{PER} , {PER} and {PER} visited the {NOUN} in {LOC} .",
    "Nobody expected the {NOUN} to happen in {MONTH} .",
    "{ORG} moved its headquarters to {LOC} .",
    "{PER} said the {NOUN} would cost {NUM} million .",
]


def _syllable(rng: random.Random) -> str:
    return rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)


def _name(rng: random.Random, n_syllables: int, ending: str = "") -> str:
    word = "".join(_syllable(rng) for _ in range(n_syllables)) + ending
    return word[:1].upper() + word[1:]


def _unique(rng: random.Random, make, n: int) -> List[str]:
    seen: Dict[str, None] = {}  # dict keeps insertion order, unlike a set
    while len(seen) < n:
        seen.setdefault(make(rng), None)
    return list(seen)


class NerGenerator:
    """Fill sentence templates with invented PER/ORG/LOC names."""

    def __init__(self, rng: random.Random, pools: Dict[str, List[str]]) -> None:
        self.rng = rng
        self.pools = pools

    def _per(self) -> List[Tuple[str, str]]:
        first, last = self.rng.choice(self.pools["first"]), self.rng.choice(self.pools["last"])
        r = self.rng.random()
        if r < 0.25:  # the title is not part of the entity
            return [(self.rng.choice(TITLES), "O"), (last, "B-PER")]
        if r < 0.35:
            return [(first, "B-PER")]
        return [(first, "B-PER"), (last, "I-PER")]

    def _loc(self) -> List[str]:
        place = self.rng.choice(self.pools["place"])
        r = self.rng.random()
        if r < 0.15:
            return [self.rng.choice(["North", "South", "Port", "Lake", "Mount"]), place]
        if r < 0.25:
            return [place, self.rng.choice(["City", "Valley", "Bay", "Island"])]
        return [place]

    def _org(self) -> List[str]:
        r = self.rng.random()
        if r < 0.2:  # a place name inside an organisation name
            return [self.rng.choice(self.pools["place"]), self.rng.choice(ORG_SUFFIXES)]
        if r < 0.3:  # a surname used as a company name
            return [self.rng.choice(self.pools["last"]), self.rng.choice(ORG_SUFFIXES)]
        if r < 0.4:
            return [self.rng.choice(["Bank", "University", "Museum"]), "of"] + self._loc()
        if r < 0.55:
            return [self.rng.choice(self.pools["org"])]
        return [self.rng.choice(self.pools["org"]), self.rng.choice(ORG_SUFFIXES)]

    def sentence(self) -> List[Tuple[str, str]]:
        rows: List[Tuple[str, str]] = []
        for slot in self.rng.choice(NER_TEMPLATES).split():
            if slot == "{PER}":
                rows += self._per()
            elif slot in ("{LOC}", "{ORG}"):
                label = slot[1:4]
                words = self._loc() if label == "LOC" else self._org()
                rows += [(w, ("B-" if i == 0 else "I-") + label) for i, w in enumerate(words)]
            elif slot == "{DAY}":
                rows.append((self.rng.choice(DAYS), "O"))
            elif slot == "{MONTH}":
                rows.append((self.rng.choice(MONTHS), "O"))
            elif slot == "{NOUN}":
                rows.append((self.rng.choice(NER_NOUNS), "O"))
            elif slot == "{ADJ}":
                rows.append((self.rng.choice(NER_ADJS), "O"))
            elif slot == "{NUM}":
                rows.append((str(self.rng.choice([2, 3, 5, 7, 12, 15, 40, 250])), "O"))
            else:
                rows.append((slot, "O"))
        return rows


def make_name_pools(seed: int) -> Tuple[Dict[str, List[str]], Dict[str, List[str]]]:
    """Return (train pools, dev pools); dev pools also hold a held-out fifth."""
    rng = random.Random(f"ner-names-{seed}")
    full = {
        "first": _unique(rng, lambda r: _name(r, r.choice([1, 2])), 60),
        "last": _unique(rng, lambda r: _name(r, 2), 80),
        "place": _unique(rng, lambda r: _name(r, 1, r.choice(PLACE_ENDS)), 50),
        "org": _unique(rng, lambda r: _name(r, r.choice([1, 2])) + r.choice(["", "ex", "ion", "a"]), 40),
    }
    train = {k: v[: len(v) * 4 // 5] for k, v in full.items()}
    return train, full


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------

def _write(path: Path, sentences: List[List[Tuple[str, ...]]], sep: str) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines: List[str] = []
    for rows in sentences:
        lines += [sep.join(row) for row in rows]
        lines.append("")
    text = "\n".join(lines) + "\n"
    with open(path, "w", encoding="utf-8", newline="\n") as file_:
        file_.write(text)
    return len(text.encode("utf-8"))


def make_sample_data(
    out_dir: Path = DEFAULT_OUT,
    n_train: int = 600,
    n_dev: int = 150,
    seed: int = 0,
    pos_noise: float = 0.03,
) -> Dict[str, int]:
    """Write all sample files; return their sizes in bytes by relative path."""
    out_dir = Path(out_dir)
    sizes: Dict[str, int] = {}
    # One random stream per file, so --n-dev does not change train and so on.
    for split, n in (("train", n_train), ("dev", n_dev)):
        grammar = ChunkGrammar(random.Random(f"chunking-{split}-{seed}"), pos_noise)
        rel = f"sample_chunking/{split}.txt"
        sizes[rel] = _write(out_dir / rel, [grammar.sentence() for _ in range(n)], " ")
    train_pools, dev_pools = make_name_pools(seed)
    for split, n, pools in (("train", n_train, train_pools), ("dev", n_dev, dev_pools)):
        ner = NerGenerator(random.Random(f"ner-{split}-{seed}"), pools)
        rel = f"sample_ner/{split}.tsv"
        sizes[rel] = _write(out_dir / rel, [ner.sentence() for _ in range(n)], "\t")
    return sizes


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n-train", type=int, default=600, help="train sentences per task")
    parser.add_argument("--n-dev", type=int, default=150, help="dev sentences per task")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--pos-noise", type=float, default=0.03,
                        help="chance of a wrong POS on a noun/verb-ambiguous word")
    args = parser.parse_args(argv)
    sizes = make_sample_data(args.out_dir, args.n_train, args.n_dev, args.seed, args.pos_noise)
    for rel, size in sizes.items():
        print(f"{args.out_dir / rel}: {size / 1024:.1f} KB")
    print(f"total: {sum(sizes.values()) / 1024:.1f} KB")


if __name__ == "__main__":
    main()
