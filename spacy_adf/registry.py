"""spacy-adf's own registries (resolvable through entry points as well).

`extractors`: custom token attributes for feature templates. A registered
extractor takes a Doc and returns one string (or None for "no value") per
token; templates then use it by name, e.g. ``my_attr[0]`` or ``w[0]|my_attr[1]``.

    from spacy_adf.registry import extractors

    @extractors("is_title")
    def is_title(doc):
        return ["T" if t.is_title else None for t in doc]
"""
import catalogue

extractors = catalogue.create("spacy_adf", "extractors", entry_points=True)
