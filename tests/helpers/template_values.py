"""The strings behind a TemplateSet's column hashes, in Python: readable
features for tests and for the CRFsuite comparison of
benchmarks/bioner_speed.py."""
from typing import List, Optional

from spacy.tokens import Doc

from spacy_adf.features.templates import (_AFFIX_RE, _CLUSTER_RE, _DOC_ATTRS, _MORPH_RE, TemplateSet,
                                          _cluster_value, ortho_class, word_form)
from spacy_adf.registry import extractors


def column_values(tset: TemplateSet, doc: Doc) -> List[List[Optional[str]]]:
    """The string behind every column value of `doc`, one list per column
    of `tset` (None where the column is absent, i.e. its hash is 0): what
    `TemplateSet.columns_for` hashes, for tools that need readable features
    (CRFsuite attribute strings in benchmarks/bioner_speed.py)."""
    out: List[List[Optional[str]]] = []
    texts = [t.text for t in doc]
    for name in tset.columns:
        if name in ("w", "orth"):
            values = texts
        elif name in _DOC_ATTRS:
            attr = {"t": "tag", "w": "orth"}.get(name, name)
            values = [getattr(t, attr + "_") or None for t in doc]
        elif _AFFIX_RE.match(name):
            m = _AFFIX_RE.match(name)
            size = int(m.group(2))
            values = ([x[:size] for x in texts] if m.group(1) == "prefix"
                      else [x[-size:] for x in texts])
        elif name == "ortho":
            values = [ortho_class(x) for x in texts]
        elif name == "form":
            values = [word_form(x) for x in texts]
        elif _CLUSTER_RE.match(name):
            tset._check_clusters(None)
            values = [_cluster_value(tset.clusters, int(_CLUSTER_RE.match(name).group(1) or 0), x)
                      for x in texts]
        elif _MORPH_RE.match(name):
            field = _MORPH_RE.match(name).group(1)
            values = [_morph_value(str(t.morph), field) for t in doc]
        else:
            raw = extractors.get(name)(doc)
            values = [None if v is None or v == "" else str(v) for v in raw]
        out.append(list(values))
    return out


def _morph_value(morph: str, field: str) -> Optional[str]:
    """The value of `field` in a morph string ("A=x|B=y"), as _morph_column reads it."""
    value = None
    for feat in (morph.split("|") if morph else ()):
        name, _, v = feat.partition("=")
        if name == field and v:
            value = v
    return value
