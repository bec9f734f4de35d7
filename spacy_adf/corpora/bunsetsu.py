"""Japanese bunsetsu dependency corpora (KNP, CaboCha, CoNLL-U) as spaCy Docs and the reader
``spacy_adf.BunsetsuCorpus.v1`` (docs/corpora.md, "Bunsetsu dependency Docs")."""
import itertools
from collections import Counter
from pathlib import Path
from typing import Dict, Iterator, List, Optional

from spacy.attrs import LEMMA, MORPH, POS, TAG
from spacy.tokens import Doc, DocBin
from spacy.training import Example
from spacy.util import registry
from spacy.vocab import Vocab

from ..lang.ja.bunsetsu import BUNSETSU_KEY
from ..lang.ja.pos import juman_upos, main_subpos, make_morph, make_tag, unidic_upos
from .bunsetsu_conllu import conllu_bunsetsu_docs
from .bunsetsu_doc import BAD_HEADS_MODES, make_bunsetsu_doc, predicted_reference
from .docbin import docbin_files
from .cabocha import read_cabocha
from .conll import copy_tokens
from .knp import KNPSentence, PathLike, PathsLike, check_files, read_knp
from .reader_state import check_choice, limited

FORMATS = ("knp", "cabocha", "conllu")


def sentence_to_doc(
    vocab: Vocab, sentence: KNPSentence, bad_heads: str = "raise", stats: Optional[Counter] = None,
    scheme: str = "juman",
) -> Optional[Doc]:
    """A Doc from a `read_knp` sentence (``scheme="juman"``) or a `read_cabocha`
    one (``"unidic"``); ``bad_heads`` and ``stats`` as in `make_bunsetsu_doc`."""
    morphemes = sentence.morphemes
    upos = juman_upos if scheme == "juman" else unidic_upos
    return make_bunsetsu_doc(
        vocab,
        words=[m.surface for m in morphemes],
        tags=[make_tag(m.pos, m.subpos) for m in morphemes],
        pos=[upos(m.pos, main_subpos(m.subpos)) for m in morphemes],
        lemmas=[m.lemma for m in morphemes],
        morphs=[make_morph(m.pos, m.subpos, m.conj_type, m.conj_form) for m in morphemes],
        bounds=[(b.start, b.end) for b in sentence.bunsetsu],
        heads=[b.head for b in sentence.bunsetsu],
        dep_types=[b.dep_type for b in sentence.bunsetsu],
        sent_id=sentence.sid,
        bad_heads=bad_heads,
        stats=stats,
    )


def _check_source(path: PathsLike, format: str, bad_heads: str) -> List[Path]:
    """The corpus files, with ``format`` and ``bad_heads`` checked."""
    check_choice("bad_heads", bad_heads, BAD_HEADS_MODES)
    check_choice("format", format, FORMATS)
    return check_files(path, format)


def bunsetsu_docs(
    path: PathsLike,
    vocab: Vocab,
    format: str = "knp",
    limit: int = 0,
    bad_heads: str = "skip",
    stats: Optional[Counter] = None,
) -> Iterator[Doc]:
    """Reference Docs of one or more KNP, CaboCha or CoNLL-U files (`knp.check_files`), read in order
    (``limit``: sentences read over all of them, 0 = all)."""
    files = _check_source(path, format, bad_heads)
    if format == "conllu":
        docs = itertools.chain.from_iterable(
            conllu_bunsetsu_docs(p, vocab, limit=limit, bad_heads=bad_heads, stats=stats) for p in files
        )
        # conllu's limit counts sentences read per file; cut the chain to docs as well
        return limited(docs, limit)
    if format == "knp":
        # read_knp's own out-of-range check is replaced by ours (repair / skip)
        read = lambda p: read_knp(p, bad_heads="ignore")  # noqa: E731
        scheme = "juman"
    else:
        read = read_cabocha
        scheme = "unidic"
    sentences = limited(itertools.chain.from_iterable(read(p) for p in files), limit)
    docs = (sentence_to_doc(vocab, sentence, bad_heads, stats, scheme) for sentence in sentences)
    return (doc for doc in docs if doc is not None)


def make_predicted(reference: Doc, predicted_bunsetsu: bool = True, predicted_tags: bool = True) -> Doc:
    """A Doc with the reference's tokens, its tags, POS, morphs and lemmas if ``predicted_tags``,
    its bunsetsu spans without heads if ``predicted_bunsetsu``, and no tree."""
    doc = copy_tokens(reference, (TAG, POS, MORPH, LEMMA) if predicted_tags else ())
    if "sent_id" in reference.user_data:
        doc.user_data["sent_id"] = reference.user_data["sent_id"]
    if predicted_bunsetsu and BUNSETSU_KEY in reference.spans:
        doc.spans[BUNSETSU_KEY] = [doc[s.start:s.end] for s in reference.spans[BUNSETSU_KEY]]
    return doc


def sentence_key(doc: Doc) -> str:
    """What pairs a gold sentence with its jack-knifed copy: the S-ID, else the text."""
    return doc.user_data.get("sent_id") or doc.text


def read_jackknifed(paths, vocab: Vocab) -> Dict[str, Doc]:
    """Jack-knifed Docs by `sentence_key` from ``.spacy`` files or folders, separated by commas."""
    docs: Dict[str, Doc] = {}
    for path in str(paths).split(","):
        for file_ in docbin_files(path.strip()):
            for doc in DocBin(store_user_data=True).from_disk(file_).get_docs(vocab):
                docs[doc.text] = doc  # a DocBin saved without user data has no S-IDs
                if doc.user_data.get("sent_id"):
                    docs[doc.user_data["sent_id"]] = doc
    if not docs:
        raise ValueError(f"no jack-knifed Docs in {paths}")
    return docs


@registry.readers("spacy_adf.BunsetsuCorpus.v1")
class BunsetsuCorpus:
    """Examples for bunsetsu dependency parsing; ``self.stats`` counts over all passes (as
    `make_bunsetsu_doc`). ``jackknifed``: docs/corpora.md, "Bunsetsu dependency Docs"."""

    def __init__(
        self,
        path: Optional[PathsLike],
        format: str = "knp",
        limit: int = 0,
        bad_heads: str = "skip",
        predicted_bunsetsu: bool = True,
        predicted_tags: bool = True,
        jackknifed: Optional[PathLike] = None,
    ):
        if path is None:
            raise ValueError("no corpus path: pass --paths.train / --paths.dev")
        self.paths = _check_source(path, format, bad_heads)
        self.format, self.limit, self.bad_heads = format, limit, bad_heads
        self.predicted_bunsetsu, self.predicted_tags = predicted_bunsetsu, predicted_tags
        self.jackknifed = jackknifed
        if jackknifed is not None:
            for path in str(jackknifed).split(","):  # checked now, not at the first example
                if not Path(path.strip()).exists():
                    raise ValueError(f"jack-knifed DocBin {path.strip()!r} does not exist: run the "
                                     "jack-knife step first (project.yml)")
                docbin_files(path.strip())
        self.stats: Counter = Counter()

    def __call__(self, nlp) -> Iterator[Example]:
        docs = bunsetsu_docs(self.paths, nlp.vocab, self.format, self.limit, self.bad_heads, self.stats)
        if self.jackknifed is None:
            for reference in docs:
                yield Example(make_predicted(reference, self.predicted_bunsetsu, self.predicted_tags), reference)
            return
        jackknifed = read_jackknifed(self.jackknifed, nlp.vocab)
        for reference in docs:
            seen = jackknifed.get(sentence_key(reference)) or jackknifed.get(reference.text)
            if seen is None:
                raise ValueError(f"sentence {sentence_key(reference)[:60]!r} is not in the jack-knifed Docs "
                                 f"{self.jackknifed}: annotate the same corpus files")
            self.stats["jackknifed"] += 1
            seen_reference = predicted_reference(reference, seen, use_bunsetsu=self.predicted_bunsetsu)
            # with predicted bunsetsu the parser learns the gold heads projected onto them
            yield Example(make_predicted(seen_reference, self.predicted_bunsetsu, True),
                          seen_reference if self.predicted_bunsetsu else reference)
