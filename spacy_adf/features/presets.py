"""Named template presets, registered under @misc so configs can use them."""
from typing import List

from spacy.util import registry

# groups several presets share (the lists are never changed: each preset returns a new one)
_WORDS = ["w[-2]", "w[-1]", "w[0]", "w[1]", "w[2]", "w[-1]|w[0]", "w[0]|w[1]"]
_TAG_NGRAMS = ["t[-2]|t[-1]", "t[-1]|t[0]", "t[0]|t[1]", "t[1]|t[2]",
               "t[-2]|t[-1]|t[0]", "t[-1]|t[0]|t[1]", "t[0]|t[1]|t[2]"]
_ORTHO = ["ortho[-2]", "ortho[-1]", "ortho[0]", "ortho[1]", "ortho[2]",
          "ortho[-2]|ortho[-1]", "ortho[-1]|ortho[0]", "ortho[0]|ortho[1]", "ortho[1]|ortho[2]"]

@registry.misc("spacy_adf.templates.chunking.v1")
def chunking_templates() -> List[str]:
    """The ADF paper's phrase-chunking templates (Sun et al. 2014, Table 3)."""
    return _WORDS + ["t[-1]", "t[0]", "t[1]"] + _TAG_NGRAMS


# word clusters: coarse to fine of the word, 6-bit and full of its neighbours (docs/training.md)
CLUSTER_TEMPLATES = ["cluster4[0]", "cluster6[0]", "cluster10[0]", "cluster[0]",
                     "cluster6[-1]", "cluster6[1]", "cluster[-1]", "cluster[1]"]


@registry.misc("spacy_adf.templates.chunking_rich.v1")
def chunking_rich_templates(words: str = "w", clusters: bool = False) -> List[str]:
    """The paper's chunking templates plus POS at +-2, word|POS and orthography (docs/training.md)."""
    if words not in ("w", "form"):
        raise ValueError(f"words must be 'w' or 'form', not {words!r}")
    templates = chunking_templates() + [
        "t[-2]", "t[2]",
        "w[0]|t[0]", "w[-1]|t[0]", "w[1]|t[0]",
        "suffix3[0]", "suffix2[0]", "shape[0]", "lower[0]",
    ]
    return [t.replace("w[", words + "[") for t in templates] + (CLUSTER_TEMPLATES if clusters else [])


@registry.misc("spacy_adf.templates.words.v1")
def word_templates() -> List[str]:
    """Templates that need no upstream annotation: words, shapes and affixes."""
    return [
        "w[-2]", "w[-1]", "w[0]", "w[1]", "w[2]",
        "lower[-1]|lower[0]", "lower[0]|lower[1]",
        "shape[-1]", "shape[0]", "shape[1]", "shape[-1]|shape[0]", "shape[0]|shape[1]",
        "prefix2[0]", "prefix3[0]", "suffix2[0]", "suffix3[0]", "suffix4[0]",
    ]


@registry.misc("spacy_adf.templates.ner.v1")
def ner_templates() -> List[str]:
    """Word, shape and affix windows for named entities (no POS needed)."""
    return word_templates() + [
        "lower[-2]", "lower[-1]", "lower[0]", "lower[1]", "lower[2]",
        "shape[-2]", "shape[2]", "suffix3[-1]", "suffix3[1]",
    ]


@registry.misc("spacy_adf.templates.bunsetsu.v1")
def bunsetsu_templates() -> List[str]:
    """Japanese bunsetsu chunking: words, tags, morph fields and characters at the boundary."""
    tags = [
        "t[-2]", "t[-1]", "t[0]", "t[1]", "t[2]",
        "t[-1]|t[0]", "t[0]|t[1]", "t[-2]|t[-1]|t[0]", "t[-1]|t[0]|t[1]",
        "pos[-1]|pos[0]",
    ]
    mixed = ["w[-1]|t[0]", "t[-1]|w[0]"]
    morph = [
        "morph_SrcSubPos[-1]", "morph_SrcSubPos[0]",
        "morph_ConjForm[-1]", "morph_ConjForm[0]", "morph_ConjType[-1]",
        "morph_ConjForm[-1]|t[0]", "morph_SrcPos[-1]|morph_SrcPos[0]",
    ]
    chars = ["suffix1[-1]", "prefix1[0]", "suffix1[-1]|prefix1[0]", "suffix2[-1]", "prefix2[0]"]
    return _WORDS + tags + mixed + morph + chars


@registry.misc("spacy_adf.templates.ja_morph.v1")
def ja_morph_templates(clusters: bool = False) -> List[str]:
    """Japanese POS and conjugation from words and their first and last characters."""
    return _WORDS + [
        "w[-1]|w[0]|w[1]",
        "prefix1[0]", "prefix2[0]", "suffix1[0]", "suffix2[0]", "suffix3[0]",
        "suffix1[-1]|prefix1[0]", "suffix1[0]|prefix1[1]", "suffix2[-1]", "prefix2[1]",
    ] + (CLUSTER_TEMPLATES if clusters else [])


@registry.misc("spacy_adf.templates.pos_en.v1")
def pos_en_templates(clusters: bool = False) -> List[str]:
    """English POS tagging of running text and treebank tokens: norm window, ortho, affixes
    (quote directions are tagged by rule after the tagger: assemble --quote-tags-after)."""
    norms = [t.replace("w[", "norm[") for t in _WORDS]
    affixes = ["prefix2[0]", "prefix3[0]", "prefix4[0]", "suffix2[0]", "suffix3[0]", "suffix4[0]"]
    return norms + ["w[0]"] + _ORTHO + affixes + (CLUSTER_TEMPLATES if clusters else [])


@registry.misc("spacy_adf.templates.bioner.v1")
def bioner_templates(pos: bool = False, affixes: bool = False, context: bool = False,
                     wide: bool = False, clusters: bool = False) -> List[str]:
    """The ADF paper's Bio-NER templates (Sun et al. 2014, Table 2) and optional groups
    (docs/components.md, "Biomedical NER")."""
    out = _WORDS + _ORTHO
    if pos:
        out += ["t[-2]", "t[-1]", "t[0]", "t[1]", "t[2]"] + _TAG_NGRAMS
    if affixes:
        out += [
            "prefix2[0]", "prefix3[0]", "prefix4[0]",
            "suffix2[0]", "suffix3[0]", "suffix4[0]", "lower[0]",
        ]
    if context:
        out += [
            "prefix1[0]", "prefix5[0]", "suffix1[0]", "suffix5[0]",
            "suffix3[-1]", "suffix3[1]", "prefix3[-1]", "prefix3[1]",
            "lower[-1]", "lower[1]", "lower[-1]|lower[0]", "lower[0]|lower[1]",
            "shape[-1]", "shape[0]", "shape[1]", "w[-1]|w[1]", "ortho[0]|suffix3[0]",
        ]
    if wide:
        out += ["lower[-2]", "lower[2]", "lower[-2]|lower[-1]", "lower[1]|lower[2]", "shape[-2]", "shape[2]"]
        if pos:
            out += ["t[0]|lower[0]", "t[0]|suffix3[0]"]
    if clusters:
        out += CLUSTER_TEMPLATES
    return [t for i, t in enumerate(out) if t not in out[:i]]
