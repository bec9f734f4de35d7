"""spacy-adf's own registries (resolvable through entry points as well):
`extractors`, custom token attributes for feature templates (a function
doc -> one string or None per token; docs/training.md has an example)."""
import catalogue

extractors = catalogue.create("spacy_adf", "extractors", entry_points=True)
